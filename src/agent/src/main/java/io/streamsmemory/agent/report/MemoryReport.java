package io.streamsmemory.agent.report;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.hook.StreamsInstances;
import io.streamsmemory.agent.rocksdb.RocksDbStats;
import io.streamsmemory.agent.state.AgentState;
import io.streamsmemory.protocol.AgentReportDocument;
import io.streamsmemory.protocol.AgentReportDocument.Word;
import io.streamsmemory.protocol.AllocationFormat;
import io.streamsmemory.protocol.ReportFigure;
import io.streamsmemory.protocol.ReportFigure.Section;
import io.streamsmemory.protocol.ReportJson;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What this JVM really uses, next to the allocation it runs on: the process, its cgroup, the JVM, Kafka Streams and
 * the shared RocksDB cache, plus the bytes none of them explains. Built afresh on every call (nothing is cached
 * between calls but bean handles and flags fixed for the JVM's life); a figure that cannot be read is left out,
 * never written as 0. Rendered as JSON ({@code GET /report}) or Prometheus text ({@code GET /metrics}).
 */
final class MemoryReport {
    static final String METRIC_PREFIX = "streams_memory_agent_";

    /** The report as the protocol's codec writes it. */
    private final AgentReportDocument report;

    /**
     * @param recordCacheSource which record cache the application got: a {@link ConfigMerger.RecordCache.Source} label
     * @param kafkaStreamsVersion the application's, as its jar says (the operator learns the policy's fact from it)
     * @param heapFlag the JVM argument that set the heap in force when it is not the plan's ({@link JvmLimits#heapFlag})
     * @param unboundedSuppressionBuffers the store names of the suppression buffers with no bound
     * @param sections section name to its figures, in the document's order; empty sections are left out
     */
    MemoryReport(
            String allocationHash,
            String restartHash,
            String recordCacheSource,
            String kafkaStreamsVersion,
            String heapFlag,
            String unboundedSuppressionBuffers,
            Map<String, Map<String, Long>> sections,
            Long unexplainedBytes) {
        Map<String, String> words = new LinkedHashMap<>();
        words.put(Word.ALLOCATION_HASH, allocationHash);
        words.put(Word.RESTART_HASH, restartHash);
        words.put(Word.RECORD_CACHE_SOURCE, recordCacheSource);
        words.put(Word.KAFKA_STREAMS_VERSION, kafkaStreamsVersion);
        words.put(Word.HEAP_FLAG, heapFlag);
        words.put(Word.UNBOUNDED_SUPPRESSION_BUFFERS, unboundedSuppressionBuffers);
        this.report = new AgentReportDocument(words, sections, unexplainedBytes);
    }

    /** Reads every source now. */
    static MemoryReport build() {
        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        Map<String, Long> process = new LinkedHashMap<>(ProcStatus.read(ProcStatus.SELF));
        process.putAll(ProcIo.read(ProcIo.SELF));
        // Against streams.processedRecords: the application's CPU per record, what a tuning step is judged by.
        putKnown(process, ReportFigure.PROCESS_CPU_NANOS.field(), ProcessCpu::nanos);
        sections.put(Section.PROCESS, process);
        sections.put(Section.CGROUP, CgroupMemory.read(CgroupMemory.ROOT, CgroupMemory.SELF));
        Map<String, Long> jvm = JvmMemory.read();
        AgentAllocation allocation = AgentState.allocation();
        jvm.putAll(planned(allocation));
        sections.put(Section.JVM, jvm);
        StreamsFigures streams = StreamsFigures.read();
        Map<String, Long> streamsSection = streams.streams();
        if (allocation != null && allocation.plannedRecordCacheBytes() >= 0) {
            // Next to recordCacheBytes, the cache in force: the two differ when the plan's is not applied.
            streamsSection.put("plannedRecordCacheBytes", allocation.plannedRecordCacheBytes());
        }
        Long applicationCache = AgentState.recordCache().applicationBytes();
        if (applicationCache != null) {
            // The application's own setting (-1: none): the plan holds heap for the cache that runs.
            streamsSection.put(ReportFigure.APPLICATION_RECORD_CACHE_BYTES.field(), applicationCache);
        }
        sections.put(Section.STREAMS, streamsSection);
        HeapStateFigures heapState = StreamsInstances.watching() ? HeapStateFigures.read() : null;
        if (heapState != null) {
            sections.put(Section.HEAP_STATE, heapState.figures());
        }
        Map<String, Long> rocksdb = rocksDb(jvm.get(ReportFigure.UPTIME_MILLIS.field()));
        sections.put(Section.ROCKSDB, rocksdb);
        return new MemoryReport(
                allocation == null ? null : allocation.hash(),
                allocation == null ? null : allocation.restartHash(),
                AgentState.recordCache().source().label(),
                AgentState.kafkaStreamsVersionSeen(),
                heapFlag(AgentState.jvmLimits()),
                heapState == null ? null : heapState.unboundedBuffers(),
                sections,
                unexplained(
                        sections.get(Section.PROCESS).get(ReportFigure.RSS_BYTES.field()),
                        jvm,
                        rocksdb,
                        JvmMemory.stackBytesPerThread()));
    }

    /**
     * The argument that set the heap when the heap in force is not the plan's (a user's -Xmx or RAM percentage won over
     * the injected flag), else null: the operator shows it against the plan.
     */
    static String heapFlag(JvmLimits limits) {
        return limits == null || !limits.mismatches().containsKey(JvmLimits.HEAP) ? null : JvmLimits.heapFlag();
    }

    /**
     * What the allocation planned for the JVM's own caps, to read next to {@code loadedClasses},
     * {@code metaspaceMaxBytes} and {@code directMaxBytes}: the class count the metaspace cap was sized for and the
     * planned caps themselves (a cap in force that differs is also a JvmLimits warning). Empty without an allocation.
     */
    static Map<String, Long> planned(AgentAllocation allocation) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (allocation == null) {
            return out;
        }
        Long heap = allocation.plannedLimits().get(AllocationFormat.HEAP_PART);
        if (heap != null) {
            out.put(ReportFigure.PLANNED_HEAP_MAX_BYTES.field(), heap);
        }
        if (allocation.plannedLoadedClasses() > 0) {
            out.put("plannedLoadedClasses", allocation.plannedLoadedClasses());
        }
        Long metaspace = allocation.plannedLimits().get(AllocationFormat.METASPACE_PART);
        if (metaspace != null) {
            out.put("plannedMetaspaceMaxBytes", metaspace);
        }
        Long direct = allocation.plannedLimits().get(AllocationFormat.DIRECT_MEMORY_PART);
        if (direct != null) {
            out.put("plannedDirectMaxBytes", direct);
        }
        return out;
    }

    /** The {@code rocksdb} section; {@code uptimeMillis} (null when unknown) bounds the stall time. */
    static Map<String, Long> rocksDb(Long uptimeMillis) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (RocksDbStats.capacity >= 0) {
            out.put(ReportFigure.BLOCK_CACHE_CAPACITY_BYTES.field(), RocksDbStats.capacity);
            putKnown(out, ReportFigure.BLOCK_CACHE_USAGE_BYTES.field(), RocksDbStats.usage);
            putKnown(out, "blockCachePinnedUsageBytes", RocksDbStats.pinnedUsage);
        }
        if (RocksDbStats.listening) {
            out.put(ReportFigure.FLUSHES.field(), RocksDbStats.FLUSHES.get());
            out.put(ReportFigure.FLUSHED_BYTES.field(), RocksDbStats.FLUSHED_BYTES.get());
            long stall = RocksDbStats.WRITE_STALLS.millis();
            // Both clocks count from about the JVM's start; a stall in progress read a moment after the uptime must
            // not make the share of time stalled exceed 1.
            out.put(
                    ReportFigure.WRITE_STALL_MILLIS.field(),
                    uptimeMillis == null ? stall : Math.min(stall, uptimeMillis));
        }
        return out;
    }

    private static void putKnown(Map<String, Long> out, String field, LongSupplier supplier) {
        try {
            long value = supplier.getAsLong();
            if (value >= 0) {
                out.put(field, value);
            }
        } catch (Throwable t) {
            // left out
        }
    }

    /**
     * RSS minus what the JVM and RocksDB account for: heap committed, metaspace used, code cache used, direct buffers
     * used, a stack per live thread, and the shared block cache's usage (the agent's WriteBufferManager charges every
     * memtable to it). Without the agent's cache, RocksDB's memory stays unexplained: its per-store figures are
     * Kafka Streams' gauges, which the agent does not read ({@link StoreMetrics} says why). Null when RSS is unknown;
     * a term that is unknown counts as 0 (its bytes stay unexplained). Can be negative: stacks are reserved, not all
     * resident, and the cache's usage counts blocks some of which may be swapped out.
     */
    static Long unexplained(Long rss, Map<String, Long> jvm, Map<String, Long> rocksdb, long stackBytesPerThread) {
        if (rss == null) {
            return null;
        }
        long explained = jvm.getOrDefault(ReportFigure.HEAP_COMMITTED_BYTES.field(), 0L)
                + jvm.getOrDefault(ReportFigure.METASPACE_USED_BYTES.field(), 0L)
                + jvm.getOrDefault(ReportFigure.CODE_CACHE_USED_BYTES.field(), 0L)
                + jvm.getOrDefault(ReportFigure.DIRECT_USED_BYTES.field(), 0L)
                + jvm.getOrDefault(ReportFigure.LIVE_THREADS.field(), 0L) * stackBytesPerThread
                + rocksdb.getOrDefault(ReportFigure.BLOCK_CACHE_USAGE_BYTES.field(), 0L);
        return rss - explained;
    }

    Map<String, Map<String, Long>> sections() {
        return report.sections();
    }

    Long unexplainedBytes() {
        return report.unexplainedBytes();
    }

    String toJson() {
        return ReportJson.write(report);
    }

    /**
     * Prometheus text format 0.0.4: one gauge per figure, {@code streams_memory_agent_<section>_<field in snake
     * case>} (byte figures end in {@code _bytes}), each with its HELP and TYPE lines,
     * {@code streams_memory_agent_info} carrying the hashes and the Kafka Streams version as labels, and
     * {@code streams_memory_agent_record_cache_source{source="…"} 1} carrying recordCacheSource (a label, as the text
     * format has no string values).
     */
    String toPrometheus() {
        StringBuilder out = new StringBuilder(4096);
        String info = METRIC_PREFIX + "info";
        helpAndType(
                out,
                info,
                "The allocation this JVM runs on (report format " + AgentReportDocument.FORMAT_VERSION + ").");
        out.append(info)
                .append("{format_version=\"")
                .append(AgentReportDocument.FORMAT_VERSION)
                .append('"');
        label(out, "allocation_hash", report.word(Word.ALLOCATION_HASH));
        label(out, "restart_hash", report.word(Word.RESTART_HASH));
        label(out, "kafka_streams_version", report.word(Word.KAFKA_STREAMS_VERSION));
        label(out, "heap_flag", report.word(Word.HEAP_FLAG));
        label(out, "unbounded_suppression_buffers", report.word(Word.UNBOUNDED_SUPPRESSION_BUFFERS));
        out.append("} 1\n");
        String recordCacheSource = report.word(Word.RECORD_CACHE_SOURCE);
        if (recordCacheSource != null) {
            String source = METRIC_PREFIX + "record_cache_source";
            helpAndType(
                    out, source, "Which record cache the application got (plan, application, kafka-default, none).");
            // One of four fixed words: nothing to escape.
            out.append(source).append("{source=\"").append(recordCacheSource).append("\"} 1\n");
        }
        for (Map.Entry<String, Map<String, Long>> section : report.sections().entrySet()) {
            for (Map.Entry<String, Long> figure : section.getValue().entrySet()) {
                gauge(
                        out,
                        snake(section.getKey()) + "_" + snake(figure.getKey()),
                        section.getKey() + "." + figure.getKey(),
                        figure.getValue());
            }
        }
        if (report.unexplainedBytes() != null) {
            gauge(out, "unexplained_bytes", "unexplainedBytes", report.unexplainedBytes());
        }
        return out.toString();
    }

    private static void gauge(StringBuilder out, String name, String field, long value) {
        String metric = METRIC_PREFIX + name;
        helpAndType(out, metric, "The report's " + field + ".");
        out.append(metric).append(' ').append(value).append('\n');
    }

    /** A gauge's HELP and TYPE lines, which come before its samples. */
    private static void helpAndType(StringBuilder out, String metric, String help) {
        out.append("# HELP ").append(metric).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(metric).append(" gauge\n");
    }

    private static void label(StringBuilder out, String name, String value) {
        if (value == null) {
            return;
        }
        out.append(',').append(name).append("=\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' || c == '"') {
                out.append('\\').append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    /** "heapUsedBytes" to "heap_used_bytes". */
    static String snake(String camel) {
        StringBuilder out = new StringBuilder(camel.length() + 8);
        for (int i = 0; i < camel.length(); i++) {
            char c = camel.charAt(i);
            if (Character.isUpperCase(c)) {
                out.append('_').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
