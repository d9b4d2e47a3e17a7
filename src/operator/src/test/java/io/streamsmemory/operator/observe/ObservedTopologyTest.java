package io.streamsmemory.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.KafkaStreamsVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObservedTopologyTest {
    @Test
    void oneRoundSumsTheTasksAndKeepsTheBusiestPodsFigures() {
        ObservedTopology round = ObservedTopology.of(
                List.of(report(1L, 2L, 3L, 1L, 9L, 8_000L), report(1L, 2L, 1L, 3L, 12L, 9_000L)), Duration.ZERO);

        assertThat(round)
                .isEqualTo(new ObservedTopology(1L, 2L, 4L, 4L, 4L, 12L, 9_000L, JvmCapsUse.NONE, null, null, null));
    }

    @Test
    void aJvmThatHasNotStartedKafkaStreamsSaysNothingAboutTheTopology() {
        // Its report has no streams figures: they stay unknown, and a pod that has them still counts. Its classes do
        // not count either: a JVM still starting has not loaded them all, and a metaspace cap planned from that count
        // would stop the JVM that loads the rest (issue 42).
        ObservedTopology round = ObservedTopology.of(
                List.of(report(null, null, null, null, null, 6_000L), report(1L, 2L, 3L, 0L, 6L, 5_000L)),
                Duration.ZERO);

        assertThat(round)
                .isEqualTo(new ObservedTopology(1L, 2L, 3L, 0L, 3L, 6L, 5_000L, JvmCapsUse.NONE, null, null, null));
        assertThat(ObservedTopology.of(List.of(report(null, null, null, null, null, null)), Duration.ZERO)
                        .reportsStreams())
                .isFalse();
    }

    @Test
    void theHeadroomAPodHoldsBeyondItsBoundsCountsOnceItHasRunTheSettleTime() {
        // RSS 400 MiB = heap 150 + metaspace 30 + code cache 14 + direct 2 + 40 threads x 256 KiB + block cache 60
        // (memtables in it: the shared cache's capacity is reported) + 134 MiB held beyond the bounded parts.
        String report = """
                {"formatVersion":1,"allocationHash":"h","process":{"rssBytes":%d},
                 "jvm":{"uptimeMillis":%d,"heapCommittedBytes":%d,"metaspaceUsedBytes":%d,"codeCacheUsedBytes":%d,
                        "directUsedBytes":%d,"liveThreads":40},
                 "rocksdb":{"blockCacheCapacityBytes":%d,"blockCacheUsageBytes":%d,"memtableBytes":%d},
                 "streams":{"streamThreads":2,"activeTasks":4}}""";
        long mib = 1L << 20;
        AgentReport young = AgentReport.parse(String.format(
                        report, 400 * mib, 60_000, 150 * mib, 30 * mib, 14 * mib, 2 * mib, 64 * mib, 60 * mib, 20 * mib)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        AgentReport settled = AgentReport.parse(String.format(
                        report, 400 * mib, 700_000, 150 * mib, 30 * mib, 14 * mib, 2 * mib, 64 * mib, 60 * mib,
                        20 * mib)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(settled.jvmCaps().headroomPeakBytes()).isEqualTo(134 * mib);

        Duration settle = Duration.ofMinutes(10);
        assertThat(ObservedTopology.of(List.of(young), settle).jvmCaps().headroomPeakBytes())
                .isNull();
        assertThat(ObservedTopology.of(List.of(young, settled), settle)
                        .jvmCaps()
                        .headroomPeakBytes())
                .isEqualTo(134 * mib);
        // The other figures count from the first report, as before.
        assertThat(ObservedTopology.of(List.of(young), settle).jvmCaps().liveThreads())
                .isEqualTo(40L);
    }

    @Test
    void theOldestKafkaStreamsAPodRunsIsTheWorkloadsUntilItLeavesTheWindow() {
        // A rolling upgrade from 3.3 to 3.9: while any pod runs 3.3, a key only 3.9 knows would not reach it.
        String report = """
                {"formatVersion":1,"kafkaStreamsVersion":"%s","streams":{"streamThreads":1,"activeTasks":2}}""";
        AgentReport upgraded = AgentReport.parse(String.format(report, "3.9.1").getBytes(StandardCharsets.UTF_8));
        AgentReport old = AgentReport.parse(String.format(report, "3.3.2").getBytes(StandardCharsets.UTF_8));
        AgentReport starting = AgentReport.parse(
                "{\"formatVersion\":1,\"kafkaStreamsVersion\":\"3.0.2\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(upgraded.kafkaStreamsVersion()).isEqualTo("3.9.1");
        // Read once Kafka Streams runs, as the topology is.
        assertThat(starting.kafkaStreamsVersion()).isNull();

        ObservedTopology rolling = ObservedTopology.of(List.of(upgraded, old, starting), Duration.ZERO);
        assertThat(rolling.kafkaStreamsVersion()).isEqualTo(new KafkaStreamsVersion(3, 3));
        TopologyWindow window = new TopologyWindow(Duration.ofHours(1));
        Instant start = Instant.parse("2026-12-06T00:00:00Z");
        window.record(start, rolling);
        window.record(start.plusSeconds(600), ObservedTopology.of(List.of(upgraded), Duration.ZERO));
        assertThat(window.peak(start.plusSeconds(900)).kafkaStreamsVersion()).isEqualTo(new KafkaStreamsVersion(3, 3));
        assertThat(window.peak(start.plusSeconds(3_700)).kafkaStreamsVersion())
                .isEqualTo(new KafkaStreamsVersion(3, 9));
    }

    @Test
    void theWindowKeepsTheLargestTopologyUntilItLeavesTheWindow() {
        TopologyWindow window = new TopologyWindow(Duration.ofHours(1));
        Instant start = Instant.parse("2026-12-03T00:00:00Z");
        window.record(start, new ObservedTopology(1L, 2L, 8L, 0L, 8L, 16L, 7_000L, JvmCapsUse.NONE, null, null, null));
        window.record(
                start.plusSeconds(600),
                new ObservedTopology(1L, 2L, 6L, 0L, 4L, 8L, 7_500L, JvmCapsUse.NONE, null, null, null));

        assertThat(window.peak(start.plusSeconds(900)))
                .isEqualTo(new ObservedTopology(1L, 2L, 8L, 0L, 8L, 16L, 7_500L, JvmCapsUse.NONE, null, null, null));
        assertThat(window.peak(start.plusSeconds(3_700)))
                .isEqualTo(new ObservedTopology(1L, 2L, 6L, 0L, 4L, 8L, 7_500L, JvmCapsUse.NONE, null, null, null));
        assertThat(window.peak(start.plusSeconds(8_000))).isNull();
    }

    private static AgentReport report(
            Long instances, Long threads, Long active, Long standby, Long rocksDb, Long loadedClasses) {
        return AgentReports.running()
                .topology(instances, threads, active, standby, rocksDb)
                .classes(loadedClasses, 1)
                .report();
    }
}
