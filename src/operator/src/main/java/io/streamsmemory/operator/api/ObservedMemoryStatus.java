package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What a workload's pods really use, from their agents' reports: the busiest pod's figures. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ObservedMemoryStatus {
    @JsonPropertyDescription("Pods whose memory report was read in the last round.")
    private Integer podsReporting;

    @JsonPropertyDescription("Injected, running pods whose report could not be read in the last round.")
    private Integer podsNotAnswering;

    @JsonPropertyDescription("The highest memory use of any pod over the observation window (the cgroup's, else RSS).")
    private String peakMemory;

    @JsonPropertyDescription("peakMemory divided by the pod's memory, e.g. 0.54.")
    private String peakMemoryRatio;

    @JsonPropertyDescription("Memory in use now by the busiest pod.")
    private String memoryNow;

    @JsonPropertyDescription("Heap in use by the busiest pod.")
    private String heapUsed;

    @JsonPropertyDescription("Bytes in the shared RocksDB block cache (write buffers charged to it included).")
    private String blockCacheUsage;

    @JsonPropertyDescription("Resident memory none of the JVM's pools, the block cache or the memtables explain.")
    private String unexplained;

    @JsonPropertyDescription("The record cache in force in the busiest pod (Kafka Streams' total cache size), to "
            + "read next to the planned recordCache of the row.")
    private String recordCache;

    @JsonPropertyDescription("Why that record cache applies, as the agent says: plan (the plan's), application (the "
            + "application's own smaller value), kafka-default (Kafka's default kept: the heap in force is smaller "
            + "than planned), none (nothing merged yet).")
    private String recordCacheSource;

    @JsonPropertyDescription("A cap a pod's JVM hit (metaspace or code cache used at 98% of the cap in force): the "
            + "JVM fails with OutOfMemoryError: Metaspace, or runs with its JIT disabled. Raise spec.jvm.loadedClasses "
            + "or set spec.jvm.sizing: Declared.")
    private String capHit;

    @JsonPropertyDescription("Set when a pod's heap is not the plan's: the application's own flag that won over it "
            + "(-Xmx, -XX:MaxRAMPercentage, ...), the heap in force and the heap planned. The Warning condition says "
            + "what it does to the bound.")
    private String heapFlag;

    @JsonPropertyDescription("RocksDB instances open in the busiest pod.")
    private Long rocksDbInstances;

    @JsonPropertyDescription("Active tasks of the busiest pod.")
    private Long activeTasks;

    @JsonPropertyDescription("Standby tasks of the busiest pod.")
    private Long standbyTasks;

    @JsonPropertyDescription("Stream threads running in the busiest pod.")
    private Long streamThreads;

    @JsonPropertyDescription("OOM kills of the workload's pods over the observation window: kubelet's container"
            + " statuses (each killed container once) and the running pods' cgroups.")
    private Long oomKills;

    public Integer getPodsReporting() {
        return podsReporting;
    }

    public void setPodsReporting(Integer value) {
        podsReporting = value;
    }

    public Integer getPodsNotAnswering() {
        return podsNotAnswering;
    }

    public void setPodsNotAnswering(Integer value) {
        podsNotAnswering = value;
    }

    public String getPeakMemory() {
        return peakMemory;
    }

    public void setPeakMemory(String value) {
        peakMemory = value;
    }

    public String getPeakMemoryRatio() {
        return peakMemoryRatio;
    }

    public void setPeakMemoryRatio(String value) {
        peakMemoryRatio = value;
    }

    public String getMemoryNow() {
        return memoryNow;
    }

    public void setMemoryNow(String value) {
        memoryNow = value;
    }

    public String getHeapUsed() {
        return heapUsed;
    }

    public void setHeapUsed(String value) {
        heapUsed = value;
    }

    public String getBlockCacheUsage() {
        return blockCacheUsage;
    }

    public void setBlockCacheUsage(String value) {
        blockCacheUsage = value;
    }

    public String getUnexplained() {
        return unexplained;
    }

    public void setUnexplained(String value) {
        unexplained = value;
    }

    public Long getRocksDbInstances() {
        return rocksDbInstances;
    }

    public void setRocksDbInstances(Long value) {
        rocksDbInstances = value;
    }

    public Long getActiveTasks() {
        return activeTasks;
    }

    public void setActiveTasks(Long value) {
        activeTasks = value;
    }

    public Long getStandbyTasks() {
        return standbyTasks;
    }

    public void setStandbyTasks(Long value) {
        standbyTasks = value;
    }

    public Long getStreamThreads() {
        return streamThreads;
    }

    public void setStreamThreads(Long value) {
        streamThreads = value;
    }

    public Long getOomKills() {
        return oomKills;
    }

    public void setOomKills(Long value) {
        oomKills = value;
    }

    public String getRecordCache() {
        return recordCache;
    }

    public void setRecordCache(String recordCache) {
        this.recordCache = recordCache;
    }

    public String getRecordCacheSource() {
        return recordCacheSource;
    }

    public void setRecordCacheSource(String recordCacheSource) {
        this.recordCacheSource = recordCacheSource;
    }

    public String getCapHit() {
        return capHit;
    }

    public void setCapHit(String capHit) {
        this.capHit = capHit;
    }

    public String getHeapFlag() {
        return heapFlag;
    }

    public void setHeapFlag(String heapFlag) {
        this.heapFlag = heapFlag;
    }
}
