package io.streamsmemory.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A pod that never answers, drips its answer, answers garbage or too much is a failure within the timeout, never
 * a longer wait (each case a real socket on this machine behaving so).
 */
class ReportReaderTest {
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private final ReportReader reader = new ReportReader(TIMEOUT);

    @Test
    void aReportIsRead() throws Exception {
        try (Server server = new Server(out -> respond(
                out,
                "{\"formatVersion\":1,\"allocationHash\":\"abc\","
                        + "\"process\":{\"rssBytes\":1000,\"rssPeakBytes\":1500},\"jvm\":{\"heapUsedBytes\":10,"
                        + "\"loadedClasses\":6215,\"metaspaceUsedBytes\":35651584},"
                        + "\"streams\":{\"streamThreads\":4},\"unexplainedBytes\":-774000000}"))) {
            AgentReport report = reader.read("127.0.0.1", server.port());
            assertThat(report.allocationHash()).isEqualTo("abc");
            assertThat(report.usedBytes()).isEqualTo(1000);
            assertThat(report.peakBytes()).isEqualTo(1500);
            assertThat(report.streamThreads()).isEqualTo(4);
            assertThat(report.loadedClasses()).isEqualTo(6215);
            assertThat(report.metaspaceUsedBytes()).isEqualTo(35_651_584L);
            assertThat(report.rocksDbInstances()).isNull(); // not reported: unknown, not 0
            // A heap committed but not yet all resident: negative, kept (the dashboard draws it from the start).
            assertThat(report.unexplainedBytes()).isEqualTo(-774_000_000L);
        }
    }

