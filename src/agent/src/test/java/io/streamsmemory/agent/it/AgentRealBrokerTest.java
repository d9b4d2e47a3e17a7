package io.streamsmemory.agent.it;

import static io.streamsmemory.agent.it.AppRun.select;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.DoNoHarm;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent jar itself ({@code target/streams-memory-agent.jar}, built before the tests) in a real Kafka Streams
 * application in its own JVM, against a real KRaft broker: Kafka Streams 4.4.0 and 3.9.1 on Java 17, and 4.4.0 on
 * Java 25 (the agent is Java 11 bytecode, ASM 9.8 reads Java 25 classes; one representative run per JDK). Everything
 * asserted is what Kafka Streams itself reports.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("kafka-broker")
class AgentRealBrokerTest {
    static final int THREADS = 2;
    static final int PARTITIONS = 4;

    /** The workload of the forked application: 1 GiB, a key-value and a window store per task. */
    static final WorkloadFacts FACTS = WorkloadFacts.builder()
            .memoryBytes(1L << 30)
            .streamThreads(THREADS)
            .partitions(PARTITIONS)
            .stores(new StoreCounts(1, 1, 0))
            .build();

    private PlannedWork planned;

    @BeforeAll
    void writeAllocation() throws Exception {
        planned = PlannedWork.fresh("it-agent", FACTS);
    }

    /** The engine's allocation for {@code facts}, written where the agent reads it. */
    static AllocationDocument writeAllocation(Path file, WorkloadFacts facts) throws Exception {
        String json =
                AllocationJson.write(new AllocationEngine().allocate(facts).allocation());
        Files.writeString(file, json);
        return AllocationJson.read(json);
    }

    /**
     * Kafka Streams 4.4.0 on Java 17 and 25, 3.9.1, and the versions of {@code streamsmemory.compatVersions} (make test:
     * the oldest, 2.8.2; make test-compat: the whole matrix), each resolved by src/scripts/kafka-streams-classpath.sh.
     */
    static Stream<Arguments> runs() {
        Stream<Arguments> compat = Arrays.stream(
                        System.getProperty("streamsmemory.compatVersions", "").split(","))
                .map(String::trim)
                .filter(v -> !v.isEmpty())
                .filter(v ->
                        !v.equals("4.4.0") && !v.equals(System.getProperty("streamsmemory.oldKafkaVersion", "3.9.1")))
                .map(v -> Arguments.of("java17", v));
        return Stream.concat(
                Stream.of(
                        Arguments.of("java17", "4.4.0"),
                        Arguments.of("java17", System.getProperty("streamsmemory.oldKafkaVersion", "3.9.1")),
                        Arguments.of("java25", "4.4.0")),
                compat);
    }

    /** Kafka Streams before 3.0 runs on RocksJava 5 (2.8: rocksdbjni 5.18.4). */
    static boolean rocksJava5(String version) {
        return !since(version, 3, 0);
    }

    /** What the agent says once on RocksJava 5, where it bounds the stores but cannot report all of it. */
    static final class RocksJava5 {
        static final List<String> SAID = List.of(
                "cannot report the shared block cache's usage",
                "could not listen to RocksDB's flushes and write stalls",
                "could not set RocksDB's flush threads");

        /** The agent's warnings about those, one each, which must be all it warned about. */
        static List<String> warnings(List<String> agentLines) {
            List<String> said = SAID.stream()
                    .map(topic -> agentLines.stream()
                            .filter(line -> line.contains("WARN") && line.contains(topic))
                            .findFirst()
                            .orElse("(no warning: " + topic + ")"))
                    .toList();
            return said;
        }
    }

    /** Whether Kafka Streams {@code version} is {@code major.minor} or later. */
    static boolean since(String version, int major, int minor) {
        String[] parts = version.split("\\.");
        int actual = Integer.parseInt(parts[0]);
        return actual > major || (actual == major && Integer.parseInt(parts[1]) >= minor);
    }

