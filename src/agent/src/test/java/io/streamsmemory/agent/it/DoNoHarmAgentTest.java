package io.streamsmemory.agent.it;

import static io.streamsmemory.agent.it.AgentRealBrokerTest.PARTITIONS;
import static io.streamsmemory.agent.it.AgentRealBrokerTest.THREADS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.agent.DoNoHarm;
import io.streamsmemory.agent.allocation.Allocations;
import io.streamsmemory.agent.report.LocalHttp;
import io.streamsmemory.engine.Part;
import io.streamsmemory.engine.json.AllocationDocument;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The agent's cases of issue 9 ("do no harm in the pod"), each in a forked application JVM on the real broker: the
 * application always starts, processes every record, and keeps the settings the agent must not take from it. Each
 * test ends by writing its do-no-harm line from what it measured.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("kafka-broker")
class DoNoHarmAgentTest {
    private static final long APP_RECORD_CACHE = 512L << 20;
    private PlannedWork planned;

    @BeforeAll
    void writeAllocation() throws Exception {
        planned = PlannedWork.fresh("it-do-no-harm", AgentRealBrokerTest.FACTS);
    }

    /**
     * Case 1. No Java 8 JDK exists here, so a test-only agent placed before ours makes the JVM report
     * {@code java.specification.version=1.8}, exactly what a Java 8 JVM reports, and restores it after ours. What
     * this proves: the entry point's check, on the value a Java 8 JVM gives, warns once, loads no other class of the
     * agent jar, and the application runs on its own settings. What it does not: that a Java 8 JVM loads class file
     * 52 (AgentEntryBytecodeTest checks the bytes instead).
     */
    @Test
    void belowJava11TheAgentWarnsOnceAndTheApplicationRunsOnItsOwnSettings() throws Exception {
        Path versionAgent = javaVersionAgentJar();
        Path classLoads = planned.dir().resolve("java8").resolve("class-load.log");
        Files.createDirectories(classLoads.getParent());
        AppRun.Launch launch = new AppRun.Launch()
                .option(
                        "-Xmx256m",
                        "-Xlog:class+load=info:file=" + classLoads,
                        "-javaagent:" + versionAgent + "=1.8",
                        "-javaagent:" + AppRun.agentJar(),
                        "-javaagent:" + versionAgent + "=restore");
        String topics = "java8-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app = AppRun.streamsApp(launch, planned.dir().resolve("java8"), topics, THREADS, planned.file())) {
            app.awaitCounts(topics + "counts-out");
            Properties r = app.awaitReport();
            assertThat(app.agentLines())
                    .containsExactly("[streams-memory-agent] WARN streams-memory-agent is not "
                            + "active: Java 1.8 is below 11; the application runs on its own settings");
            // Nothing from the agent jar but its entry point was ever loaded.
            String jar = Path.of(AppRun.agentJar()).getFileName().toString();
            List<String> fromAgentJar = Files.readAllLines(classLoads).stream()
                    .filter(line -> line.contains(jar))
                    .map(line -> line.replaceAll("^.*\\] (\\S+) source:.*$", "$1"))
                    .collect(Collectors.toList());
            assertThat(fromAgentJar).containsExactly("io.streamsmemory.agent.StreamsMemoryAgent");
            assertThat(r.getProperty("mbean.Status")).isNull();
            int lost = lostAppSettings(r, "");
            assertThat(lost).isZero();
            DoNoHarm.record(
                    1, getClass(), "belowJava11TheAgentWarnsOnceAndTheApplicationRunsOnItsOwnSettings", true, lost);
        }
    }

    /** The application's own record cache, batch.size and RocksDB setter, as Kafka Streams holds them. */
    private static int lostAppSettings(Properties r, String prefix) {
        int lost = 0;
        lost += Long.toString(APP_RECORD_CACHE).equals(r.getProperty(prefix + "totalCacheSize")) ? 0 : 1;
        lost += "8192".equals(r.getProperty(prefix + "config.producer.batch.size")) ? 0 : 1;
        lost += String.valueOf(r.getProperty(prefix + "config.rocksdb.config.setter"))
                        .contains(UserSetter.class.getName())
                ? 0
                : 1;
        return lost;
    }

    private Path javaVersionAgentJar() throws Exception {
        Path jar = planned.dir().resolve("java-version-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), JavaVersionAgent.class.getName());
        String entry = JavaVersionAgent.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry(entry));
            out.write(JavaVersionAgent.class
                    .getClassLoader()
                    .getResourceAsStream(entry)
                    .readAllBytes());
            out.closeEntry();
        }
        return jar;
    }

    /**
     * Case 3. The webhook's flags in JAVA_TOOL_OPTIONS, and a larger -Xmx and a MaxMetaspaceSize in JDK_JAVA_OPTIONS
     * (the launcher puts those after JAVA_TOOL_OPTIONS, so they win, as they would in a pod).
     */
    @Test
    void aConflictingXmxIsReportedOnceWithTheHeapInForce() throws Exception {
        long plannedHeap = part("heap");
        long userHeapMiB = plannedHeap / (1 << 20) + 256;
        int reportPort = LocalHttp.freePort();
        AppRun.Launch launch = new AppRun.Launch()
                .option("-javaagent:" + AppRun.agentJar())
                .env("JAVA_TOOL_OPTIONS", String.join(" ", planned.allocation().jvmOptions()))
                .env("JDK_JAVA_OPTIONS", "-Xmx" + userHeapMiB + "m -XX:MaxMetaspaceSize=256m")
                .env("STREAMS_MEMORY_REPORT_PORT", Integer.toString(reportPort));
        String topics = "xmx-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app = AppRun.streamsApp(launch, planned.dir().resolve("xmx"), topics, THREADS, planned.file())) {
            app.awaitCounts(topics + "counts-out");
            Properties r = app.awaitReport();
            List<String> warnings = app.agentLines().stream()
                    .filter(line -> line.contains(" WARN "))
                    .collect(Collectors.toList());
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0))
                    .contains("heap in force", "MaxMetaspaceSize in force 256.00 MiB")
                    .doesNotContain("MaxDirectMemorySize");
            long maxMemory = Long.parseLong(r.getProperty("runtime.maxMemory"));
            assertThat(r.getProperty("mbean.EffectiveHeapBytes")).isEqualTo(Long.toString(maxMemory));
            assertThat(r.getProperty("mbean.PlannedHeapBytes")).isEqualTo(Long.toString(plannedHeap));
            assertThat(r.getProperty("mbean.PlannedMaxMetaspaceBytes")).isEqualTo(Long.toString(part("jvm-metaspace")));
            assertThat(r.getProperty("mbean.EffectiveMaxMetaspaceBytes")).isEqualTo(Long.toString(256L << 20));
            assertThat(r.getProperty("mbean.EffectiveMaxDirectMemoryBytes"))
                    .isEqualTo(Long.toString(part("jvm-direct-memory")));
            assertThat(r.getProperty("mbean.JvmLimitMismatches")).isEqualTo("2");
            assertThat(r.getProperty("mbean.JvmLimitMismatches.heap")).contains("in force");
            // The report names the flag that won and both heaps, for the operator's Warning (issue 46).
            JsonNode report = new ObjectMapper()
                    .readTree(LocalHttp.get(HttpClient.newHttpClient(), reportPort, "/report", Duration.ofSeconds(30))
                            .body());
            assertThat(report.get("heapFlag").asText()).isEqualTo("-Xmx" + userHeapMiB + "m");
            assertThat(report.at("/jvm/plannedHeapMaxBytes").asLong()).isEqualTo(plannedHeap);
            assertThat(report.at("/jvm/heapMaxBytes").asLong()).isGreaterThan(plannedHeap);
            // The user's heap is the one in force (maxMemory is at most 1/8 below -Xmx, see JvmLimits).
            int lost = maxMemory > (userHeapMiB << 20) * 7 / 8 && maxMemory <= (userHeapMiB + 2) << 20 ? 0 : 1;
            assertThat(lost).isZero();
            DoNoHarm.record(3, getClass(), "aConflictingXmxIsReportedOnceWithTheHeapInForce", true, lost);
        }
    }

    /**
     * Case 8. An allocation ConfigMap edited by hand: a key the engine never emits ({@code max.poll.records: 0}, which
     * Kafka's consumer refuses) and an engine key with a value the application's ConfigDef rejects (fetch.max.bytes is
     * an INT; 3,000,000,000 does not fit). Before, the first made the application's consumer throw at start.
     */
    @Test
    void keysTheEngineDoesNotEmitAndValuesKafkaRejectsAreSkipped() throws Exception {
        Path tampered = planned.dir().resolve("tampered-alloc.json");
        Files.writeString(
                tampered,
                new ObjectMapper().writeValueAsString(Allocations.editedByHand(Files.readString(planned.file()))));
        AppRun.Launch launch = new AppRun.Launch()
                .option(planned.allocation().jvmOptions().toArray(new String[0]))
                .option("-javaagent:" + AppRun.agentJar());
        String topics = "tampered-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app = AppRun.streamsApp(launch, planned.dir().resolve("tampered"), topics, THREADS, tampered)) {
            app.awaitCounts(topics + "counts-out");
            Properties r = app.awaitReport();
            assertThat(r.getProperty("mbean.SkippedKeys.main.consumer.max.poll.records"))
                    .contains("not a key the allocation engine emits");
            assertThat(r.getProperty("mbean.SkippedKeys.main.consumer.fetch.max.bytes"))
                    .contains("rejected by Kafka 4.4.0", "the application keeps its own value");
            assertThat(app.agentLines())
                    .filteredOn(line -> line.contains("not applied: main.consumer."))
                    .hasSize(2);
            // The other keys still apply.
            assertThat(r.getProperty("config.producer.buffer.memory"))
                    .isEqualTo(planned.allocation().streamsConfig().get("producer.buffer.memory"));
            // The application keeps its own values: its max.poll.records, and no fetch.max.bytes set (the
            // consumer's default applies).
            int lost = ("250".equals(r.getProperty("config.main.consumer.max.poll.records")) ? 0 : 1)
                    + (r.getProperty("config.main.consumer.fetch.max.bytes") == null ? 0 : 1);
            assertThat(lost).isZero();
            DoNoHarm.record(8, getClass(), "keysTheEngineDoesNotEmitAndValuesKafkaRejectsAreSkipped", true, lost);
        }
    }

    private long part(String name) {
        return planned.allocation().parts().stream()
                .filter(p -> p.name().equals(name))
                .mapToLong(Part::bytes)
                .findFirst()
                .orElseThrow();
    }

    /** The bytes of the part {@code name} one level below {@code document}'s top-level parts. */
    private static long subPart(AllocationDocument document, String name) {
        return document.parts().stream()
                .flatMap(p -> p.parts().stream())
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow()
                .bytes();
    }

    /** Case 2, beyond the plan: a second instance in a JVM planned for one gets at most half of the JVM's bound. */
    @Test
    void anUnplannedSecondInstanceGetsAtMostAnEqualShare() throws Exception {
        Properties r =
                runInstances("unplanned-", planned.file(), planned.allocation().jvmOptions(), 2);
        Map<String, String> config = planned.allocation().streamsConfig();
        for (String key : List.of(
                "statestore.cache.max.bytes",
                "producer.buffer.memory",
                "main.consumer.fetch.max.bytes",
                "restore.consumer.fetch.max.bytes")) {
            long planned = Long.parseLong(config.get(key));
            assertThat(instanceValue(r, "", key)).as("instance 1 " + key).isEqualTo(planned);
            assertThat(instanceValue(r, "i2.", key)).as("instance 2 " + key).isEqualTo(planned / 2);
        }
        assertThat(r.getProperty("mbean.StreamsInstances")).isEqualTo("2");
        assertThat(r.getProperty("mbean.PlannedStreamsInstances")).isEqualTo("1");
        int lost = appBatchLost(r, 2);
        assertThat(lost).isZero();
        DoNoHarm.record(2, getClass(), "anUnplannedSecondInstanceGetsAtMostAnEqualShare", true, lost);
    }

    /** Case 2, as planned: two instances in one JVM together stay within the pod's record cache and client buffers. */
    @Test
    void plannedInstancesTogetherStayWithinThePerJvmAllocation() throws Exception {
        Path file = planned.dir().resolve("alloc-2-instances.json");
        AllocationDocument planned = AgentRealBrokerTest.writeAllocation(
                file, AgentRealBrokerTest.FACTS.toBuilder().instancesPerPod(2).build());
        Properties r = runInstances("planned-", file, planned.jvmOptions(), 2);
        long cache = 0;
        long clients = 0;
        for (String prefix : List.of("", "i2.")) {
            cache += Long.parseLong(r.getProperty(prefix + "totalCacheSize"));
            int threads = Integer.parseInt(r.getProperty(prefix + "threads"));
            clients += threads
                    * (instanceValue(r, prefix, "producer.buffer.memory")
                            + instanceValue(r, prefix, "main.consumer.fetch.max.bytes")
                            + instanceValue(r, prefix, "restore.consumer.fetch.max.bytes"));
        }
        long cachePart = subPart(planned, "record-cache");
        long clientPart = subPart(planned, "client-buffers");
        assertThat(cache).isPositive().isLessThanOrEqualTo(cachePart);
        assertThat(clients).isPositive().isLessThanOrEqualTo(clientPart);
        assertThat(r.getProperty("mbean.StreamsInstances")).isEqualTo("2");
        assertThat(r.getProperty("mbean.PlannedStreamsInstances")).isEqualTo("2");
        int lost = appBatchLost(r, 2);
        assertThat(lost).isZero();
        DoNoHarm.record(2, getClass(), "plannedInstancesTogetherStayWithinThePerJvmAllocation", true, lost);
    }

    /** The application's stricter batch.size (8192) must survive in every instance. */
    private static int appBatchLost(Properties r, int instances) {
        int lost = 0;
        for (int n = 1; n <= instances; n++) {
            lost += "8192".equals(r.getProperty((n == 1 ? "" : "i" + n + ".") + "config.producer.batch.size")) ? 0 : 1;
        }
        return lost;
    }

    /** The value Kafka Streams holds for an allocation key in one instance (the record cache: its total). */
    private static long instanceValue(Properties r, String prefix, String key) {
        String reported =
                key.equals("statestore.cache.max.bytes") ? prefix + "totalCacheSize" : prefix + "config." + key;
        return Long.parseLong(r.getProperty(reported));
    }

    private Properties runInstances(String topics, Path allocationPath, List<String> jvmOptions, int instances)
            throws Exception {
        String[] outputs = new String[instances];
        for (int n = 1; n <= instances; n++) {
            outputs[n - 1] = "counts-out-" + n;
        }
        AppRun.prepareTopics(topics, PARTITIONS, outputs);
        AppRun.Launch launch = new AppRun.Launch()
                .option(jvmOptions.toArray(new String[0]))
                .option("-javaagent:" + AppRun.agentJar())
                .env("STREAMS_MEMORY_ALLOCATION", allocationPath.toString());
        launch.mainClass = MultiInstanceApp.class.getName();
        Path dir = planned.dir().resolve(topics.replace("-", ""));
        try (AppRun app = AppRun.start(
                launch,
                dir,
                List.of(
                        SharedBroker.get().bootstrap(),
                        dir.resolve("state").toString(),
                        dir.resolve("report.properties").toString(),
                        Integer.toString(THREADS),
                        topics,
                        Integer.toString(instances)))) {
            for (String output : outputs) {
                app.awaitCounts(topics + output);
            }
            Properties r = app.awaitReport();
            assertThat(r.getProperty("instances")).isEqualTo(Integer.toString(instances));
            List<String> warnings = app.agentLines().stream()
                    .filter(line -> line.contains(" WARN "))
                    .collect(Collectors.toList());
            if (allocationPath.equals(planned.file())) {
                assertThat(warnings).hasSize(1);
                assertThat(warnings.get(0)).contains("2 KafkaStreams instances", "planned for 1", "instancesPerPod");
            } else {
                assertThat(warnings).isEmpty();
            }
            return r;
        }
    }
}
