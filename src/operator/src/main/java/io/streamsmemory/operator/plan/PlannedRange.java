package io.streamsmemory.operator.plan;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.streamsmemory.engine.ReplicaRange;
import io.streamsmemory.operator.api.ScalingSpec;
import io.streamsmemory.operator.workload.Workload;
import java.util.Collection;
import java.util.Optional;

/**
 * The replica counts a workload's restart-relevant settings (JVM flags, RocksDB capacities) are planned for, so that
 * scaling inside them restarts no pod: from the HorizontalPodAutoscaler that targets the workload (KEDA's included,
 * it creates one), else the policy's {@code spec.scaling}, else from 1 to the current replicas.
 *
 * @param declared the range as its source states it
 * @param source   where it came from, for the status and Events
 * @param replicas the workload's current replicas (at least 1: a workload scaled to 0 is planned as one pod)
 */
public record PlannedRange(ReplicaRange declared, String source, int replicas) {
    static final String DEFAULT_SOURCE_PREFIX = "default: ";
    static final String DEFAULT_SOURCE = DEFAULT_SOURCE_PREFIX + "from 1 to the current replicas";

    public static PlannedRange of(
            Workload workload, ScalingSpec scaling, Collection<HorizontalPodAutoscaler> autoscalers) {
        int replicas = workload.replicas();
        Optional<HorizontalPodAutoscaler> autoscaler = autoscalers.stream()
                .filter(h -> h.getSpec() != null && targets(h, workload))
                .findFirst();
        if (autoscaler.isPresent()) {
            int min = Math.max(1, orDefault(autoscaler.get().getSpec().getMinReplicas(), 1));
            int max = Math.max(min, orDefault(autoscaler.get().getSpec().getMaxReplicas(), min));
            return new PlannedRange(
                    new ReplicaRange(min, max),
                    "HorizontalPodAutoscaler " + autoscaler.get().getMetadata().getName(),
                    replicas);
        }
        if (scaling != null && (scaling.getMinReplicas() != null || scaling.getMaxReplicas() != null)) {
            int min = orDefault(scaling.getMinReplicas(), 1);
            int max = Math.max(min, orDefault(scaling.getMaxReplicas(), replicas));
            return new PlannedRange(new ReplicaRange(min, max), "spec.scaling", replicas);
        }
        return new PlannedRange(new ReplicaRange(1, replicas), DEFAULT_SOURCE, replicas);
    }

    /** True when neither an autoscaler nor the policy gave the range. */
    boolean isDefault() {
        return source.startsWith(DEFAULT_SOURCE_PREFIX);
    }

    /** The default range, starting at {@code min} because the pod's memory cannot hold fewer replicas' tasks. */
    PlannedRange from(int min) {
        return new PlannedRange(
                new ReplicaRange(min, declared.max()),
                String.format(
                        "%sfrom %d (the fewest replicas "
                                + "whose tasks the pod's memory holds) to the current replicas",
                        DEFAULT_SOURCE_PREFIX, min),
                replicas);
    }

    /** True when the workload runs at a count its range does not include. */
    public boolean outside() {
        return !declared.contains(replicas);
    }

    /**
     * What the engine plans for: the declared range, widened to the current count when the workload runs outside it
     * (below it, the running pods may hold more tasks than their RocksDB settings were sized for: a restart is then
     * a matter of safety).
     */
    public ReplicaRange planned() {
        return new ReplicaRange(Math.min(declared.min(), replicas), Math.max(declared.max(), replicas));
    }

    /** As the status shows it: {@code 2-6}. */
    public String text() {
        return declared.min() + "-" + declared.max();
    }

    private static boolean targets(HorizontalPodAutoscaler autoscaler, Workload workload) {
        var target = autoscaler.getSpec().getScaleTargetRef();
        return target != null
                && workload.kind().equals(target.getKind())
                && workload.name().equals(target.getName())
                && (target.getApiVersion() == null || target.getApiVersion().startsWith("apps/"));
    }

    private static int orDefault(Integer value, int fallback) {
        return value == null ? fallback : value;
    }
}