    /** Issue 64: what the user sees, the consumer lag and the CPU per record, next to the split's own figures. */
    @Test
    void theLagAndTheCpuPerRecordAreRead() {
        AgentReport report = AgentReport.parse(("{\"formatVersion\":1,\"allocationHash\":\"abc\","
                        + "\"process\":{\"rssBytes\":1000,\"processCpuNanos\":6000000000},"
                        + "\"jvm\":{\"uptimeMillis\":600000,\"gcPauseMillis\":6000},"
                        + "\"streams\":{\"streamThreads\":2,\"processedRecords\":50000,"
                        + "\"consumerLagRecords\":12345}}")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(report.tuning().consumerLagRecords()).isEqualTo(12_345L);
        // Over the JVM's life, until the observer has a window of reports from it.
        assertThat(report.tuning().cpuNanosPerRecord()).isEqualTo(120_000.0);
        assertThat(report.tuning().gcShare()).isEqualTo(0.01);
        assertThat(report.progress()).isEqualTo(new AgentReport.Progress(600_000, 6_000_000_000L, 50_000));
    }

    /** An agent older than issue 64 leaves the user's figures out: its report still reads, and they are unknown. */
    @Test
    void anOlderAgentsReportWithoutThemIsReadAndTheyAreUnknown() {
        AgentReport report = AgentReport.parse(("{\"formatVersion\":1,\"allocationHash\":\"abc\","
                        + "\"process\":{\"rssBytes\":1000},\"jvm\":{\"uptimeMillis\":600000,\"gcPauseMillis\":6000},"
                        + "\"streams\":{\"streamThreads\":2}}")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(report.tuning().gcShare()).isEqualTo(0.01);
        assertThat(report.tuning().consumerLagRecords()).isNull();
        assertThat(report.tuning().cpuNanosPerRecord()).isNull();
        assertThat(report.progress()).isNull();
        assertThat(report.applicationRecordCacheBytes()).isNull();
    }

    /** The record cache the application sets itself: its value, -1 for none (the plan's runs), or unknown. */
    @Test
    void theApplicationsOwnRecordCacheIsRead() {
        assertThat(applicationRecordCache("0")).isZero();
        assertThat(applicationRecordCache("5000000")).isEqualTo(5_000_000L);
        assertThat(applicationRecordCache("-1")).isEqualTo(AgentReport.RECORD_CACHE_LEFT_TO_PLAN);
        assertThat(applicationRecordCache("-2")).isNull();
        assertThat(applicationRecordCache("\"x\"")).isNull();
        // Two pods, one whose application sets none: the workload's is the plan's.
        ObservedTopology pods = ObservedTopology.of(
                List.of(
                        AgentReports.running()
                                .topology(1L, 2L, 3L, 0L, 6L)
                                .applicationRecordCache(0L)
                                .report(),
                        AgentReports.running()
                                .topology(1L, 2L, 3L, 0L, 6L)
                                .applicationRecordCache(AgentReport.RECORD_CACHE_LEFT_TO_PLAN)
                                .report()),
                Duration.ZERO);
        assertThat(pods.applicationRecordCacheBytes()).isEqualTo(AgentReport.RECORD_CACHE_LEFT_TO_PLAN);
    }

    private static Long applicationRecordCache(String value) {
        return AgentReport.parse(("{\"formatVersion\":1,\"streams\":{\"streamThreads\":2,"
                                + "\"applicationRecordCacheBytes\":" + value + "}}")
                        .getBytes(StandardCharsets.UTF_8))
                .applicationRecordCacheBytes();
    }

    /**
     * The CPU per record over the last settle time of one pod's reports: the pod's life at first, then the newest
     * window, started again when the JVM restarts.
     */
    @Test
    void theCpuPerRecordIsTakenOverTheWindowOfOnePodsReports() {
        CpuPerRecordWindow window = new CpuPerRecordWindow(Duration.ofMinutes(10));
        assertThat(window.add(new AgentReport.Progress(60_000, 50_000_000_000L, 100_000)))
                .as("one report: no window yet")
                .isNull();
        assertThat(window.add(new AgentReport.Progress(360_000, 53_000_000_000L, 130_000)))
                .isEqualTo(100_000.0);
        window.add(new AgentReport.Progress(660_000, 56_000_000_000L, 160_000));
        // The window reaches back to the newest report at least 10 minutes old (at 360 s), and no further.
        assertThat(window.add(new AgentReport.Progress(960_000, 57_000_000_000L, 190_000)))
                .isEqualTo(4_000_000_000.0 / 60_000);
        assertThat(window.add(new AgentReport.Progress(5_000, 1_000_000_000L, 10)))
                .as("a restarted JVM starts the window again")
                .isNull();
    }

    @Test
    void aJvmWhoseKafkaStreamsHasNotStartedSaysNothingOfTheTopology() throws Exception {
        try (Server server = new Server(
                out -> respond(
                        out,
                        "{\"formatVersion\":1,\"process\":{\"rssBytes\":1000},"
                                + "\"streams\":{\"instances\":0,\"streamThreads\":0,\"activeTasks\":0,\"rocksDbInstances\":0}}"))) {
            AgentReport report = reader.read("127.0.0.1", server.port());
            assertThat(report.streamThreads()).isNull();
            assertThat(report.activeTasks()).isNull();
            assertThat(report.rocksDbInstances()).isNull();
            assertThat(report.usedBytes()).isEqualTo(1000);
        }
    }

    @Test
    void silenceDripAndGarbageFailWithinTheTimeout() throws Exception {
        try (Server silent = new Server(out -> sleep(5000));
                Server drip = new Server(out -> {
                    write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{");
                    for (int i = 0; i < 50; i++) {
                        write(out, " ");
                        sleep(100);
                    }
                });
                Server garbage = new Server(out -> respond(out, "<html>not a report</html>"));
                Server otherFormat = new Server(out -> respond(out, "{\"formatVersion\":2}"));
                Server huge = new Server(
                        out -> respond(out, "{\"formatVersion\":1,\"x\":\"" + "a".repeat(2 << 20) + "\"}"))) {
            for (Server server : new Server[] {silent, drip, garbage, otherFormat, huge}) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> reader.read("127.0.0.1", server.port()))
                        .isInstanceOfAny(IOException.class, IllegalArgumentException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.multipliedBy(4));
            }
        }
    }

    @Test
    void aClosedPortFailsAtOnce() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        assertThatThrownBy(() -> reader.read("127.0.0.1", port)).isInstanceOf(IOException.class);
    }

    private static void respond(OutputStream out, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        write(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
                        + "\r\nConnection: close\r\n\r\n");
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException gone) {
            // the reader gave up
        }
    }

    private static void write(OutputStream out, String text) {
        try {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException gone) {
            // the reader gave up
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Accepts connections, reads the request line, and answers with {@code behaviour}. */
    private static final class Server implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0);

        Server(Consumer<OutputStream> behaviour) throws IOException {
            Thread thread = new Thread(() -> {
                while (!socket.isClosed()) {
                    try (Socket client = socket.accept()) {
                        client.getInputStream().read(new byte[4096]);
                        behaviour.accept(client.getOutputStream());
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
