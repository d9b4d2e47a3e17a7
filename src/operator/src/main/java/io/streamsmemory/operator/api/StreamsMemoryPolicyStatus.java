package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** What the operator decided and saw, for kubectl get/describe. */
public class StreamsMemoryPolicyStatus {
    @JsonPropertyDescription("The metadata.generation this status describes.")
    private Long observedGeneration;

    @JsonPropertyDescription(
            "Ready, InvalidSpec, Degraded, Warning, MemoryPressure, TopologyMismatch and TopologyLearned conditions.")
    private List<Condition> conditions;

    @JsonPropertyDescription(
            "JVM heap of one pod (of the first workload, or of one pod running every task when no workload names the policy).")
    private String heap;

    @JsonPropertyDescription("RocksDB share of one pod: shared block cache plus native overhead.")
    private String rocksDb;

    @JsonPropertyDescription("statestore.cache.max.bytes of one pod.")
    private String recordCache;

    @JsonPropertyDescription("The topology facts of the first workload's split, each with its source (declared, "
            + "observed, default); every workload's are in its row's facts.")
    private String topology;

    @JsonPropertyDescription("Workloads that name this policy, listed in workloads or not.")
    private Integer workloadCount;

    @JsonPropertyDescription("One entry per workload that names this policy, at most "
            + "streamsmemory.status.max-workload-rows (100 by default) of them: failed first, then those with "
            + "warnings, drift, a pending restart, memory pressure or a topology mismatch, then the others, each "
            + "group by kind and name.")
    private List<WorkloadAllocationStatus> workloads;

    @JsonPropertyDescription("Workloads that name this policy and have no entry in workloads (the status stays "
            + "small); each one's allocation is in its ConfigMap <workload>-<kind>-streams-memory and its Events.")
    private Integer workloadRowsOmitted;

    @JsonPropertyDescription(
            "Drift: pods of this policy's workloads running without the agent or with older JVM flags (sum of every workload's podsNotInjected and podsOutdated, listed or not).")
    private Integer driftedPods;

    @JsonPropertyDescription(
            "The highest peak memory ratio (observed peak / pod memory) of the policy's workloads, listed or not.")
    private String peakMemoryRatio;

    public String getTopology() {
        return topology;
    }

    public void setTopology(String topology) {
        this.topology = topology;
    }

    public String getPeakMemoryRatio() {
        return peakMemoryRatio;
    }

    public void setPeakMemoryRatio(String peakMemoryRatio) {
        this.peakMemoryRatio = peakMemoryRatio;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }

    public String getHeap() {
        return heap;
    }

    public void setHeap(String heap) {
        this.heap = heap;
    }

    public String getRocksDb() {
        return rocksDb;
    }

    public void setRocksDb(String rocksDb) {
        this.rocksDb = rocksDb;
    }

    public String getRecordCache() {
        return recordCache;
    }

    public void setRecordCache(String recordCache) {
        this.recordCache = recordCache;
    }

    public Integer getWorkloadCount() {
        return workloadCount;
    }

    public void setWorkloadCount(Integer workloadCount) {
        this.workloadCount = workloadCount;
    }

    public List<WorkloadAllocationStatus> getWorkloads() {
        return workloads;
    }

    public void setWorkloads(List<WorkloadAllocationStatus> workloads) {
        this.workloads = workloads;
    }

    public Integer getWorkloadRowsOmitted() {
        return workloadRowsOmitted;
    }

    public void setWorkloadRowsOmitted(Integer workloadRowsOmitted) {
        this.workloadRowsOmitted = workloadRowsOmitted;
    }

    public Integer getDriftedPods() {
        return driftedPods;
    }

    public void setDriftedPods(Integer driftedPods) {
        this.driftedPods = driftedPods;
    }
}
