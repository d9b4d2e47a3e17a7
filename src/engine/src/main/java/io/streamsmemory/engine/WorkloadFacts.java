package io.streamsmemory.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What the engine knows about one Kafka Streams workload: the pod's memory and the topology that
 * decides how many clients, tasks and RocksDB instances one pod runs.
 *
 * <p>Exactly one of {@code partitions} (tasks of the whole application, spread over the replicas)
 * and {@code tasksPerPod} is set.
 *
 * @param memoryBytes         total memory of one pod (the container's memory limit)
 * @param streamThreads       {@code num.stream.threads} of each KafkaStreams instance of a pod
 * @param instancesPerPod     KafkaStreams instances one pod (JVM) runs, usually 1: the record cache and the client
 *                            buffers are sized per instance, so the engine divides the pod's among them
 * @param replicas            pods of the workload now
 * @param partitions          input partitions (= active tasks) of the whole application, or null
 * @param tasksPerPod         active tasks of one pod, or null
 * @param standbyReplicas     {@code num.standby.replicas}
 * @param stores              state stores per task, by kind
 * @param globalStores        stores of global tables (each one RocksDB instance per pod, plus a global consumer)
 * @param recordBytes         average in-memory size of one buffered input record
 * @param loadedClasses       classes the application loads (sizes {@code -XX:MaxMetaspaceSize}); read it from the
 *                            running application ({@code jcmd <pid> VM.metaspace}, {@code jstat -class}, or the
 *                            agent's report) rather than trusting {@link MemoryModel#DEFAULT_LOADED_CLASSES}
 * @param extraDirectMemoryBytes direct memory the application's own libraries use besides the Kafka clients (Netty,
 *                            gRPC, a web server's NIO buffers); added to {@code -XX:MaxDirectMemorySize}
 * @param transactionalStateStores whether the application sets {@code enable.transactional.statestores=true}
 *                            (KIP-892, Kafka Streams 4.4): its uncommitted writes then get a part of their own
 * @param kafkaStreamsVersion Kafka Streams version of the application, {@code major.minor}
 * @param overrides           the user's forced choices
 * @param replicaRange        the replica counts the plan must hold for (see {@link ReplicaRange}), or null to plan
 *                            for exactly {@code replicas}, as before ranges (without the margin of one pod
 *                            restarting); {@code replicas} may lie outside it (the engine plans anyway)
 * @param observedJvm         the JVM's observed peaks, to plan its caps from ({@code spec.jvm.sizing: Observed}), or
 *                            null to plan them from the model alone ({@code Declared})
 * @param observedDirectMemoryBytes the most direct memory the application's pods were seen to hold (the JDK's
 *                            "direct" buffer pool, the clients' read copies included), 0 when none reported: the
 *                            direct memory cap then holds it plus {@link MemoryModel#LEARNED_DIRECT_MARGIN_PERCENT}
 * @param uncappedJvmCaps     the caps the plan leaves unset ({@link JvmCap}): their room is planned as for any pod and
 *                            held as headroom, but no flag bounds it, because the fact the cap depends on has not been
 *                            reported yet or the JVM hit the cap; empty (the default) sets every cap
 * @param tunedSplit          the split the operator tuned from the pods' reports ({@link TunedSplit}), or null for
 *                            the model's; a fraction in {@code overrides} wins over it
 * @param inMemoryStateBytes  heap one pod's in-memory state stores and suppression buffers hold (declared, or the most
 *                            the pods were seen to hold); the heap gets a part of this size before the rest is split,
 *                            0 (the default) when the topology keeps its state in RocksDB only
 * @param applicationRecordCacheBytes the record cache each KafkaStreams instance of the application sets itself
 *                            ({@code statestore.cache.max.bytes}, 0 when it turns the cache off), declared or reported
 *                            by its pods, or null when it leaves the cache to the plan. The agent keeps an
 *                            application's smaller value (do no harm), so the plan holds heap only for that much and
 *                            gives what it would have held to RocksDB, unless the heap is fixed
 */
public record WorkloadFacts(
        long memoryBytes,
        int streamThreads,
        int instancesPerPod,
        int replicas,
        Integer partitions,
        Integer tasksPerPod,
        int standbyReplicas,
        StoreCounts stores,
        int globalStores,
        int recordBytes,
        int loadedClasses,
        long extraDirectMemoryBytes,
        boolean transactionalStateStores,
        String kafkaStreamsVersion,
        Overrides overrides,
        ReplicaRange replicaRange,
        ObservedJvm observedJvm,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) long observedDirectMemoryBytes,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Set<JvmCap> uncappedJvmCaps,
        @JsonInclude(JsonInclude.Include.NON_NULL) TunedSplit tunedSplit,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) long inMemoryStateBytes,
        @JsonInclude(JsonInclude.Include.NON_NULL) Long applicationRecordCacheBytes) {
    /** The largest overrides {@link #validate} accepts (the policy's CRD declares the same maxima). */
    public static final double MAX_ROCKSDB_FRACTION = 0.9;

    public static final double MAX_RECORD_CACHE_FRACTION = 0.5;
    public static final double MAX_HIGH_PRIORITY_POOL_RATIO = 0.5;
    public static final double MAX_WRITE_BUFFER_FRACTION = 0.6;
    /** Write buffers and the index and filter pool together leave at least a tenth of the cache to data blocks. */
    static final double MAX_CACHE_RESERVED = 0.9;

    public WorkloadFacts {
        // A document written before the field reads as null: every cap set, as then.
        uncappedJvmCaps = uncappedJvmCaps == null || uncappedJvmCaps.isEmpty()
                ? Set.of()
                : java.util.Collections.unmodifiableSet(EnumSet.copyOf(uncappedJvmCaps));
    }

    /** Whether the plan sets {@code cap}'s flag. */
    public boolean capped(JvmCap cap) {
        return !uncappedJvmCaps.contains(cap);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.memoryBytes = memoryBytes;
        builder.streamThreads = streamThreads;
        builder.instancesPerPod = instancesPerPod;
        builder.replicas = replicas;
        builder.partitions = partitions;
        builder.tasksPerPod = tasksPerPod;
        builder.standbyReplicas = standbyReplicas;
        builder.stores = stores;
        builder.globalStores = globalStores;
        builder.recordBytes = recordBytes;
        builder.loadedClasses = loadedClasses;
        builder.extraDirectMemoryBytes = extraDirectMemoryBytes;
        builder.transactionalStateStores = transactionalStateStores;
        builder.kafkaStreamsVersion = kafkaStreamsVersion;
        builder.overrides = overrides;
        builder.replicaRange = replicaRange;
        builder.observedJvm = observedJvm;
        builder.observedDirectMemoryBytes = observedDirectMemoryBytes;
        builder.uncappedJvmCaps = uncappedJvmCaps;
        builder.tunedSplit = tunedSplit;
        builder.inMemoryStateBytes = inMemoryStateBytes;
        builder.applicationRecordCacheBytes = applicationRecordCacheBytes;
        return builder;
    }

    /** Stream threads of the whole pod: {@code num.stream.threads} times the KafkaStreams instances. */
    public long streamThreadsPerPod() {
        return (long) streamThreads * instancesPerPod;
    }

    /** The replica counts the plan holds for: {@code replicaRange}, or exactly {@code replicas} when it is null. */
    public ReplicaRange plannedRange() {
        return replicaRange != null ? replicaRange : ReplicaRange.exactly(replicas);
    }

    /** Problems with the facts themselves (not with fitting them): each names the field. Empty when valid. */
    public List<String> validate() {
        List<String> problems = new ArrayList<>();
        validateTopology(problems);
        validateJvm(problems);
        validateSplit(problems);
        return problems;
    }

    /** The pod, its replicas and its topology. */
    private void validateTopology(List<String> problems) {
        if (memoryBytes <= 0) {
            problems.add("memory must be positive, got " + memoryBytes);
        }
        if (streamThreads < 1) {
            problems.add("threads must be at least 1, got " + streamThreads);
        }
        if (instancesPerPod < 1 || instancesPerPod > MemoryModel.MAX_INSTANCES_PER_POD) {
            problems.add("instancesPerPod must be between 1 and " + MemoryModel.MAX_INSTANCES_PER_POD + ", got "
                    + instancesPerPod);
        }
        if (replicas < 1) {
            problems.add("replicas must be at least 1, got " + replicas);
        }
        if (replicaRange != null && (replicaRange.min() < 1 || replicaRange.min() > replicaRange.max())) {
            problems.add("replicaRange must satisfy 1 <= min <= max, got [" + replicaRange.min() + ", "
                    + replicaRange.max() + "]");
        }
        if ((partitions == null) == (tasksPerPod == null)) {
            problems.add("set exactly one of partitions and tasksPerPod");
        }
        if (partitions != null && partitions < 1) {
            problems.add("partitions must be at least 1, got " + partitions);
        }
        if (tasksPerPod != null && tasksPerPod < 1) {
            problems.add("tasksPerPod must be at least 1, got " + tasksPerPod);
        }
        if (standbyReplicas < 0) {
            problems.add("standbyReplicas must not be negative, got " + standbyReplicas);
        }
        if (stores == null || stores.keyValue() < 0 || stores.window() < 0 || stores.session() < 0) {
            problems.add("store counts must not be negative, got " + stores);
        }
        if (globalStores < 0) {
            problems.add("globalStores must not be negative, got " + globalStores);
        }
    }

    /** The record size, the JVM's figures and the Kafka Streams version. */
    private void validateJvm(List<String> problems) {
        if (recordBytes < 1) {
            problems.add("recordBytes must be at least 1, got " + recordBytes);
        }
        if (loadedClasses < MemoryModel.MIN_LOADED_CLASSES || loadedClasses > MemoryModel.MAX_LOADED_CLASSES) {
            problems.add("loadedClasses must be between " + MemoryModel.MIN_LOADED_CLASSES + " and "
                    + MemoryModel.MAX_LOADED_CLASSES + ", got " + loadedClasses);
        }
        if (inMemoryStateBytes < 0) {
            problems.add("in-memory state must not be negative, got " + inMemoryStateBytes);
        }
        if (applicationRecordCacheBytes != null && applicationRecordCacheBytes < 0) {
            problems.add("the application's record cache must not be negative, got " + applicationRecordCacheBytes);
        }
        if (observedDirectMemoryBytes < 0) {
            problems.add("observed direct memory must not be negative, got " + observedDirectMemoryBytes);
        }
        if (extraDirectMemoryBytes < 0) {
            problems.add("extraDirectMemory must not be negative, got " + extraDirectMemoryBytes);
        }
        KafkaStreamsVersion version = KafkaStreamsVersion.parse(kafkaStreamsVersion);
        if (version == null) {
            problems.add("kafkaStreamsVersion must look like 4.4 or 3.9.1, got " + kafkaStreamsVersion);
        } else if (transactionalStateStores && !version.hasTransactionalStateStores()) {
            problems.add(
                    "transactionalStateStores needs Kafka Streams 4.4 or later (KIP-892), got " + kafkaStreamsVersion);
        }
        if (observedJvm != null && observedJvm.problem() != null) {
            problems.add(observedJvm.problem());
        }
    }

    /** The overrides' and the tuner's split of the memory. */
    private void validateSplit(List<String> problems) {
        Overrides o = overrides == null ? Overrides.NONE : overrides;
        if (o.heapBytes() != null && o.heapBytes() <= 0) {
            problems.add("heap override must be positive, got " + o.heapBytes());
        }
        checkFraction(problems, "rocksDbFraction", o.rocksDbFraction(), 0.0, MAX_ROCKSDB_FRACTION);
        checkFraction(problems, "recordCacheFraction", o.recordCacheFraction(), 0.0, MAX_RECORD_CACHE_FRACTION);
        checkFraction(problems, "highPriorityPoolRatio", o.highPriorityPoolRatio(), 0.0, MAX_HIGH_PRIORITY_POOL_RATIO);
        checkFraction(problems, "writeBufferFraction", o.writeBufferFraction(), 0.0, MAX_WRITE_BUFFER_FRACTION);
        TunedSplit t = tunedSplit;
        if (t != null) {
            checkFraction(problems, "tuned rocksDbFraction", t.rocksDbFraction(), 0.0, MAX_ROCKSDB_FRACTION);
            checkFraction(
                    problems, "tuned recordCacheFraction", t.recordCacheFraction(), 0.0, MAX_RECORD_CACHE_FRACTION);
            checkFraction(
                    problems, "tuned writeBufferFraction", t.writeBufferFraction(), 0.0, MAX_WRITE_BUFFER_FRACTION);
        }
        double reserved = TunedSplit.pick(
                        o.writeBufferFraction(),
                        t == null ? null : t.writeBufferFraction(),
                        1.0 / MemoryModel.WRITE_BUFFER_DIVISOR)
                + (o.highPriorityPoolRatio() != null
                        ? o.highPriorityPoolRatio()
                        : MemoryModel.HIGH_PRIORITY_POOL_RATIO);
        if (reserved > MAX_CACHE_RESERVED) {
            problems.add(String.format(
                    "writeBufferFraction and highPriorityPoolRatio together must leave data blocks at least %.0f%% of "
                            + "the block cache, got %.2f",
                    (1 - MAX_CACHE_RESERVED) * 100, reserved));
        }
    }

    private static void checkFraction(List<String> problems, String name, Double value, double min, double max) {
        if (value != null && (value.isNaN() || value < min || value > max)) {
            problems.add(name + " must be between " + min + " and " + max + ", got " + value);
        }
    }

    /** Fills defaults so callers only state what they know. */
    public static final class Builder {
        private long memoryBytes;
        private int streamThreads = 1;
        private int instancesPerPod = 1;
        private int replicas = 1;
        private Integer partitions;
        private Integer tasksPerPod;
        private int standbyReplicas;
        private StoreCounts stores = StoreCounts.NONE;
        private int globalStores;
        private int recordBytes = (int) MemoryModel.DEFAULT_RECORD_BYTES;
        private int loadedClasses = MemoryModel.DEFAULT_LOADED_CLASSES;
        private long extraDirectMemoryBytes;
        private boolean transactionalStateStores;
        private String kafkaStreamsVersion = KafkaStreamsVersion.DEFAULT;
        private Overrides overrides = Overrides.NONE;
        private ReplicaRange replicaRange;
        private ObservedJvm observedJvm;
        private long observedDirectMemoryBytes;
        private Set<JvmCap> uncappedJvmCaps = Set.of();
        private TunedSplit tunedSplit;
        private long inMemoryStateBytes;
        private Long applicationRecordCacheBytes;

        public Builder memoryBytes(long value) {
            memoryBytes = value;
            return this;
        }

        public Builder streamThreads(int value) {
            streamThreads = value;
            return this;
        }

        public Builder instancesPerPod(int value) {
            instancesPerPod = value;
            return this;
        }

        public Builder replicas(int value) {
            replicas = value;
            return this;
        }

        /** Sets the application's input partitions and clears tasksPerPod. */
        public Builder partitions(Integer value) {
            partitions = value;
            if (value != null) {
                tasksPerPod = null;
            }
            return this;
        }

        /** Sets tasks per pod and clears partitions. */
        public Builder tasksPerPod(Integer value) {
            tasksPerPod = value;
            if (value != null) {
                partitions = null;
            }
            return this;
        }

        public Builder standbyReplicas(int value) {
            standbyReplicas = value;
            return this;
        }

        public Builder stores(StoreCounts value) {
            stores = value;
            return this;
        }

        public Builder globalStores(int value) {
            globalStores = value;
            return this;
        }

        public Builder recordBytes(int value) {
            recordBytes = value;
            return this;
        }

        public Builder loadedClasses(int value) {
            loadedClasses = value;
            return this;
        }

        public Builder extraDirectMemoryBytes(long value) {
            extraDirectMemoryBytes = value;
            return this;
        }

        public Builder transactionalStateStores(boolean value) {
            transactionalStateStores = value;
            return this;
        }

        public Builder kafkaStreamsVersion(String value) {
            kafkaStreamsVersion = value;
            return this;
        }

        public Builder overrides(Overrides value) {
            overrides = value == null ? Overrides.NONE : value;
            return this;
        }

        /** The replica counts the plan must hold for; null (the default) means exactly {@code replicas}. */
        public Builder replicaRange(ReplicaRange value) {
            replicaRange = value;
            return this;
        }

        /** The JVM's observed peaks to size its caps from; null (the default) sizes them from the model alone. */
        public Builder observedJvm(ObservedJvm value) {
            observedJvm = value;
            return this;
        }

        /** The most direct memory the pods were seen to hold; 0 (the default) when none reported. */
        public Builder observedDirectMemoryBytes(long value) {
            observedDirectMemoryBytes = value;
            return this;
        }

        /** The caps the plan leaves unset (their room held as headroom); empty (the default) sets every cap. */
        public Builder uncappedJvmCaps(Set<JvmCap> value) {
            uncappedJvmCaps = value == null ? Set.of() : value;
            return this;
        }

        /** The split tuned from the pods' reports; null (the default) keeps the model's. */
        public Builder tunedSplit(TunedSplit value) {
            tunedSplit = value;
            return this;
        }

        /** Heap held by in-memory stores and suppression buffers of one pod; 0 (the default) when none. */
        public Builder inMemoryStateBytes(long value) {
            inMemoryStateBytes = value;
            return this;
        }

        /** The record cache each instance of the application sets itself; null (the default) when it leaves it. */
        public Builder applicationRecordCacheBytes(Long value) {
            applicationRecordCacheBytes = value;
            return this;
        }

        public WorkloadFacts build() {
            return new WorkloadFacts(
                    memoryBytes,
                    streamThreads,
                    instancesPerPod,
                    replicas,
                    partitions,
                    tasksPerPod,
                    standbyReplicas,
                    stores,
                    globalStores,
                    recordBytes,
                    loadedClasses,
                    extraDirectMemoryBytes,
                    transactionalStateStores,
                    kafkaStreamsVersion,
                    overrides,
                    replicaRange,
                    observedJvm,
                    observedDirectMemoryBytes,
                    uncappedJvmCaps,
                    tunedSplit,
                    inMemoryStateBytes,
                    applicationRecordCacheBytes);
        }
    }
}
