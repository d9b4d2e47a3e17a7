package io.streamsmemory.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent jar itself ({@code target/streams-memory-agent.jar}, built before the tests) in a real Kafka Streams
 * application in its own JVM, against a real KRaft broker, for Kafka Streams 4.4.0 and 3.9.1. Everything asserted
 * is what Kafka Streams itself reports.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentRealBrokerTest {
    private static final int THREADS = 2;
    private static final int PARTITIONS = 4;
    private static final int KEYS = 50;
    private static final int PER_KEY = 40;

    private final Path work = Path.of(System.getProperty("streamsmemory.buildDir", "target"), "it-agent");
    private KafkaBroker broker;
    private AllocationDocument allocation;
    private Path allocationFile;

    @BeforeAll
    void startBroker() throws Exception {
        deleteTree(work);
        Files.createDirectories(work);
        broker = KafkaBroker.start(work.resolve("broker"), KafkaBroker.testClasspath());
        WorkloadFacts facts = WorkloadFacts.builder().memoryBytes(1L << 30).streamThreads(THREADS)
                .partitions(PARTITIONS).stores(new StoreCounts(1, 1, 0)).build();
        String json = AllocationJson.write(new AllocationEngine().allocate(facts).allocation());
        allocation = AllocationJson.read(json);
        allocationFile = work.resolve("alloc.json");
        Files.writeString(allocationFile, json);
    }

    @AfterAll
    void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    static Stream<String> versions() {
        return Stream.of("4.4.0", System.getProperty("streamsmemory.oldKafkaVersion", "3.9.1"));
    }

    private String appClasspath(String version) throws Exception {
        String testClasses = Path.of(AgentRealBrokerTest.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI()).toString();
        if (version.equals("4.4.0")) {
            // The test classpath minus the agent's own classes and the engine: the agent jar brings its own.
            return KafkaBroker.classpathWithout(KafkaBroker.testClasspath(), "/agent/target/classes",
                    "/engine/target/classes", "streams-memory-engine");
        }
        Path dir = Path.of(System.getProperty("streamsmemory.oldKafkaDir"));
        List<String> entries = new ArrayList<>();
        entries.add(testClasses);
        try (Stream<Path> jars = Files.list(dir)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toString()));
        }
        return String.join(File.pathSeparator, entries);
    }

    @ParameterizedTest(name = "Kafka Streams {0}")
    @MethodSource("versions")
    void theAgentBoundsARealApplication(String version) throws Exception {
        String topics = "v" + version.replace('.', '_') + "-";
        broker.createTopics(PARTITIONS, topics + "input", topics + "counts-out", topics + "window-out");
        produceInput(topics + "input");

        Path dir = work.resolve("app-" + version);
        Files.createDirectories(dir);
        Path report = dir.resolve("report.properties");
        Path log = dir.resolve("app.log");
        Process app = startApp(version, dir, report, log, topics, allocationFile);
        try {
            Map<String, Long> counts = awaitCounts(topics + "counts-out", app, log);
            Map<String, Long> windowCounts = awaitCounts(topics + "window-out", app, log);
            assertThat(counts).hasSize(KEYS).allSatisfy((key, count) -> assertThat(count).isEqualTo(PER_KEY));
            assertThat(windowCounts).hasSize(KEYS).allSatisfy((key, count) -> assertThat(count).isEqualTo(PER_KEY));

            Properties r = awaitReport(report, app, log);
            long capacity = allocation.rocksdb().blockCacheCapacityBytes();
            long recordCache = Long.parseLong(allocation.streamsConfig().get("statestore.cache.max.bytes"));
            Map<String, String> config = allocation.streamsConfig();

            assertThat(r.getProperty("kafkaStreamsVersion")).isEqualTo(version);
            // Every store (every task's key-value store and windowed store) reports the one shared cache.
            Map<String, String> capacities = select(r, "metric.block-cache-capacity.");
            assertThat(capacities).hasSizeGreaterThanOrEqualTo(2 * PARTITIONS);
            assertThat(capacities.values()).allSatisfy(v -> assertThat(Double.parseDouble(v)).isEqualTo(capacity));
            // The record cache is the allocation's, split evenly over the stream threads.
            assertThat(r.getProperty("totalCacheSize")).isEqualTo(Long.toString(recordCache));
            Map<String, String> threadCaches = select(r, "threadCache.");
            assertThat(threadCaches).hasSize(THREADS);
            assertThat(threadCaches.values()).allSatisfy(v -> assertThat(v).isEqualTo(
                    Long.toString(recordCache / THREADS)));
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
            assertThat(r.getProperty("mbean.AllocationHash")).isEqualTo(allocation.hash());
            assertThat(r.getProperty("mbean.KafkaStreamsVersion")).isEqualTo(version);
            assertThat(r.getProperty("mbean.BlockCacheCapacityBytes")).isEqualTo(Long.toString(capacity));
            assertThat(Integer.parseInt(r.getProperty("mbean.RocksDbInstances")))
                    .isGreaterThanOrEqualTo(2 * PARTITIONS);
            assertThat(Long.parseLong(r.getProperty("mbean.BlockCacheUsageBytes"))).isPositive();
            assertThat(r.getProperty("mbean.StreamThreads")).isEqualTo(Integer.toString(THREADS));
            assertThat(Integer.parseInt(r.getProperty("mbean.Tasks"))).isEqualTo(PARTITIONS);
            assertThat(Long.parseLong(r.getProperty("mbean.MemtableUsageBytes"))).isGreaterThanOrEqualTo(0);
            assertThat(r.getProperty("mbean.ChainedConfigSetters")).isEqualTo(UserSetter.class.getName());

            List<String> agentLines = Files.readAllLines(log).stream()
                    .filter(line -> line.startsWith("[streams-memory-agent]")).toList();
            assertThat(agentLines).noneMatch(line -> line.contains("WARN"));
            assertThat(agentLines).filteredOn(line -> line.contains("streams-memory-agent ")
                    && line.contains(allocation.hash())).hasSize(1);
            assertThat(agentLines).filteredOn(line -> line.contains("set statestore.cache.max.bytes: 536870912 -> "
                    + recordCache)).hasSize(1);
            // The clients' own config dumps show the allocation too.
            String text = Files.readString(log);
            assertThat(text).contains("buffer.memory = " + config.get("producer.buffer.memory"));
            assertThat(text).contains("fetch.max.bytes = " + config.get("main.consumer.fetch.max.bytes"));
        } finally {
            stop(app);
        }
    }

    @Test
    void aGarbledAllocationLeavesTheApplicationRunningOnItsOwnSettings() throws Exception {
        String topics = "garbled-";
        broker.createTopics(PARTITIONS, topics + "input", topics + "counts-out", topics + "window-out");
        produceInput(topics + "input");
        Path dir = work.resolve("app-garbled");
        Files.createDirectories(dir);
        Path garbled = dir.resolve("alloc.json");
        Files.writeString(garbled, Files.readString(allocationFile).substring(0, 200));
        Path report = dir.resolve("report.properties");
        Path log = dir.resolve("app.log");
        Process app = startApp("4.4.0", dir, report, log, topics, garbled);
        try {
            Map<String, Long> counts = awaitCounts(topics + "counts-out", app, log);
            assertThat(counts).hasSize(KEYS).allSatisfy((key, count) -> assertThat(count).isEqualTo(PER_KEY));
            Properties r = awaitReport(report, app, log);
            assertThat(r.getProperty("totalCacheSize")).isEqualTo(Long.toString(512L << 20));
            assertThat(r.getProperty("config.rocksdb.config.setter")).contains(UserSetter.class.getName());
            List<String> agentLines = Files.readAllLines(log).stream()
                    .filter(line -> line.startsWith("[streams-memory-agent]")).toList();
            assertThat(agentLines).hasSize(1);
            assertThat(agentLines.get(0)).contains("WARN", "truncated or garbled", "own memory settings");
        } finally {
            stop(app);
        }
    }

    private Process startApp(String version, Path dir, Path report, Path log, String topics, Path allocationPath)
            throws Exception {
        String agentJar = System.getProperty("streamsmemory.agentJar");
        assertThat(Path.of(agentJar)).exists();
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-javaagent:" + agentJar,
                "-cp", appClasspath(version), StreamsApp.class.getName(),
                broker.bootstrap(), "app-" + topics.replace("-", ""), dir.resolve("state").toString(),
                report.toString(), Integer.toString(THREADS), topics);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().put("STREAMS_MEMORY_ALLOCATION", allocationPath.toString());
        return builder.start();
    }

    private static void stop(Process app) throws InterruptedException {
        app.destroy();
        if (!app.waitFor(30, TimeUnit.SECONDS)) {
            app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void produceInput(String topic) throws Exception {
        long timestamp = System.currentTimeMillis() / 3_600_000L * 3_600_000L + 60_000L;
        Map<String, Object> config = Map.of("bootstrap.servers", broker.bootstrap(), "acks", "all",
                "key.serializer", StringSerializer.class.getName(), "value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int round = 0; round < PER_KEY; round++) {
                for (int key = 0; key < KEYS; key++) {
                    producer.send(new ProducerRecord<>(topic, null, timestamp + round, "k" + key, "v" + round));
                }
            }
            producer.flush();
        }
    }

    private Map<String, Long> awaitCounts(String topic, Process app, Path log) throws Exception {
        Map<String, Object> config = Map.of("bootstrap.servers", broker.bootstrap(), "group.id", "check-" + topic,
                "auto.offset.reset", "earliest", "isolation.level", "read_committed", "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", LongDeserializer.class.getName());
        Map<String, Long> latest = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(500))) {
                    latest.put(record.key(), record.value());
                }
                if (latest.size() == KEYS && latest.values().stream().allMatch(v -> v == PER_KEY)) {
                    return latest;
                }
                if (!app.isAlive()) {
                    throw new AssertionError("the application exited:\n" + tail(log));
                }
            }
        }
        throw new AssertionError("no complete output on " + topic + " (" + latest.size() + " keys: " + latest
                + "):\n" + tail(log));
    }

    private static Properties awaitReport(Path report, Process app, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(report)) {
                Thread.sleep(1500); // one more report, written after the outputs were seen
                Properties props = new Properties();
                try (var reader = Files.newBufferedReader(report)) {
                    props.load(reader);
                }
                if ("RUNNING".equals(props.getProperty("state"))) {
                    return props;
                }
            }
            if (!app.isAlive()) {
                throw new AssertionError("the application exited:\n" + tail(log));
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no report from the application:\n" + tail(log));
    }

    private static Map<String, String> select(Properties props, String prefix) {
        Map<String, String> out = new HashMap<>();
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                out.put(name, props.getProperty(name));
            }
        }
        return out;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (Exception e) {
            return "(no log)";
        }
    }

    private static void deleteTree(Path root) throws Exception {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
