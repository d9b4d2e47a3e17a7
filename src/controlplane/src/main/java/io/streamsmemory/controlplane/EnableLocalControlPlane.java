package io.streamsmemory.controlplane;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class a control plane with the parts it asks for. Classes that ask for the same parts share
 * one per test JVM (started by the first, stopped when the JVM's tests end): each class creates its own namespaces, and
 * after it the extension removes them and every cluster-scoped object the class added (CRDs, webhook configurations,
 * admission policies, cluster roles and bindings); a class that leaves a cluster-scoped object behind fails with its
 * name. {@link #ownControlPlane()} gives a class one of its own, for flags or faults no other class should meet.
 * Tagged {@code control-plane}, so {@code make test-quick} leaves these classes out. Inject {@link LocalControlPlane} or {@link io.fabric8.kubernetes.client.KubernetesClient}
 * (admin) as test/lifecycle method parameters or into non-final fields of those types.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(LocalControlPlaneExtension.class)
@Tag("control-plane")
public @interface EnableLocalControlPlane {

    /** Start kube-controller-manager (Deployments -> ReplicaSets -> Pods, default ServiceAccounts, GC). */
    boolean controllerManager() default false;

    /** Start kube-scheduler (Pods get bound to the kwok node). */
    boolean scheduler() default false;

    /** Start kwok with a fake node so scheduled Pods become Running (needs scheduler). */
    boolean kwok() default false;

    /**
     * Start a real node (containerd and kubelet running the images of {@code make images}) with the controller-manager
     * and scheduler; kwok's fake node where the machine cannot run one ({@link LocalControlPlane#hasRealNode}).
     */
    boolean realNode() default false;

    /**
     * Start an OCI registry on loopback ({@link LocalControlPlane#registryAddress}); with {@link #realNode} the kubelet
     * pulls every image from it (none is imported), so the images must be pushed there before the first pod.
     */
    boolean registry() default false;

    /**
     * A control plane of the class's own, started before its tests and stopped after them: for a class that restarts
     * or breaks parts of it, or changes what every other class would see.
     */
    boolean ownControlPlane() default false;

    /**
     * Installed once on the control plane before any class uses it (kept for the test JVM, not in any class's
     * footprint); classes naming the same parts and the same fixture share one control plane.
     */
    Class<? extends ControlPlaneFixture> fixture() default ControlPlaneFixture.None.class;

    /** Seconds to wait for the API server. */
    int startTimeoutSeconds() default 90;
}
