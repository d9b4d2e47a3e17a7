package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/**
 * The replica counts the workloads may run at, for workloads that no HorizontalPodAutoscaler targets (an HPA's own
 * minReplicas and maxReplicas win). The JVM flags and RocksDB settings are planned for the busiest pod anywhere in
 * this range, so scaling inside it never restarts a pod.
 */
public class ScalingSpec {
    @Min(1)
    @JsonPropertyDescription("The fewest replicas the workloads run at (default 1). The RocksDB settings hold for "
            + "one pod fewer than this, since while a pod restarts the others hold its tasks.")
    private Integer minReplicas;

    @Min(1)
    @JsonPropertyDescription(
            "The most replicas the workloads run at (default: the current replicas, and at least " + "minReplicas).")
    private Integer maxReplicas;

    public Integer getMinReplicas() {
        return minReplicas;
    }

    public void setMinReplicas(Integer minReplicas) {
        this.minReplicas = minReplicas;
    }

    public Integer getMaxReplicas() {
        return maxReplicas;
    }

    public void setMaxReplicas(Integer maxReplicas) {
        this.maxReplicas = maxReplicas;
    }
}
