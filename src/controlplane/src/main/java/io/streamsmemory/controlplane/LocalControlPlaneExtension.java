package io.streamsmemory.controlplane;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;

/** JUnit 5 extension behind {@link EnableLocalControlPlane}: one control plane per test class. */
public class LocalControlPlaneExtension implements BeforeAllCallback, TestInstancePostProcessor, ParameterResolver {

    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(LocalControlPlaneExtension.class);

    /** Store wrapper: JUnit closes it when the class-level context ends. */
    private record Handle(LocalControlPlane controlPlane)
            implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        @Override
        public void close() {
            controlPlane.close();
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        LocalControlPlane cp = controlPlane(context);
        injectFields(context.getRequiredTestClass(), null, cp, true);
    }

    @Override
    public void postProcessTestInstance(Object testInstance, ExtensionContext context) throws Exception {
        injectFields(testInstance.getClass(), testInstance, controlPlane(context), false);
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        Class<?> t = pc.getParameter().getType();
        return t == LocalControlPlane.class || t == KubernetesClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) throws ParameterResolutionException {
        LocalControlPlane cp = controlPlane(ec);
        return pc.getParameter().getType() == LocalControlPlane.class ? cp : cp.adminClient();
    }

    private static LocalControlPlane controlPlane(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()
                || classContext.getTestClass().isEmpty()) {
            if (classContext.getParent().isEmpty()) {
                break;
            }
            classContext = classContext.getParent().get();
        }
        Class<?> testClass = classContext.getRequiredTestClass();
        ExtensionContext owner = classContext;
        return owner.getStore(NS)
                .getOrComputeIfAbsent(
                        testClass,
                        c -> {
                            EnableLocalControlPlane a = AnnotationSupport.findAnnotation(
                                            testClass, EnableLocalControlPlane.class)
                                    .orElse(null);
                            ControlPlaneOptions options = a == null
                                    ? ControlPlaneOptions.apiServerOnly()
                                    : new ControlPlaneOptions(
                                            a.controllerManager(),
                                            a.scheduler(),
                                            a.kwok(),
                                            a.realNode(),
                                            Duration.ofSeconds(a.startTimeoutSeconds()));
                            return new Handle(LocalControlPlane.start(options));
                        },
                        Handle.class)
                .controlPlane();
    }

    private static void injectFields(Class<?> type, Object instance, LocalControlPlane cp, boolean statics)
            throws IllegalAccessException {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                boolean isStatic = Modifier.isStatic(f.getModifiers());
                if (isStatic != statics || Modifier.isFinal(f.getModifiers())) {
                    continue;
                }
                Object value = f.getType() == LocalControlPlane.class
                        ? cp
                        : f.getType() == KubernetesClient.class ? cp.adminClient() : null;
                if (value != null) {
                    f.setAccessible(true);
                    f.set(instance, value);
                }
            }
        }
    }
}
