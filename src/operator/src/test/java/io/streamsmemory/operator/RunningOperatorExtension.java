package io.streamsmemory.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.lang.reflect.Field;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/** What {@link WithRunningOperator} does. */
final class RunningOperatorExtension implements TestInstancePostProcessor, AfterAllCallback {
    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(RunningOperatorExtension.class);

    @Override
    public void postProcessTestInstance(Object test, ExtensionContext context) throws Exception {
        KubernetesClient client = (KubernetesClient) field(test, KubernetesClient.class)
                .orElseThrow(() -> new IllegalStateException(test.getClass().getSimpleName() + " has no client field"))
                .get(test);
        if (client == null) {
            throw new IllegalStateException(
                    test.getClass().getSimpleName() + " has no client: @EnableLocalControlPlane must come first");
        }
        Fixtures.installCrd(client);
        RunningOperator operator = RunningOperator.start(client);
        context.getStore(NS).put(RunningOperator.class, operator);
        Optional<Field> field = field(test, RunningOperator.class);
        if (field.isPresent()) {
            field.get().set(test, operator);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        RunningOperator operator = context.getStore(NS).remove(RunningOperator.class, RunningOperator.class);
        if (operator != null) {
            operator.close();
        }
    }

    private static Optional<Field> field(Object test, Class<?> type) {
        for (Class<?> c = test.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getType() == type) {
                    f.setAccessible(true);
                    return Optional.of(f);
                }
            }
        }
        return Optional.empty();
    }
}
