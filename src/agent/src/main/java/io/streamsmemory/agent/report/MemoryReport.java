package io.streamsmemory.agent.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.hook.StreamsInstances;
import io.streamsmemory.agent.rocksdb.RocksDbStats;
import io.streamsmemory.agent.state.AgentState;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Collections;
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
    static final int FORMAT_VERSION = 1;
    static final String METRIC_PREFIX = "streams_memory_agent_";
    private static final JsonFactory JSON = new JsonFactory();

    private final String allocationHash;
    private final String restartHash;
    /** Which record cache the application got: a {@link ConfigMerger.RecordCache.Source} label; null leaves it out. */
    private final String recordCacheSource;
    /** The application's Kafka Streams version, as its jar says (the operator learns the policy's fact from it). */
    private final String kafkaStreamsVersion;
    /** The JVM argument that set the heap in force when it is not the plan's ({@link JvmLimits#heapFlag}), else null. */
    private final String heapFlag;
    /** The store names of the suppression buffers with no bound ({@link HeapStateFigures}), else null. */
    private final String unboundedSuppressionBuffers;
    /** Section name to its figures, in the document's order; empty sections are left out. */
    private final Map<String, Map<String, Long>> sections;

    private final Long unexplainedBytes;

    MemoryReport(
            String allocationHash,
            String restartHash,
            String recordCacheSource,
            String kafkaStreamsVersion,
            String heapFlag,
            String unboundedSuppressionBuffers,
            Map<String, Map<String, Long>> sections,
            Long unexplainedBytes) {
        this.allocationHash = allocationHash;
        this.restartHash = restartHash;
        this.recordCacheSource = recordCacheSource;
        this.kafkaStreamsVersion = kafkaStreamsVersion;
        this.heapFlag = heapFlag;
        this.unboundedSuppressionBuffers = unboundedSuppressionBuffers;
        Map<String, Map<String, Long>> kept = new LinkedHashMap<>();
        sections.forEach((name, figures) -> {
            if (!figures.isEmpty()) {
                kept.put(name, Collections.unmodifiableMap(new LinkedHashMap<>(figures)));
            }
        });
        this.sections = Collections.unmodifiableMap(kept);
        this.unexplainedBytes = unexplainedBytes;
    }

    /** Reads every source now. */
    static MemoryReport build() {
        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        Map<String, Long> process = new LinkedHashMap<>(ProcStatus.read(ProcStatus.SELF));
        process.putAll(ProcIo.read(ProcIo.SELF));
        // Against streams.processedRecords: the application's CPU per record, what a tuning step is judged by.
        putKnown(process, "processCpuNanos", ProcessCpu::nanos);
        sections.put("process", process);
        sections.put("cgroup", CgroupMemory.read(CgroupMemory.ROOT, CgroupMemory.SELF));
        Map<String, Long> jvm = JvmMemory.read();
        AgentAllocation allocation = AgentState.allocation();
        jvm.putAll(planned(allocation));
        sections.put("jvm", jvm);
        StreamsFigures streams = StreamsFigures.read();
        Map<String, Long> streamsSection = streams.streams();
        if (allocation != null && allocation.plannedRecordCacheBytes() >= 0) {
            // Next to recordCacheBytes, the cache in force: the two differ when the plan's is not applied.
            streamsSection.put("plannedRecordCacheBytes", allocation.plannedRecordCacheBytes());
        }
        Long applicationCache = AgentState.recordCache().applicationBytes();
        if (applicationCache != null) {
            // The application's own setting (-1: none): the plan holds heap for the cache that runs.
            streamsSection.put("applicationRecordCacheBytes", applicationCache);
        }
        sections.put("streams", streamsSection);
        HeapStateFigures heapState = StreamsInstances.watching() ? HeapStateFigures.read() : null;
        if (heapState != null) {
            sections.put("heapState", heapState.figures());
        }
        Map<String, Long> rocksdb = rocksDb(jvm.get("uptimeMillis"));
        sections.put("rocksdb", rocksdb);
        return new MemoryReport(
                allocation == null ? null : allocation.hash(),
                allocation == null ? null : allocation.restartHash(),
                AgentState.recordCache().source().label(),
                AgentState.kafkaStreamsVersionSeen(),
                heapFlag(AgentState.jvmLimits()),
                heapState == null ? null : heapState.unboundedBuffers(),
                sections,
                unexplained(sections.get("process").get("rssBytes"), jvm, rocksdb, JvmMemory.stackBytesPerThread()));
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
        Long heap = allocation.plannedLimits().get(AgentAllocation.HEAP_PART);
        if (heap != null) {
            out.put("plannedHeapMaxBytes", heap);
        }
        if (allocation.plannedLoadedClasses() > 0) {
            out.put("plannedLoadedClasses", allocation.plannedLoadedClasses());
        }
        Long metaspace = allocation.plannedLimits().get(AgentAllocation.METASPACE_PART);
        if (metaspace != null) {
            out.put("plannedMetaspaceMaxBytes", metaspace);
        }
        Long direct = allocation.plannedLimits().get(AgentAllocation.DIRECT_MEMORY_PART);
        if (direct != null) {
            out.put("plannedDirectMaxBytes", direct);
        }
        return out;
    }

    /** The {@code rocksdb} section; {@code uptimeMillis} (null when unknown) bounds the stall time. */
    static Map<String, Long> rocksDb(Long uptimeMillis) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (RocksDbStats.capacity >= 0) {
            out.put("blockCacheCapacityBytes", RocksDbStats.capacity);
            putKnown(out, "blockCacheUsageBytes", RocksDbStats.usage);
            putKnown(out, "blockCachePinnedUsageBytes", RocksDbStats.pinnedUsage);
        }
        if (RocksDbStats.listening) {
            out.put("flushes", RocksDbStats.FLUSHES.get());
            out.put("flushedBytes", RocksDbStats.FLUSHED_BYTES.get());
            long stall = RocksDbStats.WRITE_STALLS.millis();
            // Both clocks count from about the JVM's start; a stall in progress read a moment after the uptime must
            // not make the share of time stalled exceed 1.
            out.put("writeStallMillis", uptimeMillis == null ? stall : Math.min(stall, uptimeMillis));
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
        long explained = jvm.getOrDefault("heapCommittedBytes", 0L)
                + jvm.getOrDefault("metaspaceUsedBytes", 0L)
                + jvm.getOrDefault("codeCacheUsedBytes", 0L)
                + jvm.getOrDefault("directUsedBytes", 0L)
                + jvm.getOrDefault("liveThreads", 0L) * stackBytesPerThread
                + rocksdb.getOrDefault("blockCacheUsageBytes", 0L);
        return rss - explained;
    }

    Map<String, Map<String, Long>> sections() {
        return sections;
    }

    Long unexplainedBytes() {
        return unexplainedBytes;
    }

    String toJson() {
        StringWriter out = new StringWriter(1024);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeNumberField("formatVersion", FORMAT_VERSION);
            if (allocationHash != null) {
                json.writeStringField("allocationHash", allocationHash);
            }
            if (restartHash != null) {
                json.writeStringField("restartHash", restartHash);
            }
            if (recordCacheSource != null) {
                json.writeStringField("recordCacheSource", recordCacheSource);
            }
            if (kafkaStreamsVersion != null) {
                json.writeStringField("kafkaStreamsVersion", kafkaStreamsVersion);
            }
            if (heapFlag != null) {
                json.writeStringField("heapFlag", heapFlag);
            }
            if (unboundedSuppressionBuffers != null) {
                json.writeStringField("unboundedSuppressionBuffers", unboundedSuppressionBuffers);
            }
            for (Map.Entry<String, Map<String, Long>> section : sections.entrySet()) {
                json.writeObjectFieldStart(section.getKey());
                for (Map.Entry<String, Long> figure : section.getValue().entrySet()) {
                    json.writeNumberField(figure.getKey(), figure.getValue());
                }
                json.writeEndObject();
            }
            if (unexplainedBytes != null) {
                json.writeNumberField("unexplainedBytes", unexplainedBytes);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
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
        helpAndType(out, info, "The allocation this JVM runs on (report format " + FORMAT_VERSION + ").");
        out.append(info).append("{format_version=\"").append(FORMAT_VERSION).append('"');
        label(out, "allocation_hash", allocationHash);
        label(out, "restart_hash", restartHash);
        label(out, "kafka_streams_version", kafkaStreamsVersion);
        label(out, "heap_flag", heapFlag);
        label(out, "unbounded_suppression_buffers", unboundedSuppressionBuffers);
        out.append("} 1\n");
        if (recordCacheSource != null) {
            String source = METRIC_PREFIX + "record_cache_source";
            helpAndType(
                    out, source, "Which record cache the application got (plan, application, kafka-default, none).");
            // One of four fixed words: nothing to escape.
            out.append(source).append("{source=\"").append(recordCacheSource).append("\"} 1\n");
        }
        for (Map.Entry<String, Map<String, Long>> section : sections.entrySet()) {
            for (Map.Entry<String, Long> figure : section.getValue().entrySet()) {
                gauge(
                        out,
                        snake(section.getKey()) + "_" + snake(figure.getKey()),
                        section.getKey() + "." + figure.getKey(),
                        figure.getValue());
            }
        }
        if (unexplainedBytes != null) {
            gauge(out, "unexplained_bytes", "unexplainedBytes", unexplainedBytes);
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
