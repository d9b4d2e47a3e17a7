package io.streamsmemory.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * During an upgrade the operator reads the agents of the previous release until their pods roll. The fixture is a
 * report a real agent of release 0.1.0 wrote (AgentRealBrokerTest's heap-state run on Kafka Streams 4.4.0, main at
 * 055cb88, 2026-12-07), byte for byte; it must read with every figure the operator uses.
 */
class PreviousAgentReportTest {
    @Test
    void aReportOfTheLastReleaseReadsWithEveryFigureTheOperatorUses() throws IOException {
        AgentReport report = AgentReport.parse(fixture("release-0.1.0.json"));

        assertThat(report.allocationHash()).isEqualTo("9c4d9a2dbfcab7d4");
        assertThat(report.rssBytes()).isEqualTo(219_041_792L);
        assertThat(report.cgroupPeakBytes()).isEqualTo(23_736_446_976L);
        assertThat(report.oomKills()).isZero();
        assertThat(report.heapUsedBytes()).isEqualTo(70_224_688L);
        assertThat(report.blockCacheUsageBytes()).isEqualTo(262_320L);
        assertThat(report.streamThreads()).isEqualTo(2L);
        assertThat(report.activeTasks()).isEqualTo(4L);
        assertThat(report.rocksDbInstances()).isEqualTo(12L);
        assertThat(report.recordCacheBytes()).isEqualTo(18_245_222L);
        assertThat(report.recordCacheSource()).isEqualTo("plan");
        assertThat(report.unexplainedBytes()).isEqualTo(-306_845_450L);
        assertThat(report.kafkaStreamsVersion()).isEqualTo("4.4.0");
        assertThat(report.applicationRecordCacheBytes())
                .as("not in that report")
                .isNull();
        assertThat(report.jvmCaps().metaspacePeakBytes()).isEqualTo(32_964_608L);
        assertThat(report.jvmCaps().liveThreads()).isEqualTo(21L);
        assertThat(report.jvmCaps().headroomPeakBytes()).isNotNull();
        assertThat(report.heapOverride()).as("its heap was the plan's").isNull();
        assertThat(report.heapState().unboundedBuffers()).isEqualTo(4L);
        assertThat(report.heapState().unboundedNames()).isEqualTo("KTABLE-SUPPRESS-STATE-STORE-0000000013");
        assertThat(report.tuning()).isNotNull();
        assertThat(report.progress()).isEqualTo(new AgentReport.Progress(8_316, 3_300_000_000L, 2_000));
    }

    private static byte[] fixture(String name) throws IOException {
        try (InputStream in = PreviousAgentReportTest.class.getResourceAsStream("/agent-report/" + name)) {
            return in.readAllBytes();
        }
    }
}
