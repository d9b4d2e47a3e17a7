package io.streamsmemory.agent.it;

import static io.streamsmemory.agent.it.AgentRealBrokerTest.FACTS;
import static io.streamsmemory.agent.it.AgentRealBrokerTest.PARTITIONS;
import static io.streamsmemory.agent.it.AgentRealBrokerTest.THREADS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.agent.report.LocalHttp;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.Overrides;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.assertj.core.data.Offset;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12, agent part: the memory report of a real Kafka Streams application (Kafka Streams 4.4.0, a key-value and
 * a windowed RocksDB store per task, EOS) run with the agent jar and {@code STREAMS_MEMORY_REPORT_PORT} against the
 * real broker, compared with what the application's JVM and the kernel say about it. The endpoint being off without
 * the variable is asserted by {@link AgentRealBrokerTest} (its applications run without it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("kafka-broker")
class MemoryReportRealBrokerTest {
    /** G1 rounds the heap up to its region size, at most 32 MiB. */
    private static final long HEAP_ALIGNMENT = 32L << 20;

    private static final int BENCH_CALLS = 1000;
    /** Kafka Streams' statestore.cache.max.bytes default, 3.x and 4.x alike. */
    private static final long KAFKA_DEFAULT_RECORD_CACHE = 10L << 20;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private PlannedWork planned;

    @BeforeAll
    void writeAllocation() throws Exception {
        // The record cache's share forced to the model's 20%: capped, 2 stream threads get Kafka's own 10 MiB, and
        // anUnsetRecordCacheRunsOnThePlansWhenTheHeapHoldsIt needs a planned cache Kafka's default can be told from.
        planned = PlannedWork.fresh(
                "it-report",
                FACTS.toBuilder()
                        .overrides(Overrides.NONE.withRecordCacheFraction(MemoryModel.RECORD_CACHE_FRACTION))
                        .build());
    }

    /** The two Kafka Streams lines the agent is tested against (the app's Kafka version varies 3.9 to 4.x). */
    static List<String> versions() {
        return List.of("4.4.0", System.getProperty("streamsmemory.oldKafkaVersion", "3.9.1"));
    }

    @ParameterizedTest(name = "Kafka Streams {0}")
    @MethodSource("versions")
    void theReportShowsWhatTheApplicationJvmUses(String version) throws Exception {
        int port = LocalHttp.freePort();
        AppRun.Launch launch = reporting(version, port).env("REPORT_BENCH_CALLS", Integer.toString(BENCH_CALLS));
        String topics = "report" + version.replace(".", "") + "-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app =
                AppRun.streamsApp(launch, planned.dir().resolve("app-" + version), topics, THREADS, planned.file())) {
            app.awaitCounts(topics + "counts-out");
            app.awaitCounts(topics + "window-out");
            Properties r = app.awaitReport();
            long rssBefore = app.rssBytes();
            HttpResponse<String> response = get(port, "/report");
            long rssAfter = app.rssBytes();
            assertThat(response.statusCode()).isEqualTo(200);
            Files.writeString(app.dir.resolve("report.json"), response.body());
            JsonNode report = new ObjectMapper().readTree(response.body());
            assertThat(report.get("formatVersion").asInt()).isEqualTo(1);
            assertThat(report.get("allocationHash").asText())
                    .isEqualTo(planned.allocation().hash());
            assertThat(report.get("restartHash").asText())
                    .isEqualTo(planned.allocation().restartHash());
            assertThat(report.get("kafkaStreamsVersion").asText()).isEqualTo(version);
            // The planned heap is in force: no flag won over it.
            assertThat(report.has("heapFlag")).isFalse();
            assertThat(report.at("/jvm/plannedHeapMaxBytes").asLong())
                    .isEqualTo(planned.allocation().parts().stream()
                            .filter(part -> part.name().equals("heap"))
                            .findFirst()
                            .orElseThrow()
                            .bytes());
            assertProcess(report, (rssBefore + rssAfter) / 2);
            assertJvm(report, r);
            assertStreamsAndRocksDb(report);
            assertThat(report.get("unexplainedBytes")).isNotNull();

            HttpResponse<String> metrics = get(port, "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            Files.writeString(app.dir.resolve("metrics.txt"), metrics.body());
            Map<String, String> samples = samples(metrics.body());
            assertThat(samples.get("streams_memory_agent_jvm_heap_max_bytes"))
                    .isEqualTo(report.at("/jvm/heapMaxBytes").asText());
            assertThat(samples.get("streams_memory_agent_streams_stream_threads"))
                    .isEqualTo(Integer.toString(THREADS));
            assertThat(samples.get("streams_memory_agent_rocksdb_block_cache_capacity_bytes"))
                    .isEqualTo(Long.toString(planned.allocation().rocksdb().blockCacheCapacityBytes()));
            assertThat(get(port, "/nope").statusCode()).isEqualTo(404);

            // The figures the MBean gained, and the endpoint's one listening port and daemon threads.
            assertThat(Long.parseLong(r.getProperty("mbean.LoadedClasses"))).isPositive();
            assertThat(Long.parseLong(r.getProperty("mbean.PlannedLoadedClasses")))
                    .isEqualTo(planned.allocation().inputs().loadedClasses());
            assertThat(Long.parseLong(r.getProperty("mbean.MetaspaceUsedBytes")))
                    .isPositive();
            assertThat(samples.get("streams_memory_agent_jvm_planned_loaded_classes"))
                    .isEqualTo(Integer.toString(planned.allocation().inputs().loadedClasses()));
            assertThat(Long.parseLong(r.getProperty("mbean.DirectMaxBytes"))).isPositive();
            assertThat(Long.parseLong(r.getProperty("mbean.DirectUsedBytes"))).isGreaterThanOrEqualTo(0);
            assertThat(Long.parseLong(r.getProperty("mbean.RssBytes"))).isPositive();
            assertThat(app.listeningPorts()).containsExactly(port);
            assertThat(app.threadNames()).contains("HTTP-Dispatcher", "streams-memory-");
            assertThat(app.agentLines()).noneMatch(line -> line.contains("WARN"));
            System.out.println("Kafka Streams " + version + ": report: cpu_us_per_call="
                    + r.getProperty("report.cpu_us_per_call")
                    + " (" + BENCH_CALLS + " builds + JSON in the application JVM, ThreadMXBean CPU time; per source: "
                    + r.getProperty("report.cpu_us_per_part") + ")");
        }
    }

    private static void assertProcess(JsonNode report, long vmRss) {
        long rss = report.at("/process/rssBytes").asLong();
        assertThat((double) rss).isCloseTo(vmRss, Percentage.withPercentage(10));
        assertThat(report.at("/process/rssPeakBytes").asLong()).isGreaterThanOrEqualTo(rss);
    }

    private void assertJvm(JsonNode report, Properties app) {
        JsonNode jvm = report.get("jvm");
        long used = jvm.get("heapUsedBytes").asLong();
        long committed = jvm.get("heapCommittedBytes").asLong();
        long max = jvm.get("heapMaxBytes").asLong();
        assertThat(used).isPositive().isLessThanOrEqualTo(committed);
        assertThat(committed).isLessThanOrEqualTo(max);
        // The application JVM's own MemoryMXBean, and the -Xmx the allocation set (up to G1's region rounding).
        assertThat(max).isEqualTo(Long.parseLong(app.getProperty("jvm.heapMax")));
        long xmx = xmx(planned.allocation().jvmOptions());
        assertThat(max).isBetween(xmx - xmx / 8, xmx + HEAP_ALIGNMENT);
        assertThat(jvm.get("metaspaceUsedBytes").asLong()).isPositive();
        assertThat(jvm.get("metaspaceMaxBytes").asLong())
                .isGreaterThanOrEqualTo(jvm.get("metaspaceUsedBytes").asLong());
        assertThat(jvm.get("codeCacheUsedBytes").asLong())
                .isPositive()
                .isLessThanOrEqualTo(jvm.get("codeCacheMaxBytes").asLong());
        assertThat(jvm.get("directUsedBytes").asLong())
                .isGreaterThanOrEqualTo(0)
                .isLessThanOrEqualTo(jvm.get("directMaxBytes").asLong());
        assertThat(jvm.get("loadedClasses").asLong())
                .isGreaterThan(1000)
                .isLessThanOrEqualTo(jvm.get("plannedLoadedClasses").asLong());
        // The caps the allocation planned, next to the ones in force (the injected flags, so they agree).
        assertThat(jvm.get("plannedMetaspaceMaxBytes").asLong()).isEqualTo(part("jvm-metaspace"));
        assertThat(jvm.get("plannedDirectMaxBytes").asLong())
                .isEqualTo(part("jvm-direct-memory"))
                .isEqualTo(jvm.get("directMaxBytes").asLong());
        assertThat(jvm.get("metaspaceMaxBytes").asLong())
                .isCloseTo(part("jvm-metaspace"), Offset.offset(1L << 20)); // aligned to the metaspace commit granule
        assertThat(jvm.get("liveThreads").asLong()).isGreaterThan(THREADS);
        // The application ran and collected; pauses are milliseconds since the start, so at least 0.
        assertThat(jvm.get("gcCollections").asLong()).isPositive();
        assertThat(jvm.get("gcPauseMillis").asLong()).isGreaterThanOrEqualTo(0);
    }

    private long part(String name) {
        return planned.allocation().parts().stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow()
                .bytes();
    }

    private void assertStreamsAndRocksDb(JsonNode report) {
        JsonNode streams = report.get("streams");
        assertThat(streams.get("instances").asInt()).isEqualTo(1);
        assertThat(streams.get("streamThreads").asInt()).isEqualTo(THREADS);
        assertThat(streams.get("activeTasks").asInt()).isEqualTo(PARTITIONS);
        assertThat(streams.get("standbyTasks").asInt()).isZero();
        assertThat(streams.get("stateStores").asInt()).isEqualTo(2 * PARTITIONS);
        assertThat(streams.get("rocksDbInstances").asInt()).isGreaterThanOrEqualTo(2 * PARTITIONS);
        // The application's 512 MiB is bounded to the plan's.
        assertThat(streams.get("recordCacheBytes").asText())
                .isEqualTo(planned.allocation().streamsConfig().get("statestore.cache.max.bytes"));
        assertThat(streams.get("plannedRecordCacheBytes").asText())
                .isEqualTo(planned.allocation().streamsConfig().get("statestore.cache.max.bytes"));
        assertThat(report.get("recordCacheSource").asText()).isEqualTo("plan");
        // The application's own value, which the operator plans the heap for when it is the smaller.
        assertThat(streams.get("applicationRecordCacheBytes").asLong()).isEqualTo(512L << 20);
        // What a tuning step is judged by (issue 64): the records processed, the process's CPU time, and the main
        // consumers' lag (the application has fetched, so its records-lag-max has a value).
        assertThat(streams.get("processedRecords").asLong())
                .as("streams.processedRecords")
                .isPositive();
        assertThat(report.at("/process/processCpuNanos").asLong())
                .as("process.processCpuNanos")
                .isPositive();
        assertThat(streams.has("consumerLagRecords"))
                .as("streams.consumerLagRecords")
                .isTrue();
        assertThat(streams.get("consumerLagRecords").asLong()).isGreaterThanOrEqualTo(0);
        JsonNode rocksdb = report.get("rocksdb");
        assertThat(rocksdb.get("blockCacheCapacityBytes").asLong())
                .isEqualTo(planned.allocation().rocksdb().blockCacheCapacityBytes());
        assertThat(rocksdb.get("blockCacheUsageBytes").asLong())
                .isPositive()
                .isLessThanOrEqualTo(rocksdb.get("blockCacheCapacityBytes").asLong());
        assertThat(rocksdb.get("blockCachePinnedUsageBytes").asLong()).isGreaterThanOrEqualTo(0);
        // None of Kafka Streams' RocksDB gauges: evaluated off the stream thread they can crash the JVM (StoreMetrics).
        assertThat(rocksdb.has("memtableBytes")).as("rocksdb.memtableBytes").isFalse();
        // The agent's flush and stall listener, appended through Kafka Streams' own options (its adapter for stores
        // with column families) and so present; how many flushes ran by now depends on the commits.
        assertThat(rocksdb.has("flushes")).as("rocksdb.flushes").isTrue();
        assertThat(rocksdb.get("flushes").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(rocksdb.get("flushedBytes").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(rocksdb.get("writeStallMillis").asLong())
                .isBetween(0L, report.at("/jvm/uptimeMillis").asLong());
        assertThat(report.at("/process/storageReadBytes").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(report.at("/process").has("storageReadBytes")).isTrue();
    }

    /**
     * An application that leaves the record cache unset: with the heap the plan counted the cache in, Kafka Streams
     * runs on the plan's record cache, above Kafka's 10 MiB default, and the report says "plan"; with a smaller -Xmx
     * of its own winning over the allocation's, it keeps Kafka's default and the report and the log say why.
     */
    @ParameterizedTest(name = "heap {0}")
    @CsvSource({"planned, plan", "256m, kafka-default"})
    void anUnsetRecordCacheRunsOnThePlansWhenTheHeapHoldsIt(String heap, String source) throws Exception {
        long plannedCache = Long.parseLong(planned.allocation().streamsConfig().get("statestore.cache.max.bytes"));
        assertThat(plannedCache).isGreaterThan(KAFKA_DEFAULT_RECORD_CACHE);
        int port = LocalHttp.freePort();
        AppRun.Launch launch = reporting("4.4.0", port).env("STREAMS_APP_RECORD_CACHE", "unset");
        if (!heap.equals("planned")) {
            // After the allocation's -Xms and -Xmx, so they win, as in JDK_JAVA_OPTIONS.
            launch.option("-Xms" + heap, "-Xmx" + heap);
        }
        String topics = "unset-cache-" + heap + "-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app =
                AppRun.streamsApp(launch, planned.dir().resolve("unset-" + heap), topics, THREADS, planned.file())) {
            app.awaitCounts(topics + "counts-out");
            Properties r = app.awaitReport();
            JsonNode report = new ObjectMapper().readTree(get(port, "/report").body());
            Files.writeString(app.dir.resolve("report.json"), report.toString());
            long inForce = source.equals("plan") ? plannedCache : KAFKA_DEFAULT_RECORD_CACHE;
            // Kafka Streams' own totalCacheSize, as the report reads it and as the application reads it.
            assertThat(report.at("/streams/recordCacheBytes").asLong()).isEqualTo(inForce);
            assertThat(r.getProperty("totalCacheSize")).isEqualTo(Long.toString(inForce));
            assertThat(report.at("/streams/plannedRecordCacheBytes").asLong()).isEqualTo(plannedCache);
            assertThat(report.get("recordCacheSource").asText()).isEqualTo(source);
            assertThat(report.at("/streams/applicationRecordCacheBytes").asLong())
                    .as("an unset record cache is reported as -1")
                    .isEqualTo(-1);
            assertThat(r.getProperty("mbean.RecordCacheSource")).isEqualTo(source);
            assertThat(samples(get(port, "/metrics").body()))
                    .containsEntry("streams_memory_agent_record_cache_source{source=\"" + source + "\"}", "1");
            List<String> agentLines = app.agentLines();
            if (source.equals("plan")) {
                assertThat(agentLines)
                        .contains("[streams-memory-agent] INFO set statestore.cache.max.bytes: "
                                + KAFKA_DEFAULT_RECORD_CACHE + " (default) -> " + plannedCache
                                + " (the plan's record cache; the heap in force holds it)");
                assertThat(agentLines).noneMatch(line -> line.contains("WARN"));
            } else {
                assertThat(agentLines)
                        .anyMatch(line -> line.startsWith("[streams-memory-agent] INFO not applied: "
                                + "statestore.cache.max.bytes (kept Kafka's default " + KAFKA_DEFAULT_RECORD_CACHE
                                + ", not the plan's " + plannedCache + ": the heap in force ("))
                        .noneMatch(line -> line.contains("set statestore.cache.max.bytes"));
                assertThat(r.getProperty("mbean.RecordCacheReason")).contains("the heap in force");
                // The smaller heap itself is the JVM-limits warning, the only one.
                assertThat(agentLines.stream().filter(line -> line.contains("WARN")))
                        .singleElement()
                        .satisfies(line -> assertThat(line).contains("heap in force"));
            }
        }
    }

    @Test
    void aPortInUseIsOneWarningAndTheApplicationRuns() throws Exception {
        try (ServerSocket taken = LocalHttp.takenPort()) {
            int port = taken.getLocalPort();
            AppRun.Launch launch = reporting("4.4.0", port);
            String topics = "report-taken-";
            AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
            try (AppRun app =
                    AppRun.streamsApp(launch, planned.dir().resolve("taken"), topics, THREADS, planned.file())) {
                app.assertEveryKeyCounted(topics + "counts-out");
                Properties r = app.awaitReport();
                assertThat(r.getProperty("mbean.Status")).isEqualTo("active");
                List<String> warnings = app.agentLines().stream()
                        .filter(line -> line.contains("WARN"))
                        .toList();
                assertThat(warnings).hasSize(1);
                assertThat(warnings.get(0)).contains("cannot listen on port " + port);
                assertThat(app.listeningPorts()).isEmpty();
                assertThat(app.alive()).isTrue();
            }
        }
    }

    /**
     * State on the heap (issue 46): an in-memory key-value store and an unbounded suppression buffer, one of each per
     * task, are counted with their entries (every key once), their records and their heap; the unbounded buffer is
     * named. A topology without them (every other test here) has no heapState section.
     */
    @ParameterizedTest(name = "Kafka Streams {0}")
    @ValueSource(strings = {"2.8.2", "4.4.0"})
    void inMemoryStoresAndSuppressionBuffersAreReportedWithTheirHeap(String version) throws Exception {
        int port = LocalHttp.freePort();
        AppRun.Launch launch = reporting(version, port).env("STREAMS_APP_HEAP_STATE", "true");
        String topics = "report-heap-state" + version.replace(".", "") + "-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out", "memory-out", "suppressed-out");
        try (AppRun app = AppRun.streamsApp(
                launch, planned.dir().resolve("heap-state-" + version), topics, THREADS, planned.file())) {
            app.assertEveryKeyCounted(topics + "memory-out");
            app.awaitReport();
            JsonNode report = new ObjectMapper().readTree(get(port, "/report").body());
            Files.writeString(app.dir.resolve("report.json"), report.toString());
            JsonNode state = report.path("heapState");
            assertThat(state.path("inMemoryStores").asLong()).isEqualTo(PARTITIONS);
            assertThat(state.path("inMemoryStoreEntries").asLong()).isEqualTo(AppRun.KEYS);
            // Each entry (HeapStateFigures): the map entry and the key's wrapper (64 B), the key "kN" in a 24-byte
            // array and the count (8 bytes, or 16 with its timestamp) in a 24- or 32-byte one.
            long entryBytes = state.path("inMemoryStoreBytes").asLong() / AppRun.KEYS;
            assertThat(entryBytes).isBetween(64L + 24 + 24, 64L + 24 + 32);
            assertThat(state.path("suppressionBuffers").asLong()).isEqualTo(PARTITIONS);
            assertThat(state.path("unboundedSuppressionBuffers").asLong()).isEqualTo(PARTITIONS);
            // The window does not close while the test runs: the buffer holds every key's latest count.
            assertThat(state.path("suppressionBufferRecords").asLong()).isEqualTo(AppRun.KEYS);
            assertThat(state.path("suppressionBufferBytes").asLong())
                    .isGreaterThan(AppRun.KEYS * 256L); // the objects around each buffered record, and its bytes
            assertThat(state.path("stateBytes").asLong())
                    .isEqualTo(state.path("inMemoryStoreBytes").asLong()
                            + state.path("suppressionBufferBytes").asLong());
            assertThat(report.path("unboundedSuppressionBuffers").asText()).startsWith("KTABLE-SUPPRESS-STATE-STORE-");
            assertThat(samples(get(port, "/metrics").body()))
                    .containsEntry(
                            "streams_memory_agent_heap_state_unbounded_suppression_buffers",
                            Integer.toString(PARTITIONS));
        }
    }

    /** The application on Kafka Streams {@code version} with the plan's flags, the agent, and its report on {@code port}. */
    private AppRun.Launch reporting(String version, int port) {
        AppRun.Launch launch = new AppRun.Launch();
        launch.kafkaStreamsVersion = version;
        return launch.option(planned.allocation().jvmOptions().toArray(new String[0]))
                .option("-javaagent:" + AppRun.agentJar())
                .env("STREAMS_MEMORY_REPORT_PORT", Integer.toString(port));
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return LocalHttp.get(http, port, path, Duration.ofSeconds(30));
    }

    private static Map<String, String> samples(String text) {
        Map<String, String> out = new HashMap<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("#")) {
                String[] parts = line.split(" ");
                out.put(parts[0], parts[1]);
            }
        }
        return out;
    }

    /** The -Xmx among the allocation's JVM options, in bytes (k, m, g suffixes). */
    static long xmx(List<String> options) {
        for (String option : options) {
            if (option.startsWith("-Xmx")) {
                String value = option.substring(4).toLowerCase(Locale.ROOT);
                char unit = value.charAt(value.length() - 1);
                int shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : 0;
                return Long.parseLong(shift == 0 ? value : value.substring(0, value.length() - 1)) << shift;
            }
        }
        throw new AssertionError("no -Xmx in " + options);
    }
}
