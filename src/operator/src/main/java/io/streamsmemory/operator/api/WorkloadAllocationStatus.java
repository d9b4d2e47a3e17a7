package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** The allocation of one workload that names the policy. */
public class WorkloadAllocationStatus {
    @JsonPropertyDescription("Deployment or StatefulSet.")
    private String kind;

    @JsonPropertyDescription("Name of the workload.")
    private String name;

    @JsonPropertyDescription("Replicas the split was computed for.")
    private Integer replicas;

    @JsonPropertyDescription("Stream threads per pod.")
    private Integer threads;

    @JsonPropertyDescription("Active tasks per pod.")
    private Long tasksPerPod;

    @JsonPropertyDescription("RocksDB instances per pod.")
    private Long rocksDbInstances;

    @JsonPropertyDescription("Memory the split divides: the policy's, or the container limit when lower.")
    private String memory;

    @JsonPropertyDescription("-Xmx of the pods.")
    private String heap;

    @JsonPropertyDescription("RocksDB share (shared cache plus native overhead).")
    private String rocksDb;

    @JsonPropertyDescription("statestore.cache.max.bytes.")
    private String recordCache;

    @JsonPropertyDescription("The ConfigMap holding the allocation document the agent reads.")
    private String configMap;

    @JsonPropertyDescription("Digest of every applied setting.")
    private String allocationHash;

    @JsonPropertyDescription("Digest of the settings that need a restart (JVM flags, RocksDB capacities).")
    private String restartHash;

    @JsonPropertyDescription("The running pods use older JVM or RocksDB settings than the published ones.")
    private Boolean restartPending;

    @JsonPropertyDescription("A newer plan that differs from the applied one only by the operator's model (an "
            + "upgrade) waits while the applied plan still fits the pod: why, and when its turn comes (the operator "
            + "rolls such workloads one at a time, streamsmemory.rollout.model-upgrade-interval).")
    private String newerPlanPending;

    @JsonPropertyDescription("The replica counts the JVM flags and RocksDB settings hold for, e.g. 2-6: scaling "
            + "inside it restarts no pod.")
    private String replicaRange;

    @JsonPropertyDescription("Where replicaRange came from: a HorizontalPodAutoscaler, spec.scaling, or the default.")
    private String replicaRangeSource;

    @JsonPropertyDescription("RocksDB instances of the busiest pod the range allows (the RocksDB settings are sized "
            + "for it); rocksDbInstances is the count at the current replicas.")
    private Long plannedRocksDbInstances;

    @JsonPropertyDescription("Why the allocation could not be updated, when it could not.")
    private String message;

    @JsonPropertyDescription("The topology facts the split used, each with its source: Declared, Observed from the "
            + "pods' reports, or a provisional Default until they report.")
    private List<FactStatus> facts;

    @JsonPropertyDescription("The facts still on a provisional default: the plan is provisional while this is set.")
    private List<String> provisionalFacts;

    @JsonPropertyDescription("JVM caps the plan leaves unset until a pod reports the fact each depends on "
            + "(-XX:MaxMetaspaceSize: the classes loaded; -XX:MaxDirectMemorySize: the direct memory held); their room "
            + "is held as headroom meanwhile.")
    private List<String> jvmCapsAwaitingReport;

    @JsonPropertyDescription(
            "JVM caps lifted because a JVM of the workload hit them (a restart loop, OutOfMemoryError: "
                    + "Metaspace or Direct buffer memory) or used 90% of one learned from the reports: unset until the policy "
                    + "changes; the JvmCapLifted Event says why.")
    private List<String> jvmCapsLifted;

    @JsonPropertyDescription("The split tuned from the pods' reports (spec.tuning): each share the tuner moved from "
            + "the model's, absent while the split is the model's.")
    private String tunedSplit;

    @JsonPropertyDescription("The tuner's last step or judgement: the signal, its figure, the share moved and when.")
    private String splitTuning;

    @JsonPropertyDescription("What the pods really use, from their agents' memory reports (absent until one reports).")
    private ObservedMemoryStatus observed;

    @JsonPropertyDescription("What to change, in the policy's own terms, from the observed figures against the plan.")
    private String recommendation;

    @JsonPropertyDescription("Pods of the workload seen at the last reconcile (running or pending, not terminating).")
    private Integer pods;

    @JsonPropertyDescription("Pods injected with the current JVM flags (restart hash).")
    private Integer podsInjected;

    @JsonPropertyDescription(
            "Drift: pods running without the agent (created while the webhook was unreachable, or before the allocation was published).")
    private Integer podsNotInjected;

    @JsonPropertyDescription("Drift: pods injected with the JVM flags of an older allocation.")
    private Integer podsOutdated;

