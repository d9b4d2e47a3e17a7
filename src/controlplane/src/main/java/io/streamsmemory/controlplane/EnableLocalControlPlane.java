package io.streamsmemory.controlplane;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class its own fresh control plane (started before all tests,
 * stopped after them). Inject {@link LocalControlPlane} or {@link io.fabric8.kubernetes.client.KubernetesClient}
 * (admin) as test/lifecycle method parameters or into non-final fields of those types.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(LocalControlPlaneExtension.class)
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

    /** Seconds to wait for the API server. */
    int startTimeoutSeconds() default 90;
}
