package io.streamsmemory.controlplane;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit 5 extension behind {@link EnableLocalControlPlane}: one control plane per set of parts in a test JVM, shared by
 * the classes that ask for it, each class's footprint cleared after it; or one per class that asks for its own.
 */
public class LocalControlPlaneExtension
        implements BeforeAllCallback, AfterAllCallback, TestInstancePostProcessor, ParameterResolver {

    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(LocalControlPlaneExtension.class);

    /** Store wrapper: JUnit closes it when the context that holds it ends (the class's, or the whole run's). */
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
        if (isShared(context)) {
            context.getStore(NS).put(ClassFootprint.class, ClassFootprint.before(cp.adminClient()));
        }
        injectFields(context.getRequiredTestClass(), null, cp, true);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ClassFootprint footprint = context.getStore(NS).remove(ClassFootprint.class, ClassFootprint.class);
        if (footprint == null) {
            return;
        }
        List<String> left = footprint.clear(controlPlane(context));
        if (!left.isEmpty()) {
            throw new AssertionError(context.getRequiredTestClass().getSimpleName()
                    + " left cluster-scoped objects in the control plane it shares (removed now; remove them in its"
                    + " @AfterAll): " + left);
        }
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
        ExtensionContext classContext = classContext(context);
        EnableLocalControlPlane a = annotation(classContext);
        ControlPlaneOptions options = a == null
                ? ControlPlaneOptions.apiServerOnly()
                : new ControlPlaneOptions(
                        a.controllerManager(),
                        a.scheduler(),
                        a.kwok(),
                        a.realNode(),
                        a.registry(),
                        Duration.ofSeconds(a.startTimeoutSeconds()),
                        List.of());
        boolean own = a != null && a.ownControlPlane();
        Class<? extends ControlPlaneFixture> fixture = a == null ? ControlPlaneFixture.None.class : a.fixture();
        // A shared plane is keyed by its parts and fixture, not by how long its first class was willing to wait for it.
        Object key =
                own ? classContext.getRequiredTestClass() : List.of(options.withStartTimeout(Duration.ZERO), fixture);
        ExtensionContext owner = own ? classContext : classContext.getRoot();
        return owner.getStore(NS)
                .getOrComputeIfAbsent(key, k -> new Handle(startWith(options, fixture)), Handle.class)
                .controlPlane();
    }

    private static LocalControlPlane startWith(
            ControlPlaneOptions options, Class<? extends ControlPlaneFixture> fixture) {
        LocalControlPlane controlPlane = LocalControlPlane.start(options);
        try {
            var constructor = fixture.getDeclaredConstructor();
            constructor.setAccessible(true);
            constructor.newInstance().install(controlPlane);
            return controlPlane;
        } catch (Exception | Error e) {
            controlPlane.close();
            throw new IllegalStateException("the control plane's fixture " + fixture.getSimpleName() + " failed", e);
        }
    }

    private static boolean isShared(ExtensionContext context) {
        EnableLocalControlPlane a = annotation(classContext(context));
        return a == null || !a.ownControlPlane();
    }

    private static EnableLocalControlPlane annotation(ExtensionContext classContext) {
        return AnnotationSupport.findAnnotation(classContext.getRequiredTestClass(), EnableLocalControlPlane.class)
                .orElse(null);
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()
                || classContext.getTestClass().isEmpty()) {
            if (classContext.getParent().isEmpty()) {
                break;
            }
            classContext = classContext.getParent().get();
        }
        return classContext;
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
