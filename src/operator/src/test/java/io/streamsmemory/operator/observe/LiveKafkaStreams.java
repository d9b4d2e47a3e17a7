package io.streamsmemory.operator.observe;

import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.engine.testkit.SingleNodeKafka;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.ToolProvider;

/**
 * A real Kafka Streams application JVM with the real agent, on a real single-node KRaft broker, each in its own
 * process from the agent module's test classpath ({@link AgentBuild}): the broker as
 * src/agent/src/test/java/io/streamsmemory/agent/it/KafkaBroker.java starts it, the application
 * src/scripts/local/OrdersStreamsApp.java (make run's, compiled once per test JVM) with the
 * allocation's JVM options, {@code -javaagent}, the allocation file and {@code STREAMS_MEMORY_REPORT_PORT}, as the
 * webhook would give its pod. Both processes end in {@link #close()}, also when starting fails half-way, and at the
 * latest when the test JVM exits.
 */
final class LiveKafkaStreams implements AutoCloseable {
    static final Path APP_SOURCE = Path.of("../scripts/local/OrdersStreamsApp.java");
    private static final String APP_CLASS = "OrdersStreamsApp";
    /** Where {@link #APP_SOURCE} is compiled to, once per test JVM; null until then. */
    private static Path compiledApp;
    /**
     * OrdersStreamsApp's key-value stores per task, each one RocksDB instance from the task's start (its window store
     * opens its first segment's instance only when the record cache first flushes, at the first commit: 30 s later).
     */
    static final int KEY_VALUE_STORES_PER_TASK = 2;

    /**
     * The longest a broker or an application may take to start: 20-40 s on a quiet machine; make test's other lanes
     * (the agent module's own brokers, the real node's pods) can make it take four times as long.
     */
    static final Duration START = Duration.ofSeconds(240);
    /** A fixed Kafka cluster id (a Uuid not starting with '-', which the format tool would take for an option). */
    private static final String CLUSTER_ID = "c3RyZWFtc21lbW9yeS1sbw";
    /** Both JVMs log through slf4j-simple (the agent module's test classpath): with the time, for a slow start. */
    private static final List<String> LOG_TIMES = List.of(
            "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");

    private static final Pattern STREAMS_JAR = Pattern.compile("kafka-streams-([0-9][^/]*)\\.jar$");

    private final Path dir;
    private final int reportPort;
    private final List<Process> processes = new ArrayList<>(); // in start order
    private final Thread reaper = new Thread(this::destroyAll, "live-kafka-streams-reaper");
    private final ReportReader reader = new ReportReader(Duration.ofSeconds(5));
    private String classpath;
    private String bootstrap;
    private int threads;
    private int partitions;
    private Map<String, String> appEnv = Map.of();

    /** In every credential the application's config carries ({@link #writeSecrets}), and in nothing else. */
    static final String SECRET_MARKER = "S3CRET";

