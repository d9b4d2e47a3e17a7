package io.streamsmemory.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Assumptions;

/**
 * One Kafka Streams application in its own JVM, with the agent jar as {@code -javaagent}, against the shared broker:
 * how it is started (which java, which JVM options and environment) and what the test reads from it (its output
 * topics, its report file, its log).
 */
final class AppRun implements AutoCloseable {
    static final int KEYS = 50;
    static final int PER_KEY = 40;
    static final String AGENT_PREFIX = "[streams-memory-agent]";

    final Path dir;
    final Path report;
    final Path log;
    private final Process process;
    private final KafkaBroker broker;

    private AppRun(Path dir, Process process, KafkaBroker broker) {
        this.dir = dir;
        this.report = dir.resolve("report.properties");
        this.log = dir.resolve("app.log");
        this.process = process;
        this.broker = broker;
    }

    /** An empty directory under the build directory for one test class's applications. */
    static Path freshDir(String name) throws Exception {
        Path dir = Path.of(System.getProperty("streamsmemory.buildDir", "target"), name);
        SharedBroker.deleteTree(dir);
        Files.createDirectories(dir);
        return dir;
    }

    /** The build's own JDK (17). */
    static String java17() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The Java 25 JDK's launcher; the calling test is skipped, saying why, when that JDK is not installed. */
    static String java25() {
        String java = System.getProperty("streamsmemory.java25", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        Assumptions.assumeTrue(
                Files.isExecutable(Path.of(java)),
                "no Java 25 JDK at " + java + " (set -Djava25.home=...): the Java 25 run is skipped");
        return java;
    }

    static String agentJar() {
        String jar = System.getProperty("streamsmemory.agentJar");
        assertThat(Path.of(jar)).exists();
        return jar;
    }

    /** What one forked JVM is given. */
    static final class Launch {
        String java = java17();
        final List<String> jvmOptions = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1"));
        final Map<String, String> env = new LinkedHashMap<>();
        String kafkaStreamsVersion = "4.4.0";
        String mainClass = StreamsApp.class.getName();
        /** An executable jar to run instead of {@code mainClass} on the test's classpath ({@code java -jar}). */
        Path jar;

        Launch option(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        Launch env(String name, String value) {
            env.put(name, value);
            return this;
        }
    }

    /** Starts the JVM; {@code args} follow the main class, {@code dir} holds its state, report and log. */
    static AppRun start(Launch launch, Path dir, List<String> args) throws Exception {
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>();
        command.add(launch.java);
        command.addAll(launch.jvmOptions);
        if (launch.jar != null) {
            command.add("-jar");
            command.add(launch.jar.toString());
        } else {
            command.add("-cp");
            command.add(classpath(launch.kafkaStreamsVersion));
            command.add(launch.mainClass);
        }
        command.addAll(args);
        AppRun run = new AppRun(dir, null, SharedBroker.get());
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(run.log.toFile());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().remove("STREAMS_MEMORY_ALLOCATION");
        builder.environment().putAll(launch.env);
        Files.writeString(dir.resolve("command.txt"), String.join(" ", command) + "\n" + launch.env + "\n");
        return new AppRun(dir, builder.start(), run.broker);
    }

    /** StreamsApp (one instance) reading {@code topics}input, with the allocation from {@code allocation}. */
    static AppRun streamsApp(Launch launch, Path dir, String topics, int threads, Path allocation) throws Exception {
        launch.env("STREAMS_MEMORY_ALLOCATION", allocation.toString());
        return start(
                launch,
                dir,
                List.of(
                        SharedBroker.get().bootstrap(),
                        "app-" + topics.replace("-", ""),
                        dir.resolve("state").toString(),
                        dir.resolve("report.properties").toString(),
                        Integer.toString(threads),
                        topics));
    }

    /** Creates the topics and writes KEYS x PER_KEY records to {@code topics}input. */
    static void prepareTopics(String topics, int partitions, String... outputs) throws Exception {
        KafkaBroker broker = SharedBroker.get();
        List<String> names = new ArrayList<>();
        names.add(topics + "input");
        for (String output : outputs) {
            names.add(topics + output);
        }
        broker.createTopics(partitions, names.toArray(new String[0]));
        long timestamp = System.currentTimeMillis() / 3_600_000L * 3_600_000L + 60_000L;
        // Long timeouts and one request in flight: on a loaded 2-core machine a timed-out first batch made the
        // idempotent producer drop records (OutOfOrderSequenceException) and the counts came out short.
        Map<String, Object> config = Map.of(
                "bootstrap.servers",
                broker.bootstrap(),
                "acks",
                "all",
                "max.in.flight.requests.per.connection",
                1,
                "request.timeout.ms",
                120_000,
                "delivery.timeout.ms",
                300_000,
                "key.serializer",
                StringSerializer.class.getName(),
                "value.serializer",
                StringSerializer.class.getName());
        List<Future<?>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int round = 0; round < PER_KEY; round++) {
                for (int key = 0; key < KEYS; key++) {
                    sent.add(producer.send(
                            new ProducerRecord<>(topics + "input", null, timestamp + round, "k" + key, "v" + round)));
                }
            }
            producer.flush();
            for (Future<?> result : sent) {
                result.get(); // every input record is there, or the test says why here
            }
        }
    }