    @JsonPropertyDescription(
            "Pods the webhook saw and left as they were, with the reason in an InjectionSkipped event (JAVA_TOOL_OPTIONS from valueFrom, a memory limit below the allocation).")
    private Integer podsSkipped;

    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public Integer getReplicas() {
        return replicas;
    }

    public void setReplicas(Integer replicas) {
        this.replicas = replicas;
    }

    public Integer getThreads() {
        return threads;
    }

    public void setThreads(Integer threads) {
        this.threads = threads;
    }

    public Long getTasksPerPod() {
        return tasksPerPod;
    }

    public void setTasksPerPod(Long tasksPerPod) {
        this.tasksPerPod = tasksPerPod;
    }

    public Long getRocksDbInstances() {
        return rocksDbInstances;
    }

    public void setRocksDbInstances(Long rocksDbInstances) {
        this.rocksDbInstances = rocksDbInstances;
    }

    public String getMemory() {
        return memory;
    }

    public void setMemory(String memory) {
        this.memory = memory;
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

    public String getConfigMap() {
        return configMap;
    }

    public void setConfigMap(String configMap) {
        this.configMap = configMap;
    }

    public String getAllocationHash() {
        return allocationHash;
    }

    public void setAllocationHash(String allocationHash) {
        this.allocationHash = allocationHash;
    }

    public String getRestartHash() {
        return restartHash;
    }

    public void setRestartHash(String restartHash) {
        this.restartHash = restartHash;
    }

    public Boolean getRestartPending() {
        return restartPending;
    }

    public void setRestartPending(Boolean restartPending) {
        this.restartPending = restartPending;
    }

    public String getNewerPlanPending() {
        return newerPlanPending;
    }

    public void setNewerPlanPending(String newerPlanPending) {
        this.newerPlanPending = newerPlanPending;
    }

    public String getReplicaRange() {
        return replicaRange;
    }

    public void setReplicaRange(String replicaRange) {
        this.replicaRange = replicaRange;
    }

    public String getReplicaRangeSource() {
        return replicaRangeSource;
    }

    public void setReplicaRangeSource(String replicaRangeSource) {
        this.replicaRangeSource = replicaRangeSource;
    }

    public Long getPlannedRocksDbInstances() {
        return plannedRocksDbInstances;
    }

    public void setPlannedRocksDbInstances(Long plannedRocksDbInstances) {
        this.plannedRocksDbInstances = plannedRocksDbInstances;
    }

    public List<FactStatus> getFacts() {
        return facts;
    }

    public void setFacts(List<FactStatus> facts) {
        this.facts = facts;
    }

    public List<String> getJvmCapsAwaitingReport() {
        return jvmCapsAwaitingReport;
    }

    public void setJvmCapsAwaitingReport(List<String> jvmCapsAwaitingReport) {
        this.jvmCapsAwaitingReport = jvmCapsAwaitingReport;
    }

    public String getTunedSplit() {
        return tunedSplit;
    }

    public void setTunedSplit(String tunedSplit) {
        this.tunedSplit = tunedSplit;
    }

    public String getSplitTuning() {
        return splitTuning;
    }

    public void setSplitTuning(String splitTuning) {
        this.splitTuning = splitTuning;
    }

    public List<String> getJvmCapsLifted() {
        return jvmCapsLifted;
    }

    public void setJvmCapsLifted(List<String> jvmCapsLifted) {
        this.jvmCapsLifted = jvmCapsLifted;
    }

    public List<String> getProvisionalFacts() {
        return provisionalFacts;
    }

    public void setProvisionalFacts(List<String> provisionalFacts) {
        this.provisionalFacts = provisionalFacts;
    }

    public ObservedMemoryStatus getObserved() {
        return observed;
    }

    public void setObserved(ObservedMemoryStatus observed) {
        this.observed = observed;
    }

    public String getRecommendation() {
        return recommendation;
    }

    public void setRecommendation(String recommendation) {
        this.recommendation = recommendation;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    public Integer getPods() {
        return pods;
    }

    public void setPods(Integer pods) {
        this.pods = pods;
    }

    public Integer getPodsInjected() {
        return podsInjected;
    }

    public void setPodsInjected(Integer podsInjected) {
        this.podsInjected = podsInjected;
    }

    public Integer getPodsNotInjected() {
        return podsNotInjected;
    }

    public void setPodsNotInjected(Integer podsNotInjected) {
        this.podsNotInjected = podsNotInjected;
    }

    public Integer getPodsOutdated() {
        return podsOutdated;
    }

    public void setPodsOutdated(Integer podsOutdated) {
        this.podsOutdated = podsOutdated;
    }

    public Integer getPodsSkipped() {
        return podsSkipped;
    }

    public void setPodsSkipped(Integer podsSkipped) {
        this.podsSkipped = podsSkipped;
    }
}
