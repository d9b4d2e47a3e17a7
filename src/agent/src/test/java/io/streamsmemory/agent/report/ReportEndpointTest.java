package io.streamsmemory.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.agent.log.CapturedAgentLog;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The endpoint in this JVM: when it is on, what it serves, and that a taken port is one warning. */
class ReportEndpointTest {
    @RegisterExtension
    final CapturedAgentLog log = new CapturedAgentLog();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private ThreadPoolExecutor executor;

    @AfterEach
    void stop() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    @Test
    void theVariableTurnsItOnAndAnInvalidValueIsOneWarning() {
        assertThat(ReportEndpoint.start(Map.of())).isNull();
        assertThat(ReportEndpoint.start(Map.of(ReportEndpoint.PORT_ENV, ""))).isNull();
        assertThat(ReportEndpoint.start(Map.of(ReportEndpoint.PORT_ENV, "  "))).isNull();
        assertThat(log.lines()).isEmpty();
        assertThat(ReportEndpoint.port("8080")).isEqualTo(8080);
        assertThat(ReportEndpoint.port(" 9404 ")).isEqualTo(9404);
        assertThat(ReportEndpoint.start(Map.of(ReportEndpoint.PORT_ENV, "http")))
                .isNull();
        assertThat(ReportEndpoint.port("70000")).isNull();
        assertThat(ReportEndpoint.port("0")).isNull();
        assertThat(log.lines()).hasSize(1);
        assertThat(log.lines().get(0)).contains("WARN", ReportEndpoint.PORT_ENV + "=http", "not served");
    }

    @Test
    void servesTheReportAndTheMetricsOnOneDaemonThread() throws Exception {
        int port = LocalHttp.freePort();
        executor = ReportEndpoint.start(Map.of(ReportEndpoint.PORT_ENV, Integer.toString(port)));
        assertThat(executor).isNotNull();
        awaitLine("memory report on");
        HttpResponse<String> report = get(port, "/report");
        assertThat(report.statusCode()).isEqualTo(200);
        assertThat(report.headers().firstValue("Content-Type")).hasValue(ReportHttpServer.JSON_TYPE);
        JsonNode json = new ObjectMapper().readTree(report.body());
        assertThat(json.get("formatVersion").asInt()).isEqualTo(1);
        assertThat(json.at("/jvm/heapUsedBytes").asLong()).isPositive();
        HttpResponse<String> metrics = get(port, "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValue(ReportHttpServer.PROMETHEUS_TYPE);
        assertThat(MemoryReportTest.assertValidPrometheus(metrics.body()))
                .containsKey("streams_memory_agent_jvm_heap_used_bytes");
        assertThat(get(port, "/").statusCode()).isEqualTo(404);
        assertThat(get(port, "/report/x").statusCode()).isEqualTo(404);
        assertThat(http.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/report"))
                                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(404);
        // Every thread the endpoint started is a daemon: it never keeps the JVM alive.
        assertThat(Thread.getAllStackTraces().keySet())
                .filteredOn(t ->
                        t.getName().equals("HTTP-Dispatcher") || t.getName().equals(ReportEndpoint.THREAD_NAME))
                .isNotEmpty()
                .allMatch(Thread::isDaemon);
        assertThat(log.lines()).noneMatch(line -> line.contains("WARN"));
    }

    @Test
    void aPortInUseIsOneWarningAndNoException() throws Exception {
        try (ServerSocket taken = LocalHttp.takenPort()) {
            executor = ReportEndpoint.start(Map.of(ReportEndpoint.PORT_ENV, Integer.toString(taken.getLocalPort())));
            awaitLine("WARN");
            assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            assertThat(log.lines()).hasSize(1);
            assertThat(log.lines().get(0))
                    .contains("cannot listen on port " + taken.getLocalPort(), "the application runs as before");
        }
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return LocalHttp.get(http, port, path, Duration.ofSeconds(10));
    }

    private void awaitLine(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            synchronized (log.lines()) {
                if (log.lines().stream().anyMatch(line -> line.contains(text))) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no line with " + text + ": " + log.lines());
    }
}
