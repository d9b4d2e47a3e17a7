package io.streamsmemory.controlplane;

import java.time.Duration;

/**
 * Which parts of the local control plane to start. etcd and kube-apiserver always run;
 * the others cost start-up time and are off by default.
 *
 * @param controllerManager kube-controller-manager (Deployments get ReplicaSets and Pods,
 *     namespaces get their "default" ServiceAccount, garbage collection runs)
 * @param scheduler kube-scheduler (Pods get a node; only useful together with {@code kwok})
 * @param kwok kwok with one fake node "kwok-node-0", so scheduled Pods become Running
 * @param startTimeout how long to wait for the API server to become ready
 */
public record ControlPlaneOptions(boolean controllerManager, boolean scheduler, boolean kwok, Duration startTimeout) {

    /** etcd + kube-apiserver only: the fastest start. */
    public static ControlPlaneOptions apiServerOnly() {
        return new ControlPlaneOptions(false, false, false, Duration.ofSeconds(90));
    }

    /** Everything: controller-manager, scheduler and kwok (if kwok was built). */
    public static ControlPlaneOptions full() {
        return new ControlPlaneOptions(true, true, true, Duration.ofSeconds(90));
    }

    public ControlPlaneOptions withControllerManager(boolean on) {
        return new ControlPlaneOptions(on, scheduler, kwok, startTimeout);
    }

    public ControlPlaneOptions withScheduler(boolean on) {
        return new ControlPlaneOptions(controllerManager, on, kwok, startTimeout);
    }

    public ControlPlaneOptions withKwok(boolean on) {
        return new ControlPlaneOptions(controllerManager, scheduler, on, startTimeout);
    }

    public ControlPlaneOptions withStartTimeout(Duration timeout) {
        return new ControlPlaneOptions(controllerManager, scheduler, kwok, timeout);
    }

    String components() {
        StringBuilder sb = new StringBuilder("etcd apiserver");
        if (controllerManager) {
            sb.append(" controller-manager");
        }
        if (scheduler) {
            sb.append(" scheduler");
        }
        if (kwok) {
            sb.append(" kwok");
        }
        return sb.toString();
    }
}
