package io.streamsmemory.controlplane;

import java.time.Duration;
import java.util.List;

/**
 * Which parts of the local control plane to start. etcd and kube-apiserver always run;
 * the others cost start-up time and are off by default.
 *
 * @param controllerManager kube-controller-manager (Deployments get ReplicaSets and Pods,
 *     namespaces get their "default" ServiceAccount, garbage collection runs)
 * @param scheduler kube-scheduler (Pods get a node; only useful together with {@code kwok})
 * @param kwok kwok with one fake node "kwok-node-0", so scheduled Pods become Running
 * @param realNode a real node "streams-memory-node" (containerd and kubelet, src/controlplane/bin/build-node.sh) that
 *     runs the images of {@code make images}; starts the controller-manager and scheduler too. Where the machine
 *     cannot run one, the script says why in one line and starts kwok instead ({@link LocalControlPlane#hasRealNode})
 * @param registry an OCI registry on loopback ({@code crane registry serve}, {@link LocalControlPlane#registryAddress});
 *     with a real node, the node imports no image and the kubelet pulls every one from it, the sandbox's too, so
 *     whoever starts pods first pushes them there ({@code make publish}'s script)
 * @param startTimeout how long to wait for the API server to become ready
 * @param nodeImages with a real node and no registry, the images of {@code make images} the node imports, by name
 *     ({@code pause}, {@code example-app}, ...); empty: all of them. Each costs seconds of CPU to import (all: ~9 s)
 */
public record ControlPlaneOptions(
        boolean controllerManager,
        boolean scheduler,
        boolean kwok,
        boolean realNode,
        boolean registry,
        Duration startTimeout,
        List<String> nodeImages) {

    /** etcd + kube-apiserver only: the fastest start. */
    public static ControlPlaneOptions apiServerOnly() {
        return new ControlPlaneOptions(false, false, false, false, false, Duration.ofSeconds(90), List.of());
    }

    /** Everything: controller-manager, scheduler and kwok (if kwok was built). */
    public static ControlPlaneOptions full() {
        return new ControlPlaneOptions(true, true, true, false, false, Duration.ofSeconds(90), List.of());
    }

    public ControlPlaneOptions withRealNode(boolean on) {
        return new ControlPlaneOptions(controllerManager, scheduler, kwok, on, registry, startTimeout, nodeImages);
    }

    public ControlPlaneOptions withStartTimeout(Duration timeout) {
        return new ControlPlaneOptions(controllerManager, scheduler, kwok, realNode, registry, timeout, nodeImages);
    }

    public ControlPlaneOptions withNodeImages(String... names) {
        return new ControlPlaneOptions(
                controllerManager, scheduler, kwok, realNode, registry, startTimeout, List.of(names));
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
        if (registry) {
            sb.append(" registry");
        }
        if (realNode) {
            sb.append(" node");
        }
        return sb.toString();
    }
}
