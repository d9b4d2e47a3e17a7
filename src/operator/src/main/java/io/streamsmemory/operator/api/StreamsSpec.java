package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;
import io.streamsmemory.engine.MemoryModel;

/**
 * The Kafka Streams topology the split depends on. Every fact is optional: what the policy leaves out the operator
 * takes from what the workload's pods report (the most over the observation window), and until they report, from a
 * provisional default; a declared fact always wins.
 */
@ValidationRule(
        value = "!(has(self.partitions) && has(self.tasksPerPod))",
        message = "set at most one of partitions and tasksPerPod")
public class StreamsSpec {
    /** The most stream threads a policy, or a workload's stream-threads annotation, may ask for. */
    public static final int MAX_THREADS = 1024;

    @Min(1)
    @Max(MAX_THREADS)
    @JsonPropertyDescription("num.stream.threads of one pod. The workload annotation streamsmemory.io/stream-threads "
            + "overrides it. Unset: the stream threads the pods report (1 until they do).")
    private Integer threads;

    @Min(1)
    @Max(MemoryModel.MAX_INSTANCES_PER_POD)
    @JsonPropertyDescription("KafkaStreams instances one pod's JVM runs (usually 1). Kafka Streams sizes the record "
            + "cache and the clients per instance, so the record cache is divided among them and each brings its own "
            + "clients; threads is then num.stream.threads of each instance. Unset: what the pods report (1 until "
            + "they do).")
    private Integer instancesPerPod;

    @Min(1)
    @JsonPropertyDescription("Input partitions (= active tasks) of the whole application, spread over the "
            + "workload's replicas. Set this or tasksPerPod, or neither: then the active tasks of all the workload's "
            + "pods together (8 tasks per pod until they report).")
    private Integer partitions;

    @Min(1)
    @JsonPropertyDescription("Active tasks of one pod, when it does not depend on replicas. Set this or partitions.")
    private Integer tasksPerPod;

    @JsonPropertyDescription("State stores per task, by kind. Unset: the RocksDB instances per task the pods report "
            + "(2 until they do).")
    private StoresSpec stores;

    @Min(0)
    @JsonPropertyDescription("num.standby.replicas: each standby task opens the same RocksDB stores. Unset: standby "
            + "tasks per active task the pods report (0 until they do).")
    private Integer standbyReplicas;

    @Min(0)
    @Default("0")
    @JsonPropertyDescription("Stores of global tables: one RocksDB instance each per pod, plus a global consumer.")
    private Integer globalStores = 0;

    @Pattern(StreamsMemoryPolicySpec.QUANTITY)
    @JsonPropertyDescription("Average in-memory size of one buffered input record (default 1Ki); sizes "
            + "buffered.records.per.partition.")
    private String recordSize;

    @Default("false")
    @JsonPropertyDescription("Whether the application sets enable.transactional.statestores=true (KIP-892, Kafka "
            + "Streams 4.4 and later). Its uncommitted writes are then kept on the heap and in RocksDB WriteBatches "
            + "until each commit: the engine gives them a part and bounds statestore.uncommitted.max.bytes to it.")
    private Boolean transactionalStateStores = false;

    @Pattern("^[0-9]+\\.[0-9]+(\\.[0-9]+)?$")
    @JsonPropertyDescription("Kafka Streams version of the application; unset, it is learned from what the pods "
            + "report (the oldest any pod runs over the observation window), 4.4 until they report. Before 3.4 the "
            + "record cache key is cache.max.bytes.buffering.")
    private String kafkaStreamsVersion;

    @Pattern(StreamsMemoryPolicySpec.QUANTITY)
    @JsonPropertyDescription("Heap one pod's in-memory state stores and suppress() buffers hold at most (e.g. 200Mi). "
            + "The heap gets a part of this size before RocksDB and the rest of the heap share the pod's memory. "
            + "Unset: the most the pods report holding over the observation window, with a 25% margin, never "
            + "less than the published plan learned; none until they report.")
    private String inMemoryState;

    @Pattern(StreamsMemoryPolicySpec.QUANTITY)
    @JsonPropertyDescription("The record cache each KafkaStreams instance runs with (statestore.cache.max.bytes; 0 "
            + "turns it off), when the application sets one itself or should run with less than the plan's. The heap "
            + "holds only that much of the cache and RocksDB gets the rest; the agent keeps an application's smaller "
            + "value and applies this one where the application sets none. 0 runs faster where keys are rarely "
            + "updated twice within a commit interval, but then every update of a table goes downstream and to its "
            + "changelog. Unset: the largest the pods' agents report the application setting, none once a pod's "
            + "application sets none.")
    private String recordCache;

    public Integer getThreads() {
        return threads;
    }

    public void setThreads(Integer threads) {
        this.threads = threads;
    }

    public Integer getInstancesPerPod() {
        return instancesPerPod;
    }

    public void setInstancesPerPod(Integer instancesPerPod) {
        this.instancesPerPod = instancesPerPod;
    }

    public Integer getPartitions() {
        return partitions;
    }

    public void setPartitions(Integer partitions) {
        this.partitions = partitions;
    }

    public Integer getTasksPerPod() {
        return tasksPerPod;
    }

    public void setTasksPerPod(Integer tasksPerPod) {
        this.tasksPerPod = tasksPerPod;
    }

    public StoresSpec getStores() {
        return stores;
    }

    public void setStores(StoresSpec stores) {
        this.stores = stores;
    }

    public Integer getStandbyReplicas() {
        return standbyReplicas;
    }

    public void setStandbyReplicas(Integer standbyReplicas) {
        this.standbyReplicas = standbyReplicas;
    }

    public Integer getGlobalStores() {
        return globalStores;
    }

    public void setGlobalStores(Integer globalStores) {
        this.globalStores = globalStores;
    }

    public String getRecordSize() {
        return recordSize;
    }

    public void setRecordSize(String recordSize) {
        this.recordSize = recordSize;
    }

    public Boolean getTransactionalStateStores() {
        return transactionalStateStores;
    }

    public void setTransactionalStateStores(Boolean transactionalStateStores) {
        this.transactionalStateStores = transactionalStateStores;
    }

    public String getKafkaStreamsVersion() {
        return kafkaStreamsVersion;
    }

    public void setKafkaStreamsVersion(String kafkaStreamsVersion) {
        this.kafkaStreamsVersion = kafkaStreamsVersion;
    }

    public String getInMemoryState() {
        return inMemoryState;
    }

    public void setInMemoryState(String inMemoryState) {
        this.inMemoryState = inMemoryState;
    }

    public String getRecordCache() {
        return recordCache;
    }

    public void setRecordCache(String recordCache) {
        this.recordCache = recordCache;
    }
}
