package io.streamsmemory.operator.observe;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds, from kubelet's container statuses, an injected container in a restart loop whose JVM ended with an error of
 * its own: a JVM that hits {@code -XX:MaxMetaspaceSize} or {@code -XX:MaxDirectMemorySize} at start never answers its
 * report, so only kubelet tells. Kept per round from the pods that exist, not over a window: a lifted cap rolls the
 * pods, and the new pods' statuses start clean.
 */
final class KubeletCrashLoops {
    /**
     * Restarts before a container counts as looping: one failed start can be anything (a broker not up yet); two in a
     * row of the same container are kubelet's CrashLoopBackOff.
     */
    static final int RESTARTS = 2;
    /**
     * Exit codes of a JVM stopped from outside, which no cap causes: 137 (SIGKILL: the kernel's OOM killer, counted as
     * an OOM kill, or kubelet after the grace period) and 143 (SIGTERM: a failed liveness probe, a deletion).
     */
    static final Set<Integer> STOPPED_FROM_OUTSIDE = Set.of(0, 137, 143);

    private KubeletCrashLoops() {}

    /** The injected container's crash loop, if its status shows one. */
    static Optional<CrashLoop> of(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String injected = annotations == null ? null : annotations.get(MetadataKeys.INJECTED_CONTAINER);
        if (injected == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getContainerStatuses().stream()
                .filter(s -> injected.equals(s.getName()))
                .filter(s -> s.getRestartCount() != null && s.getRestartCount() >= RESTARTS)
                // In the loop now (waiting to restart, or just ended): a container that failed twice at some start (a
                // broker not up yet) and has run since keeps those ends in its status, and is no loop.
                .filter(s -> s.getState() == null || s.getState().getRunning() == null)
                .flatMap(s -> lastRun(s).stream()
                        .filter(KubeletCrashLoops::failedOnItsOwn)
                        .map(t -> new CrashLoop(
                                pod.getMetadata().getName(),
                                s.getName(),
                                s.getRestartCount(),
                                t.getExitCode(),
                                t.getMessage())))
                .findFirst();
    }

    /** The run that ended last: the current state while the container waits to restart, else the last state. */
    private static Optional<ContainerStateTerminated> lastRun(ContainerStatus status) {
        if (status.getState() != null && status.getState().getTerminated() != null) {
            return Optional.of(status.getState().getTerminated());
        }
        return Optional.ofNullable(status.getLastState()).map(state -> state.getTerminated());
    }

    private static boolean failedOnItsOwn(ContainerStateTerminated run) {
        return run.getExitCode() != null
                && !STOPPED_FROM_OUTSIDE.contains(run.getExitCode())
                && !KubeletOomKills.OOM_KILLED.equals(run.getReason());
    }
}