    private LiveKafkaStreams(Path dir, int reportPort) {
        this.dir = dir;
        this.reportPort = reportPort;
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /**
     * The broker, then the application with {@code threads} stream threads over {@code partitions} input partitions
     * and {@code allocationJson} (a published ConfigMap's {@code allocation.json}); returns once its agent reports
     * every task running with its key-value stores open.
     */
    static LiveKafkaStreams start(Path dir, String allocationJson, int reportPort, int threads, int partitions)
            throws Exception {
        return start(dir, allocationJson, reportPort, threads, partitions, Map.of());
    }

    /** As above, the application's JVM with {@code appEnv} besides (OrdersStreamsApp's ORDERS_APP_LOAD, say). */
    static LiveKafkaStreams start(
            Path dir, String allocationJson, int reportPort, int threads, int partitions, Map<String, String> appEnv)
            throws Exception {
        String classpath =
                Files.readString(AgentBuild.require(AgentBuild.TEST_CLASSPATH)).trim();
        AgentBuild.require(AgentBuild.AGENT_JAR);
        deleteTree(dir);
        Files.createDirectories(dir.resolve("broker"));
        LiveKafkaStreams live = new LiveKafkaStreams(dir, reportPort);
        try {
            live.classpath = classpath;
            live.bootstrap = live.startBroker(classpath);
            live.threads = threads;
            live.partitions = partitions;
            live.appEnv = appEnv;
            live.startApp(allocationJson);
            return live;
        } catch (Exception | Error e) {
            live.close();
            throw e;
        }
    }

    /** The Kafka Streams version the application runs: the kafka-streams jar of the agent module's test classpath. */
    static String kafkaStreamsVersion() throws IOException {
        for (String entry : Files.readString(AgentBuild.require(AgentBuild.TEST_CLASSPATH))
                .trim()
                .split(File.pathSeparator)) {
            Matcher jar = STREAMS_JAR.matcher(entry);
            if (jar.find()) {
                return jar.group(1);
            }
        }
        throw new IllegalStateException("no kafka-streams jar in " + AgentBuild.TEST_CLASSPATH);
    }

    int reportPort() {
        return reportPort;
    }

    /** The agent's report now, as the operator reads it. */
    AgentReport report() throws IOException {
        return reader.read("127.0.0.1", reportPort);
    }

    /** Formats the storage, starts {@code kafka.Kafka} and waits until it listens; returns its bootstrap address. */
    private String startBroker(String classpath) throws Exception {
        int port = freePort();
        int controllerPort = freePort();
        while (controllerPort == port) {
            // The kernel can hand out the port it just took back (.ci/run, 2026-12-06: both listeners on one port, and
            // the storage format refused the config).
            controllerPort = freePort();
        }
        Path config = dir.resolve("broker/server.properties");
        Files.writeString(config, SingleNodeKafka.serverProperties(port, controllerPort, dir.resolve("broker/data")));
        Process format = java(
                List.of(
                        "-Xmx256m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        classpath,
                        "kafka.tools.StorageTool",
                        "format",
                        "-t",
                        CLUSTER_ID,
                        "-c",
                        config.toString()),
                Map.of(),
                "broker-format.log");
        if (!format.waitFor(START.toSeconds(), TimeUnit.SECONDS) || format.exitValue() != 0) {
            throw new IllegalStateException("formatting the broker's storage failed:\n" + tail("broker-format.log"));
        }
        Process broker = java(
                List.of(
                        "-Xmx512m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        classpath,
                        "kafka.Kafka",
                        config.toString()),
                Map.of(),
                "broker.log");
        long deadline = System.nanoTime() + START.toNanos();
        while (!listening(port)) {
            if (!broker.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the broker does not listen on 127.0.0.1:" + port + ":\n" + tail("broker.log"));
            }
            Thread.sleep(200);
        }
        return "127.0.0.1:" + port;
    }

    /**
     * Stops the application's JVM and starts it again on {@code allocationJson}, as a rollout restarts a pod (same
     * broker, same state directory); returns once its agent reports the new allocation with every task running.
     */
    void restartApp(String allocationJson) throws Exception {
        restartApp(allocationJson, Map.of());
    }

    /** As above, the application's JVM started again with {@code moreEnv} besides its own (a slower application). */
    void restartApp(String allocationJson, Map<String, String> moreEnv) throws Exception {
        Map<String, String> env = new java.util.HashMap<>(appEnv);
        env.putAll(moreEnv);
        appEnv = Map.copyOf(env);
        Process app;
        synchronized (processes) {
            app = processes.remove(processes.size() - 1);
        }
        app.destroy();
        if (!app.waitFor(30, TimeUnit.SECONDS)) {
            app.destroyForcibly().waitFor();
        }
        startApp(allocationJson);
    }

    /** Starts the application on {@code allocationJson}; returns once its agent reports every task running. */
    private void startApp(String allocationJson) throws Exception {
        launchApp(allocationJson);
        String hash = AllocationJson.read(allocationJson).hash();
        awaitReport(r -> hash.equals(r.allocationHash())
                && r.activeTasks() != null
                && r.activeTasks() == partitions
                && r.rocksDbInstances() != null
                && r.rocksDbInstances() >= (long) partitions * KEY_VALUE_STORES_PER_TASK);
    }

    /**
     * {@link #APP_SOURCE} compiled once per test JVM, instead of by the single-file source launcher in every
     * application JVM: a javac run each, seconds of CPU on a machine make test's lanes keep busy.
     */
    private static synchronized Path compiledApp(String appClasspath) {
        if (compiledApp == null) {
            Path out = Path.of("target/live-app");
            int exit = ToolProvider.getSystemJavaCompiler()
                    .run(null, null, null, "-d", out.toString(), "-cp", appClasspath, APP_SOURCE.toString());
            if (exit != 0) {
                throw new IllegalStateException("javac " + APP_SOURCE + " failed (exit " + exit + ")");
            }
            compiledApp = out.toAbsolutePath();
        }
        return compiledApp;
    }

    private void launchApp(String allocationJson) throws IOException {
        Path allocation = Files.writeString(dir.resolve("allocation.json"), allocationJson);
        String appClasspath = Arrays.stream(classpath.split(File.pathSeparator))
                .filter(entry -> !entry.contains("streams-memory-engine") && !entry.contains("/engine/target/"))
                .collect(Collectors.joining(File.pathSeparator)); // the application's own: the agent brings the rest
        List<String> command = new ArrayList<>(List.of(
                "-XX:TieredStopAtLevel=1",
                "-javaagent:" + AgentBuild.AGENT_JAR.toAbsolutePath(),
                "-cp",
                compiledApp(appClasspath) + File.pathSeparator + appClasspath,
                APP_CLASS,
                bootstrap,
                dir.resolve("state").toAbsolutePath().toString(),
                Integer.toString(threads),
                Integer.toString(partitions)));
        Map<String, String> env = new java.util.HashMap<>(appEnv);
        // The allocation's JVM flags where the webhook puts them, so a flag of the application's in JDK_JAVA_OPTIONS
        // or on the command line comes after them and wins, as in a pod.
        env.put(
                "JAVA_TOOL_OPTIONS",
                String.join(" ", AllocationJson.read(allocationJson).jvmOptions()));
        env.putAll(Map.of(
                "STREAMS_MEMORY_ALLOCATION",
                allocation.toAbsolutePath().toString(),
                "STREAMS_MEMORY_REPORT_PORT",
                Integer.toString(reportPort),
                "ORDERS_APP_EXTRA_CONFIG",
                writeSecrets().toAbsolutePath().toString()));
        java(command, env, "app.log");
    }

    /**
     * The application's credentials, as its own config carries them (a mounted Secret): Kafka's SASL and SSL passwords
     * and Schema Registry's basic auth, each value marked with {@link #SECRET_MARKER} (the agent module's
     * {@code ApplicationSecrets} has the same). The broker is PLAINTEXT, so Kafka ignores them; the agent reads this
     * config, and the operator reads the agent, so none may show in what either writes.
     */
    private Path writeSecrets() throws IOException {
        return Files.writeString(
                dir.resolve("application-secrets.properties"),
                String.join(
                        "\n",
                        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                                + "username\\=\"orders\" password\\=\"" + SECRET_MARKER + "-jaas\";",
                        "ssl.keystore.password=" + SECRET_MARKER + "-keystore",
                        "ssl.key.password=" + SECRET_MARKER + "-key",
                        "main.consumer.ssl.key.password=" + SECRET_MARKER + "-prefixed",
                        "basic.auth.user.info=orders:" + SECRET_MARKER + "-basic-auth",
                        ""));
    }

    /** Waits until the agent's report satisfies {@code wanted} (Kafka Streams started, tasks assigned, stores open). */
    private void awaitReport(Predicate<AgentReport> wanted) throws Exception {
        long deadline = System.nanoTime() + START.toNanos();
        AgentReport last = null;
        Process app = processes.get(processes.size() - 1);
        while (System.nanoTime() < deadline) {
            try {
                last = report();
                if (wanted.test(last)) {
                    return;
                }
            } catch (IOException notListeningYet) {
                // the agent's endpoint starts with the JVM, before Kafka Streams runs
            }
            if (!app.isAlive()) {
                break;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the application's agent did not report its tasks running within " + START
                + " (last report: " + last + "):\n" + tail("app.log"));
    }

    private Process java(List<String> arguments, Map<String, String> env, String log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(LOG_TIMES);
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(log).toFile());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().remove("STREAMS_MEMORY_ALLOCATION");
        builder.environment().remove("STREAMS_MEMORY_REPORT_PORT");
        builder.environment().putAll(env);
        Process process = builder.start();
        synchronized (processes) {
            processes.add(process);
        }
        return process;
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private String tail(String log) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(log));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no " + log + ")";
        }
    }

    /** The application first (it would otherwise retry the broker), then the broker, each forcibly if it lingers. */
    @Override
    public void close() {
        destroyAll();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway
        }
    }

    private void destroyAll() {
        List<Process> started;
        synchronized (processes) {
            started = new ArrayList<>(processes);
        }
        for (int i = started.size() - 1; i >= 0; i--) {
            Process process = started.get(i);
            try {
                process.destroy();
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                process.destroyForcibly();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