    /** Waits until every key's latest count on {@code topic} is PER_KEY: the application processed every record. */
    Map<String, Long> awaitCounts(String topic) throws Exception {
        Map<String, Object> config = Map.of(
                "bootstrap.servers",
                broker.bootstrap(),
                "group.id",
                "check-" + topic,
                "auto.offset.reset",
                "earliest",
                "isolation.level",
                "read_committed",
                "key.deserializer",
                StringDeserializer.class.getName(),
                "value.deserializer",
                LongDeserializer.class.getName());
        Map<String, Long> latest = new HashMap<>();
        // Generous: on a loaded 2-core machine (make test's lanes beside this module's nice 5) a run once spent two
        // minutes rebalancing (CI, 2026-12-05); a deadline only matters when something is wrong.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(500))) {
                    latest.put(record.key(), record.value());
                }
                if (latest.size() == KEYS && latest.values().stream().allMatch(v -> v == PER_KEY)) {
                    return latest;
                }
                if (!process.isAlive()) {
                    throw new AssertionError("the application exited:\n" + tail());
                }
                if (inError()) {
                    throw new AssertionError(
                            "the application's Kafka Streams is in ERROR (its report says so):\n" + tail());
                }
            }
        }
        throw new AssertionError("no complete output on " + topic + " (" + latest.size() + " keys: " + latest + "):\n"
                + tail() + "\n" + threadDump());
    }

    /** Waits for {@code topic}'s counts, then asserts them: every key counted, each PER_KEY times. */
    void assertEveryKeyCounted(String topic) throws Exception {
        assertThat(awaitCounts(topic))
                .hasSize(KEYS)
                .allSatisfy((key, count) -> assertThat(count).isEqualTo(PER_KEY));
    }

    /** The application's latest report once every instance is RUNNING (read after its outputs were seen). */
    Properties awaitReport() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (Files.exists(report)) {
                Thread.sleep(1500); // one more report, written after the outputs were seen
                Properties props = new Properties();
                try (var reader = Files.newBufferedReader(report)) {
                    props.load(reader);
                }
                if (allRunning(props)) {
                    return props;
                }
            }
            if (!process.isAlive()) {
                throw new AssertionError("the application exited:\n" + tail());
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no report from the application:\n" + tail());
    }

    /** Whether the application's latest report has an instance in ERROR: no output will ever come. */
    private boolean inError() {
        Properties props = new Properties();
        try (var reader = Files.newBufferedReader(report)) {
            props.load(reader);
        } catch (Exception e) {
            return false; // no report yet, or one being written
        }
        return props.entrySet().stream()
                .anyMatch(e -> e.getKey().toString().endsWith("state") && "ERROR".equals(e.getValue()));
    }

    private static boolean allRunning(Properties props) {
        int instances = Integer.parseInt(props.getProperty("instances", "1"));
        for (int n = 1; n <= instances; n++) {
            if (!"RUNNING".equals(props.getProperty((n == 1 ? "" : "i" + n + ".") + "state"))) {
                return false;
            }
        }
        return true;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** VmRSS of the application's /proc/<pid>/status, in bytes. */
    long rssBytes() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
            }
        }
        throw new AssertionError("no VmRSS for " + pid());
    }

    /**
     * The TCP ports the application's own sockets listen on: its socket inodes (/proc/<pid>/fd) matched with the
     * LISTEN (0A) rows of /proc/net/tcp and tcp6.
     */
    Set<Integer> listeningPorts() throws Exception {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid()), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while listing
                }
            }
        }
        Set<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            // Read once: the table changes between two reads while other processes open sockets.
            List<String> rows = Files.readAllLines(file);
            for (String line : rows.subList(1, rows.size())) {
                String[] cols = line.trim().split("\\s+");
                if (cols.length > 9 && cols[3].equals("0A") && inodes.contains(cols[9])) {
                    ports.add(Integer.parseInt(cols[1].substring(cols[1].lastIndexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }

    /** The names of the application's threads (the kernel keeps the first 15 characters). */
    List<String> threadNames() throws Exception {
        List<String> names = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid()), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    names.add(Files.readString(task.resolve("comm")).trim());
                } catch (IOException ended) {
                    // the thread ended while listing
                }
            }
        }
        return names;
    }

    /** The agent's own output lines. */
    List<String> agentLines() throws Exception {
        return Files.readAllLines(log).stream()
                .filter(line -> line.startsWith(AGENT_PREFIX))
                .toList();
    }

    /**
     * The application's threads (jcmd Thread.print), kept in threads.txt beside its log, and the stream threads' stacks
     * for a failure's message: whether it waits on a lock of the agent's or is only slow.
     */
    String threadDump() {
        try {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .start();
            String threads = new String(dump.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            dump.waitFor(30, TimeUnit.SECONDS);
            Files.writeString(dir.resolve("threads.txt"), threads);
            return "threads (" + dir.resolve("threads.txt") + "):\n"
                    + java.util.Arrays.stream(threads.split("\n\n"))
                            .filter(t -> t.contains("StreamThread") || t.contains("streams-memory"))
                            .collect(java.util.stream.Collectors.joining("\n\n"));
        } catch (Exception e) {
            return "(no thread dump: " + e + ")";
        }
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (Exception e) {
            return "(no log)";
        }
    }

    static Map<String, String> select(Properties props, String prefix) {
        Map<String, String> out = new HashMap<>();
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                out.put(name, props.getProperty(name));
            }
        }
        return out;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Kafka Streams {@code version}'s jars, resolved by Maven (once; then from the script's cache). */
    private static String resolvedClasspath(String version) throws Exception {
        Process resolve = new ProcessBuilder("bash", "../scripts/kafka-streams-classpath.sh", version)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String classpath = new String(resolve.getInputStream().readAllBytes()).trim();
        assertThat(resolve.waitFor(5, TimeUnit.MINUTES))
                .as("resolving Kafka Streams %s", version)
                .isTrue();
        assertThat(resolve.exitValue())
                .as("kafka-streams-classpath.sh %s", version)
                .isZero();
        return classpath;
    }

    /**
     * The application's classpath: Kafka Streams 4.4.0 from the test classpath, the copied 3.9.1 jars, or any other
     * version as src/scripts/kafka-streams-classpath.sh resolves it (the compatibility runs).
     */
    static String classpath(String version) throws Exception {
        String testClasses = Path.of(AppRun.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        if (version.equals("4.4.0")) {
            // The test classpath minus the agent's own classes and the engine: the agent jar brings its own.
            return KafkaBroker.classpathWithout(
                    KafkaBroker.testClasspath(),
                    "/agent/target/classes",
                    "/engine/target/classes",
                    "streams-memory-engine");
        }
        if (!version.equals(System.getProperty("streamsmemory.oldKafkaVersion", "3.9.1"))) {
            return testClasses + File.pathSeparator + resolvedClasspath(version);
        }
        Path dir = Path.of(System.getProperty("streamsmemory.oldKafkaDir"));
        List<String> entries = new ArrayList<>();
        entries.add(testClasses);
        try (Stream<Path> jars = Files.list(dir)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toString()));
        }
        return String.join(File.pathSeparator, entries);
    }
}
