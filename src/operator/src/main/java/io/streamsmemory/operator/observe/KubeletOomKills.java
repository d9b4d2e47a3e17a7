package io.streamsmemory.operator.observe;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The OOM kills kubelet reported for a workload's containers over the observation window, each counted once.
 *
 * <p>Why kubelet and not only the agent: when the kernel kills the JVM, the container dies with it, and the agent's
 * cgroup counter dies with the container (the restarted container gets a new cgroup that starts at 0). kubelet keeps
 * the killed container's end in the pod's status ({@code lastState.terminated.reason: OOMKilled}, with its container
 * ID and time) until the next restart replaces it. Reading it every round and keeping each container ID once counts
 * every kill that outlives one round, including those of a pod that crash-loops and never answers its report.
 */
final class KubeletOomKills {
    static final String OOM_KILLED = "OOMKilled";

    private final Duration window;
    /** workload key to the killed containers' IDs and when each was killed. */
    private final Map<String, Map<String, Instant>> kills = new ConcurrentHashMap<>();

    KubeletOomKills(Duration window) {
        this.window = window;
    }

    /** Records the OOM kills the pod's container statuses show (current and last state of every container). */
    void record(String workload, Pod pod, Instant now) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return;
        }
        pod.getStatus().getContainerStatuses().stream()
                .flatMap((ContainerStatus s) -> Stream.of(s.getState(), s.getLastState()))
                .map((ContainerState state) -> state == null ? null : state.getTerminated())
                .filter(t -> t != null && OOM_KILLED.equals(t.getReason()))
                .forEach(t -> kills.computeIfAbsent(workload, k -> new ConcurrentHashMap<>())
                        .putIfAbsent(id(pod, t), finishedAt(t, now)));
    }

    /** The workload's kills within the window ending {@code now}; forgets older ones. */
    long count(String workload, Instant now) {
        Map<String, Instant> seen = kills.get(workload);
        if (seen == null) {
            return 0;
        }
        seen.values().removeIf(at -> at.isBefore(now.minus(window)));
        return seen.size();
    }

    /** Workloads with a kill in the window ending {@code now}. */
    Stream<String> workloads(Instant now) {
        kills.entrySet().removeIf(e -> count(e.getKey(), now) == 0);
        return kills.keySet().stream();
    }

    /** The killed container's ID; without one (a runtime that reports none), the pod, container start and exit. */
    private static String id(Pod pod, ContainerStateTerminated t) {
        return t.getContainerID() != null
                ? t.getContainerID()
                : pod.getMetadata().getUid() + "/" + t.getStartedAt() + "/" + t.getFinishedAt();
    }

    private static Instant finishedAt(ContainerStateTerminated t, Instant now) {
        try {
            return t.getFinishedAt() == null ? now : Instant.parse(t.getFinishedAt());
        } catch (DateTimeParseException e) {
            return now;
        }
    }
}