    @ParameterizedTest(name = "{0}, Kafka Streams {1}")
    @MethodSource("runs")
    void theAgentBoundsARealApplication(String jdk, String version) throws Exception {
        AppRun.Launch launch = new AppRun.Launch();
        launch.java = jdk.equals("java25") ? AppRun.java25() : AppRun.java17();
        launch.kafkaStreamsVersion = version;
        // The allocation's JVM flags as the webhook injects them, so the heap check has nothing to report.
        launch.option(planned.allocation().jvmOptions().toArray(new String[0]));
        launch.option("-javaagent:" + AppRun.agentJar());
        String topics = jdk + "v" + version.replace('.', '_') + "-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app = AppRun.streamsApp(
                launch, planned.dir().resolve("app-" + jdk + "-" + version), topics, THREADS, planned.file())) {
            app.assertEveryKeyCounted(topics + "counts-out");
            app.assertEveryKeyCounted(topics + "window-out");
            Properties r = app.awaitReport();
            assertBounded(r, version);
            List<String> agentLines = app.agentLines();
            assertThat(agentLines.stream().filter(line -> line.contains("WARN")))
                    .as("the agent's warnings")
                    .containsExactlyInAnyOrderElementsOf(
                            rocksJava5(version) ? RocksJava5.warnings(agentLines) : List.of());
            // Without STREAMS_MEMORY_REPORT_PORT the agent opens no port and starts no HTTP thread.
            assertThat(app.listeningPorts()).isEmpty();
            assertThat(app.threadNames()).doesNotContain("HTTP-Dispatcher", "streams-memory-");
            assertThat(agentLines)
                    .filteredOn(line -> line.contains("streams-memory-agent ")
                            && line.contains(planned.allocation().hash()))
                    .hasSize(1);
            long recordCache =
                    Long.parseLong(planned.allocation().streamsConfig().get("statestore.cache.max.bytes"));
            // The record cache under the key this version reads (KIP-770 renamed it in 3.4).
            String recordCacheKey = since(version, 3, 4) ? "statestore.cache.max.bytes" : "cache.max.bytes.buffering";
            assertThat(agentLines)
                    .filteredOn(line -> line.contains("set " + recordCacheKey + ": 536870912 -> " + recordCache))
                    .hasSize(1);
            // The clients' own config dumps show the allocation too.
            String text = Files.readString(app.log);
            assertThat(text)
                    .contains("buffer.memory = "
                            + planned.allocation().streamsConfig().get("producer.buffer.memory"));
            assertThat(text)
                    .contains("fetch.max.bytes = "
                            + planned.allocation().streamsConfig().get("main.consumer.fetch.max.bytes"));
            if (jdk.equals("java17")) {
                // Read by src/scripts/compat-line.sh (make test, make test-compat): this version is bounded.
                Path results = Path.of(System.getProperty("streamsmemory.buildDir", "target"), "compat");
                Files.createDirectories(results);
                Files.writeString(results.resolve(version + ".result"), "bounded\n");
            }
            if (jdk.equals("java25")) {
                // Case 1: the application started and ran on Java 25 with the agent; its stricter batch.size kept.
                DoNoHarm.record(
                        1,
                        getClass(),
                        "theAgentBoundsARealApplication[java25]",
                        true,
                        "8192".equals(r.getProperty("config.producer.batch.size")) ? 0 : 1);
            }
        }
    }

    /**
     * Issue 14, part 1: transactional state stores (KIP-892) on. The policy declares them, the application enables
     * them, and Kafka Streams 4.4's own stream threads run on the allocation's statestore.uncommitted.max.bytes
     * (split among them) instead of the 64 MiB default, while the exactly-once output stays exact.
     */
    @Test
    void transactionalStateStoresRunOnTheAllocationsUncommittedBound() throws Exception {
        Path file = planned.dir().resolve("alloc-transactional.json");
        AllocationDocument transactional = writeAllocation(
                file, FACTS.toBuilder().transactionalStateStores(true).build());
        long bound = Long.parseLong(transactional.streamsConfig().get("statestore.uncommitted.max.bytes"));
        assertThat(bound).isPositive().isLessThan(64L << 20);
        AppRun.Launch launch = new AppRun.Launch();
        launch.option(transactional.jvmOptions().toArray(new String[0]));
        launch.option("-javaagent:" + AppRun.agentJar());
        launch.env("STREAMS_APP_TRANSACTIONAL_STATESTORES", "true");
        String topics = "txn-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app =
                AppRun.streamsApp(launch, planned.dir().resolve("app-transactional"), topics, THREADS, file)) {
            app.assertEveryKeyCounted(topics + "counts-out");
            app.assertEveryKeyCounted(topics + "window-out");
            Properties r = app.awaitReport();
            assertThat(r.getProperty("config.enable.transactional.statestores")).isEqualTo("true");
            assertThat(r.getProperty("config.statestore.uncommitted.max.bytes")).isEqualTo(Long.toString(bound));
            Map<String, String> perThread = select(r, "uncommittedPerThread.");
            assertThat(perThread).hasSize(THREADS);
            assertThat(perThread.values()).allSatisfy(v -> assertThat(v).isEqualTo(Long.toString(bound / THREADS)));
            List<String> agentLines = app.agentLines();
            assertThat(agentLines).noneMatch(line -> line.contains("WARN"));
            assertThat(agentLines)
                    .anyMatch(
                            line -> line.contains("statestore.uncommitted.max.bytes: 67108864 (default) -> " + bound));
            assertThat(r.getProperty("mbean.Status")).isEqualTo("active");
        }
    }

    private void assertBounded(Properties r, String version) {
        long capacity = planned.allocation().rocksdb().blockCacheCapacityBytes();
        long recordCache = Long.parseLong(planned.allocation().streamsConfig().get("statestore.cache.max.bytes"));
        Map<String, String> config = planned.allocation().streamsConfig();
        assertThat(r.getProperty("kafkaStreamsVersion")).isEqualTo(version);
        // Every store (every task's key-value store and windowed store) reports the one shared cache.
        Map<String, String> capacities = select(r, "metric.block-cache-capacity.");
        assertThat(capacities).hasSizeGreaterThanOrEqualTo(2 * PARTITIONS);
        // Before 3.5 Kafka's metric sums a timestamped store's two column families, which share the one cache.
        long shown = since(version, 3, 5) ? capacity : 2 * capacity;
        assertThat(capacities.values())
                .allSatisfy(v -> assertThat(Double.parseDouble(v)).isEqualTo(shown));
        // The record cache is the allocation's, split evenly over the stream threads.
        assertThat(r.getProperty("totalCacheSize")).isEqualTo(Long.toString(recordCache));
        Map<String, String> threadCaches = select(r, "threadCache.");
        assertThat(threadCaches).hasSize(THREADS);
        assertThat(threadCaches.values())
                .allSatisfy(v -> assertThat(v).isEqualTo(Long.toString(recordCache / THREADS)));
        // The clients are built from the allocation; the application's stricter batch.size is kept.
        assertThat(r.getProperty("config.main.consumer.fetch.max.bytes"))
                .isEqualTo(config.get("main.consumer.fetch.max.bytes"));
        assertThat(r.getProperty("config.restore.consumer.fetch.max.bytes"))
                .isEqualTo(config.get("restore.consumer.fetch.max.bytes"));
        assertThat(r.getProperty("config.producer.buffer.memory")).isEqualTo(config.get("producer.buffer.memory"));
        assertThat(r.getProperty("config.producer.batch.size")).isEqualTo("8192");
        // The user's setter ran for every RocksDB instance, and the bound was enforced after it.
        assertThat(r.getProperty("config.rocksdb.config.setter"))
                .contains("io.streamsmemory.agent.BoundedRocksDBConfigSetter");
        assertThat(Integer.parseInt(r.getProperty("userSetter.calls"))).isGreaterThanOrEqualTo(2 * PARTITIONS);
        // The agent's MBean.
        assertThat(r.getProperty("mbean.Status")).isEqualTo("active");
        assertThat(r.getProperty("mbean.AllocationHash"))
                .isEqualTo(planned.allocation().hash());
        assertThat(r.getProperty("mbean.KafkaStreamsVersion")).isEqualTo(version);
        assertThat(r.getProperty("mbean.BlockCacheCapacityBytes")).isEqualTo(Long.toString(capacity));
        // One flush thread per stream thread, set again after Kafka Streams reset the pool to one at each store open.
        assertThat(planned.allocation().rocksdb().backgroundFlushThreads()).isEqualTo(THREADS);
        assertThat(Integer.parseInt(r.getProperty("mbean.RocksDbInstances"))).isGreaterThanOrEqualTo(2 * PARTITIONS);
        if (rocksJava5(version)) {
            // Bounded all the same; RocksJava 5 can neither say the cache's usage nor name the flush pool.
            assertThat(r.getProperty("mbean.RocksDbFlushThreads")).isEqualTo("-1");
            assertThat(r.getProperty("mbean.BlockCacheUsageBytes")).isEqualTo("-1");
        } else {
            assertThat(r.getProperty("mbean.RocksDbFlushThreads")).isEqualTo(Integer.toString(THREADS));
            assertThat(Long.parseLong(r.getProperty("mbean.BlockCacheUsageBytes")))
                    .isPositive();
        }
        assertThat(r.getProperty("mbean.StreamThreads")).isEqualTo(Integer.toString(THREADS));
        assertThat(Integer.parseInt(r.getProperty("mbean.Tasks"))).isEqualTo(PARTITIONS);
        assertThat(r.getProperty("mbean.ChainedConfigSetters")).isEqualTo(UserSetter.class.getName());
        // The plan keeps the last level's Bloom filters, but the user's setter chose optimize_filters_for_hits.
        assertThat(planned.allocation().rocksdb().lastLevelFilters()).isTrue();
        assertThat(r.getProperty("mbean.KeptApplicationRocksDbOptions")).isEqualTo("optimize_filters_for_hits");
        assertThat(r.getProperty("mbean.StreamsInstances")).isEqualTo("1");
        assertThat(r.getProperty("mbean.JvmLimitMismatches")).isEqualTo("0");
    }

    @Test
    void aGarbledAllocationLeavesTheApplicationRunningOnItsOwnSettings() throws Exception {
        String topics = "garbled-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        Path dir = planned.dir().resolve("app-garbled");
        Files.createDirectories(dir);
        Path garbled = dir.resolve("alloc.json");
        Files.writeString(garbled, Files.readString(planned.file()).substring(0, 200));
        AppRun.Launch launch = new AppRun.Launch().option("-Xmx256m", "-javaagent:" + AppRun.agentJar());
        try (AppRun app = AppRun.streamsApp(launch, dir, topics, THREADS, garbled)) {
            app.assertEveryKeyCounted(topics + "counts-out");
            Properties r = app.awaitReport();
            assertThat(r.getProperty("totalCacheSize")).isEqualTo(Long.toString(512L << 20));
            assertThat(r.getProperty("config.rocksdb.config.setter")).contains(UserSetter.class.getName());
            List<String> agentLines = app.agentLines();
            assertThat(agentLines).hasSize(1);
            assertThat(agentLines.get(0)).contains("WARN", "truncated or garbled", "own memory settings");
        }
    }
}
