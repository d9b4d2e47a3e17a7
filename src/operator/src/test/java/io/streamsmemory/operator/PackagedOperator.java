package io.streamsmemory.operator;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged operator ({@code target/quarkus-app/quarkus-run.jar}, as {@code make run} and the image run it) in a
 * process of its own, for the tests that need the real Quarkus wiring: health and readiness on a free HTTP port,
 * the Lease identity and namespace from {@code POD_NAME}/{@code POD_NAMESPACE} as the downward API gives them.
 */
public final class PackagedOperator implements AutoCloseable {
    public static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");
    /**
     * The JIT flag the tests start the jar with: C1 only, as the brokers and Kafka Streams JVMs the tests start run,
     * for a JVM that lives a minute on two busy cores (the tests' packaged operators took 63 CPU-seconds in run W28
     * instead of 105; docs/development.md). The scale benchmark leaves it out: its figures are the default JIT's, as
     * the image runs.
     */
    public static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    /**
     * How long the jar may take to answer on its HTTP port: seconds on a quiet machine, but about a minute in a fresh
     * machine's {@code .ci/run} (2026-12-07: {@code WebhookStartFailureIT} waited 60 s for its liveness, in vain, while
     * the lanes ran beside the last Go builds).
     */
    public static final Duration START = Duration.ofMinutes(3);

    private final Process process;
    private final int httpPort;
    private final Path log;
    private final HttpClient http = HttpClient.newHttpClient();

    private PackagedOperator(Process process, int httpPort, Path log) {
        this.process = process;
        this.httpPort = httpPort;
        this.log = log;
    }

    /** Starts the jar with {@code jvmArgs} (-D settings, heap flags); its output is appended to {@code log}. */
    public static PackagedOperator start(
            Path kubeconfig, String namespace, String identity, Path log, String... jvmArgs) throws IOException {
        return start(kubeconfig, namespace, identity, log, Map.of(), jvmArgs);
    }

    /** As {@link #start(Path, String, String, Path, String...)}, with {@code env} added to the process environment. */
    public static PackagedOperator start(
            Path kubeconfig, String namespace, String identity, Path log, Map<String, String> env, String... jvmArgs)
            throws IOException {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is built by the package phase: run `mvn verify`");
        }
        int httpPort = freePort();
        List<String> command = new ArrayList<>(List.of("java", "-Dquarkus.http.port=" + httpPort));
        command.addAll(List.of(jvmArgs));
        command.addAll(List.of("-jar", JAR.toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("KUBECONFIG", kubeconfig.toString());
        builder.environment().put("POD_NAMESPACE", namespace);
        builder.environment().put("POD_NAME", identity);
        builder.environment().putAll(env);
        return new PackagedOperator(builder.start(), httpPort, log);
    }

    public Process process() {
        return process;
    }

    public Path log() {
        return log;
    }

    /** GET on the operator's HTTP port (health, metrics). */
    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Waits until {@code path} answers {@code status} (within {@link #START}); fails at once, with the log's tail, when
     * the process has ended.
     */
    public void awaitAnswering(String path, int status) {
        await().atMost(START).pollInterval(Duration.ofMillis(500)).until(() -> {
            if (!process.isAlive()) {
                List<String> lines = Files.readAllLines(log);
                throw new IllegalStateException("the operator exited (" + process.exitValue() + "):\n"
                        + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
            }
            try {
                return get(path).statusCode() == status;
            } catch (IOException notListeningYet) {
                return false;
            }
        });
    }

    /** The log lines that contain any of {@code words}, under a heading, for a test's output. */
    public String logLines(String heading, String... words) throws IOException {
        return Files.readString(log)
                .lines()
                .filter(line -> List.of(words).stream().anyMatch(line::contains))
                .reduce(heading, (a, b) -> a + "\n" + b);
    }

    /** SIGTERM, as Kubernetes stops a pod; killed after 30 s. Returns whether SIGTERM ended it. */
    public boolean stop() throws InterruptedException {
        process.destroy();
        if (process.waitFor(30, TimeUnit.SECONDS)) {
            return true;
        }
        process.destroyForcibly();
        return false;
    }

    /** kill -9: no shutdown hook, no Lease release. */
    public void kill9() {
        process.destroyForcibly();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
