package io.streamsmemory.operator.observe;

import static io.streamsmemory.protocol.ReportFigure.*;

import io.streamsmemory.engine.ObservedJvm;
import io.streamsmemory.protocol.AgentReportDocument;
import io.streamsmemory.protocol.AgentReportDocument.Word;
import io.streamsmemory.protocol.ReportFigure;
import io.streamsmemory.protocol.ReportJson;

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
    /**
     * {@link #applicationRecordCacheBytes} of an application that leaves the record cache to the plan (the agent
     * writes -1): as large as any, so the most a workload's pods set is the plan's whenever one sets none.
     */
    public static final long RECORD_CACHE_LEFT_TO_PLAN = Long.MAX_VALUE;

    /** Reads a report; anything that is not one (garbage, another format version) is an IllegalArgumentException. */
    static AgentReport parse(byte[] body) {
        return of(ReportJson.read(body));
    }

    /** The figures the operator uses; a negative figure (the agent writes none) is unknown, as a missing one. */
    static AgentReport of(AgentReportDocument report) {
        Figures figures = new Figures(report);
        String allocationHash = report.word(Word.ALLOCATION_HASH);
        return new AgentReport(
                allocationHash,
                figures.known(RSS_BYTES),
                figures.known(RSS_PEAK_BYTES),
                figures.known(CGROUP_CURRENT_BYTES),
                figures.known(CGROUP_PEAK_BYTES),
                figures.known(OOM_KILLS),
                figures.known(HEAP_USED_BYTES),
                figures.known(BLOCK_CACHE_USAGE_BYTES),
                figures.streams(ROCKSDB_INSTANCES),
                figures.streams(ACTIVE_TASKS),
                figures.streams(STANDBY_TASKS),
                figures.streams(STREAM_THREADS),
                figures.streams(INSTANCES),
                report.unexplainedBytes(),
                figures.known(LOADED_CLASSES),
                figures.known(METASPACE_USED_BYTES),
                figures.streams(RECORD_CACHE_BYTES),
                report.word(Word.RECORD_CACHE_SOURCE),
                figures.streamsRunning ? applicationRecordCache(report.figure(APPLICATION_RECORD_CACHE_BYTES)) : null,
                jvmCaps(figures),
                JvmCapsUse.capHit(
                        max(figures.known(METASPACE_COMMITTED_BYTES), figures.known(METASPACE_USED_BYTES)),
                        figures.known(METASPACE_MAX_BYTES),
                        figures.known(CODE_CACHE_USED_BYTES),
                        figures.known(CODE_CACHE_MAX_BYTES)),
                tuning(figures, allocationHash),
                // The version the application's jar says, read once Kafka Streams runs (an agent older than the
                // field leaves it out: the fact stays declared or on its default).
                figures.streamsRunning ? report.word(Word.KAFKA_STREAMS_VERSION) : null,
                // Named by the agent only when the heap in force is not the plan's.
                report.word(Word.HEAP_FLAG) == null
                        ? null
                        : new HeapOverride(
                                report.word(Word.HEAP_FLAG),
                                figures.known(HEAP_MAX_BYTES),
                                figures.known(PLANNED_HEAP_MAX_BYTES)),
                HeapState.of(report, figures::known),
                Progress.of(
                        figures.known(UPTIME_MILLIS),
                        figures.known(PROCESS_CPU_NANOS),
                        figures.streams(PROCESSED_RECORDS)));
    }

    /** What the JVM's caps hold: its peaks (an agent older than the peaks reports only what is used now). */
    private static JvmCapsUse jvmCaps(Figures figures) {
        return new JvmCapsUse(
                max(figures.known(METASPACE_PEAK_COMMITTED_BYTES), figures.known(METASPACE_USED_BYTES)),
                max(figures.known(CODE_CACHE_PEAK_BYTES), figures.known(CODE_CACHE_USED_BYTES)),
                figures.known(LIVE_THREADS),
                // Once Kafka Streams runs: what a JVM holds in its first moments says nothing of its need.
                figures.streamsRunning ? figures.known(DIRECT_USED_BYTES) : null,
                figures.streamsRunning ? headroomUsed(figures) : null);
    }

    /** What the split tuner judges a step by, once Kafka Streams runs. */
    private static TuningSignals tuning(Figures figures, String allocationHash) {
        return figures.streamsRunning
                ? TuningSignals.of(
                        allocationHash,
                        figures.known(UPTIME_MILLIS),
                        figures.known(GC_PAUSE_MILLIS),
                        figures.known(WRITE_STALL_MILLIS),
                        figures.known(FLUSHES),
                        figures.known(FLUSHED_BYTES),
                        figures.known(STORAGE_READ_BYTES),
                        figures.streams(CONSUMER_LAG_RECORDS),
                        figures.known(PROCESS_CPU_NANOS),
                        figures.streams(PROCESSED_RECORDS))
                : null;
    }

    /**
     * A report's figures as the operator takes them: a negative one is unknown, and the streams figures of a JVM whose
     * Kafka Streams has not started yet (the agent answers from its first moments) are unknown, not 0, so no mismatch
     * with the topology is raised at every start.
     */
    private static final class Figures {
        private final AgentReportDocument report;
        private final boolean streamsRunning;

        Figures(AgentReportDocument report) {
            this.report = report;
            Long threads = report.figure(STREAM_THREADS);
            this.streamsRunning = threads != null && threads > 0;
        }

        Long known(ReportFigure figure) {
            Long value = report.figure(figure);
            return value != null && value >= 0 ? value : null;
        }

        Long streams(ReportFigure figure) {
            return streamsRunning ? known(figure) : null;
        }
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
    private static Long headroomUsed(Figures figures) {
        Long rss = figures.known(RSS_BYTES);
        Long heap = figures.known(HEAP_COMMITTED_BYTES);
        if (rss == null || heap == null) {
            return null;
        }
        // Memtables outside a shared cache count on their own (only agents before 78fde88 report them: the agent no
        // longer evaluates Kafka Streams' RocksDB gauges); with the agent's WriteBufferManager they are in the cache.
        boolean sharedCache = figures.known(BLOCK_CACHE_CAPACITY_BYTES) != null;
        return Math.max(
                0,
                ObservedJvm.headroomUsed(
                        rss,
                        heap,
                        orZero(figures.known(METASPACE_USED_BYTES)),
                        orZero(figures.known(CODE_CACHE_USED_BYTES)),
                        orZero(figures.known(DIRECT_USED_BYTES)),
                        orZero(figures.known(LIVE_THREADS)),
                        orZero(figures.known(BLOCK_CACHE_USAGE_BYTES)),
                        sharedCache ? 0 : orZero(figures.known(MEMTABLE_BYTES))));
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

    /** The agent's -1 is {@link #RECORD_CACHE_LEFT_TO_PLAN}; any other negative, unknown. */
    private static Long applicationRecordCache(Long figure) {
        if (figure == null || figure < -1) {
            return null;
        }
        return figure == -1 ? RECORD_CACHE_LEFT_TO_PLAN : figure;
    }
}
