package io.streamsmemory.operator.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.engine.ObservedJvm;
import java.io.IOException;

/**
 * The figures the operator uses from one pod's agent report ({@code GET /report}, see src/agent/README.md); a
 * figure the agent could not read is null, never 0. An agent older than a figure leaves it out: null too.
 *
 * @param applicationRecordCacheBytes the record cache the application sets itself, {@link #RECORD_CACHE_LEFT_TO_PLAN}
 *                 when it sets none, null from an agent older than the figure
 * @param progress the pod's counters of work done, for its CPU per record over a window ({@link CpuPerRecordWindow});
 *                 null unless Kafka Streams runs and the agent reports its uptime, CPU time and records processed
 */
public record AgentReport(
        String allocationHash,
        Long rssBytes,
        Long rssPeakBytes,
        Long cgroupCurrentBytes,
        Long cgroupPeakBytes,
        Long oomKills,
        Long heapUsedBytes,
        Long blockCacheUsageBytes,
        Long rocksDbInstances,
        Long activeTasks,
        Long standbyTasks,
        Long streamThreads,
        Long instances,
        Long unexplainedBytes,
        Long loadedClasses,
        Long metaspaceUsedBytes,
        Long recordCacheBytes,
        String recordCacheSource,
        Long applicationRecordCacheBytes,
        JvmCapsUse jvmCaps,
        String capHit,
        TuningSignals tuning,
        String kafkaStreamsVersion,
        HeapOverride heapOverride,
        HeapState heapState,
        Progress progress) {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int FORMAT_VERSION = 1;
    /**
     * {@link #applicationRecordCacheBytes} of an application that leaves the record cache to the plan (the agent
     * writes -1): as large as any, so the most a workload's pods set is the plan's whenever one sets none.
     */
    public static final long RECORD_CACHE_LEFT_TO_PLAN = Long.MAX_VALUE;

    /** Reads a report; anything that is not one (garbage, another format version) is an IllegalArgumentException. */
    static AgentReport parse(byte[] body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject() || root.path("formatVersion").asInt(-1) != FORMAT_VERSION) {
            throw new IllegalArgumentException("not a format " + FORMAT_VERSION + " agent report");
        }
        // A JVM whose Kafka Streams has not started yet (the agent answers from its first moments) says nothing
        // about the topology: its streams figures are unknown, not 0, so no mismatch is raised at every start.
        boolean streamsRunning = root.path("streams").path("streamThreads").asLong(0) > 0;
        JsonNode streams = streamsRunning ? root.path("streams") : JSON.createObjectNode();
        return new AgentReport(
                text(root.path("allocationHash")),
                number(root, "process", "rssBytes"),
                number(root, "process", "rssPeakBytes"),
                number(root, "cgroup", "currentBytes"),
                number(root, "cgroup", "peakBytes"),
                number(root, "cgroup", "oomKills"),
                number(root, "jvm", "heapUsedBytes"),
                number(root, "rocksdb", "blockCacheUsageBytes"),
                number(streams, null, "rocksDbInstances"),
                number(streams, null, "activeTasks"),
                number(streams, null, "standbyTasks"),
                number(streams, null, "streamThreads"),
                number(streams, null, "instances"),
                signedNumber(root, "unexplainedBytes"),
                number(root, "jvm", "loadedClasses"),
                number(root, "jvm", "metaspaceUsedBytes"),
                number(streams, null, "recordCacheBytes"),
                text(root.path("recordCacheSource")),
                applicationRecordCache(streams.path("applicationRecordCacheBytes")),
                new JvmCapsUse(
                        // An agent older than the peaks reports only what is used now.
                        max(
                                number(root, "jvm", "metaspacePeakCommittedBytes"),
                                number(root, "jvm", "metaspaceUsedBytes")),
                        max(number(root, "jvm", "codeCachePeakBytes"), number(root, "jvm", "codeCacheUsedBytes")),
                        number(root, "jvm", "liveThreads"),
                        // Once Kafka Streams runs: what a JVM holds in its first moments says nothing of its need.
                        streamsRunning ? number(root, "jvm", "directUsedBytes") : null,
                        streamsRunning ? headroomUsed(root) : null),
                JvmCapsUse.capHit(
                        max(number(root, "jvm", "metaspaceCommittedBytes"), number(root, "jvm", "metaspaceUsedBytes")),
                        number(root, "jvm", "metaspaceMaxBytes"),
                        number(root, "jvm", "codeCacheUsedBytes"),
                        number(root, "jvm", "codeCacheMaxBytes")),
                streamsRunning
                        ? TuningSignals.of(
                                text(root.path("allocationHash")),
                                number(root, "jvm", "uptimeMillis"),
                                number(root, "jvm", "gcPauseMillis"),
                                number(root, "rocksdb", "writeStallMillis"),
                                number(root, "rocksdb", "flushes"),
                                number(root, "rocksdb", "flushedBytes"),
                                number(root, "process", "storageReadBytes"),
                                number(streams, null, "consumerLagRecords"),
                                number(root, "process", "processCpuNanos"),
                                number(streams, null, "processedRecords"))
                        : null,
                // The version the application's jar says, read once Kafka Streams runs (an agent older than the
                // field leaves it out: the fact stays declared or on its default).
                streamsRunning ? text(root.path("kafkaStreamsVersion")) : null,
                // Named by the agent only when the heap in force is not the plan's.
                text(root.path("heapFlag")) == null
                        ? null
                        : new HeapOverride(
                                text(root.path("heapFlag")),
                                number(root, "jvm", "heapMaxBytes"),
                                number(root, "jvm", "plannedHeapMaxBytes")),
                HeapState.parse(root),
                Progress.of(
                        number(root, "jvm", "uptimeMillis"),
                        number(root, "process", "processCpuNanos"),
                        number(streams, null, "processedRecords")));
    }

    /**
     * What a pod has done since its JVM started, as counters: its uptime, the CPU time its process used and the
     * records its stream threads processed.
     */
    record Progress(long uptimeMillis, long processCpuNanos, long processedRecords) {
        static Progress of(Long uptimeMillis, Long processCpuNanos, Long processedRecords) {
            return uptimeMillis == null || processCpuNanos == null || processedRecords == null
                    ? null
                    : new Progress(uptimeMillis, processCpuNanos, processedRecords);
        }
    }

    /** This report with its tuning signals replaced (the CPU per record over a window, say). */
    AgentReport withTuning(TuningSignals signals) {
        return new AgentReport(
                allocationHash,
                rssBytes,
                rssPeakBytes,
                cgroupCurrentBytes,
                cgroupPeakBytes,
                oomKills,
                heapUsedBytes,
                blockCacheUsageBytes,
                rocksDbInstances,
                activeTasks,
                standbyTasks,
                streamThreads,
                instances,
                unexplainedBytes,
                loadedClasses,
                metaspaceUsedBytes,
                recordCacheBytes,
                recordCacheSource,
                applicationRecordCacheBytes,
                jvmCaps,
                capHit,
                signals,
                kafkaStreamsVersion,
                heapOverride,
                heapState,
                progress);
    }

    /**
     * What the JVM uses now: its resident memory, what the plan's parts budget (the cgroup's figure also counts page
     * cache the kernel reclaims before it kills anything, and other processes of the container); the cgroup's
     * figure only when RSS could not be read.
     */
    Long usedBytes() {
        return rssBytes != null ? rssBytes : cgroupCurrentBytes;
    }

    /** The highest resident memory the JVM has had (VmHWM), by the same measure. */
    Long peakBytes() {
        return max(rssBytes != null ? rssPeakBytes : cgroupPeakBytes, usedBytes());
    }

    /**
     * What the JVM holds beyond the plan's bounded parts ({@link ObservedJvm#headroomUsed}), or null when its resident
     * memory or its heap is unknown (an unknown smaller term counts as 0: the figure errs towards more headroom).
     */
    private static Long headroomUsed(JsonNode root) {
        Long rss = number(root, "process", "rssBytes");
        Long heap = number(root, "jvm", "heapCommittedBytes");
        if (rss == null || heap == null) {
            return null;
        }
        // Memtables outside a shared cache count on their own (only agents before 78fde88 report them: the agent no
        // longer evaluates Kafka Streams' RocksDB gauges); with the agent's WriteBufferManager they are in the cache.
        boolean sharedCache = number(root, "rocksdb", "blockCacheCapacityBytes") != null;
        return Math.max(
                0,
                ObservedJvm.headroomUsed(
                        rss,
                        heap,
                        orZero(number(root, "jvm", "metaspaceUsedBytes")),
                        orZero(number(root, "jvm", "codeCacheUsedBytes")),
                        orZero(number(root, "jvm", "directUsedBytes")),
                        orZero(number(root, "jvm", "liveThreads")),
                        orZero(number(root, "rocksdb", "blockCacheUsageBytes")),
                        sharedCache ? 0 : orZero(number(root, "rocksdb", "memtableBytes"))));
    }

    private static long orZero(Long figure) {
        return figure == null ? 0 : figure;
    }

    /** The larger of two figures, either of which may be unknown (null). */
    static Long max(Long a, Long b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return Math.max(a, b);
    }

    static String text(JsonNode node) {
        return node.isTextual() ? node.asText() : null;
    }

    /**
     * The RSS the JVM's pools and RocksDB do not explain, negative while committed memory (a heap grown on paper,
     * reserved stacks) is not all resident yet: kept as it is, so the figure and its growth show from the start.
     */
    /** The agent's -1 is {@link #RECORD_CACHE_LEFT_TO_PLAN}; any other negative or non-number, unknown. */
    private static Long applicationRecordCache(JsonNode node) {
        if (!wholeLong(node) || node.asLong() < -1) {
            return null;
        }
        return node.asLong() == -1 ? RECORD_CACHE_LEFT_TO_PLAN : node.asLong();
    }

    private static Long signedNumber(JsonNode root, String field) {
        JsonNode node = root.path(field);
        return wholeLong(node) ? node.asLong() : null;
    }

    static Long number(JsonNode root, String section, String field) {
        JsonNode node = (section == null ? root : root.path(section)).path(field);
        return wholeLong(node) && node.asLong() >= 0 ? node.asLong() : null;
    }

    /**
     * A whole number that fits a long: asLong() of a larger one keeps its low 64 bits, so 2^64 + 1 read as 1 (found
     * by AgentReportFuzzTest); such a figure is unknown, not wrapped.
     */
    private static boolean wholeLong(JsonNode node) {
        return node.isIntegralNumber() && node.canConvertToLong();
    }
}
