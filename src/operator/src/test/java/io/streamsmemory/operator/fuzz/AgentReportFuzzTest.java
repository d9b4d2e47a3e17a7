package io.streamsmemory.operator.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamsmemory.engine.fuzz.CpuBudget;
import io.streamsmemory.engine.fuzz.HostileJson;
import io.streamsmemory.operator.observe.AgentReport;
import io.streamsmemory.operator.observe.AgentReportFuzzAccess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Fuzz target: the operator's reader of an agent's {@code /report} ({@code AgentReport.parse}; {@code ReportReader}
 * only bounds the bytes and the time, it parses nothing). A pod is not trusted: for any body the reader gives a
 * report or an IllegalArgumentException, quickly, and a figure it keeps is one the body holds, never a wrapped-around
 * number.
 */
class AgentReportFuzzTest {
    /** A try's CPU time at most: {@link CpuBudget}, the thread's own, not the wall clock's. */
    private static final Duration PER_REPORT = Duration.ofSeconds(1);

    private static final JsonNode SEED = HostileJson.seed("agent-report", "valid-report.json");

    @Example
    void theCorpusIsReadOrRefused() {
        HostileJson.corpusBytes("agent-report").forEach(AgentReportFuzzTest::readOrRefuse);
    }

    @Example
    void theSeedIsAReport() {
        AgentReport report = readOrRefuse(SEED.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(report).isNotNull();
        assertThat(report.streamThreads()).isEqualTo(4);
    }

    @Property
    void mutatedReports(@ForAll("mutated") String report) {
        readOrRefuse(report.getBytes(StandardCharsets.UTF_8));
    }

    @Property
    void mutatedReportsCutShortOrNotUtf8(@ForAll("damaged") byte[] body) {
        readOrRefuse(body);
    }

    @Property
    void anyBytes(@ForAll @Size(max = 2000) byte[] body) {
        readOrRefuse(body);
    }

    @Provide
    Arbitrary<String> mutated() {
        return HostileJson.mutatedFrom(SEED);
    }

    @Provide
    Arbitrary<byte[]> damaged() {
        return HostileJson.damagedFrom(SEED, 1500);
    }

    /** The report, or null when refused with an IllegalArgumentException; every figure kept is non-negative. */
    private static AgentReport readOrRefuse(byte[] body) {
        AgentReport report;
        try {
            report = CpuBudget.within(PER_REPORT, () -> AgentReportFuzzAccess.parse(body));
        } catch (IllegalArgumentException refused) {
            return null;
        }
        JsonNode sent = HostileJson.tree(new String(body, StandardCharsets.UTF_8));
        assertKept(report.rssBytes(), sent.path("process").path("rssBytes"));
        assertKept(report.rssPeakBytes(), sent.path("process").path("rssPeakBytes"));
        assertKept(report.cgroupCurrentBytes(), sent.path("cgroup").path("currentBytes"));
        assertKept(report.oomKills(), sent.path("cgroup").path("oomKills"));
        assertKept(report.heapUsedBytes(), sent.path("jvm").path("heapUsedBytes"));
        assertKept(report.loadedClasses(), sent.path("jvm").path("loadedClasses"));
        assertKept(report.unexplainedBytes(), sent.path("unexplainedBytes"));
        if (report.streamThreads() != null) {
            assertKept(report.streamThreads(), sent.path("streams").path("streamThreads"));
            assertKept(report.activeTasks(), sent.path("streams").path("activeTasks"));
        }
        return report;
    }

    /** A figure the reader kept is exactly the number sent (not one wrapped into a long). */
    private static void assertKept(Long kept, JsonNode sent) {
        if (kept != null) {
            assertThat(sent.isIntegralNumber()).isTrue();
            assertThat(sent.bigIntegerValue()).isEqualTo(java.math.BigInteger.valueOf(kept));
        }
    }
}
