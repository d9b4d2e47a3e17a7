package io.streamsmemory.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObservedTopologyTest {
    @Test
    void oneRoundSumsTheTasksAndKeepsTheBusiestPodsFigures() {
        ObservedTopology round =
                ObservedTopology.of(List.of(report(1L, 2L, 3L, 1L, 9L, 8_000L), report(1L, 2L, 1L, 3L, 12L, 9_000L)));

        assertThat(round).isEqualTo(new ObservedTopology(1L, 2L, 4L, 4L, 4L, 12L, 9_000L));
    }

    @Test
    void aJvmThatHasNotStartedKafkaStreamsSaysNothingAboutTheTopology() {
        // Its report has no streams figures: they stay unknown, and a pod that has them still counts. Its classes do
        // not count either: a JVM still starting has not loaded them all, and a metaspace cap planned from that count
        // would stop the JVM that loads the rest (issue 42).
        ObservedTopology round = ObservedTopology.of(
                List.of(report(null, null, null, null, null, 6_000L), report(1L, 2L, 3L, 0L, 6L, 5_000L)));

        assertThat(round).isEqualTo(new ObservedTopology(1L, 2L, 3L, 0L, 3L, 6L, 5_000L));
        assertThat(ObservedTopology.of(List.of(report(null, null, null, null, null, null)))
                        .reportsStreams())
                .isFalse();
    }

    @Test
    void theWindowKeepsTheLargestTopologyUntilItLeavesTheWindow() {
        TopologyWindow window = new TopologyWindow(Duration.ofHours(1));
        Instant start = Instant.parse("2026-12-03T00:00:00Z");
        window.record(start, new ObservedTopology(1L, 2L, 8L, 0L, 8L, 16L, 7_000L));
        window.record(start.plusSeconds(600), new ObservedTopology(1L, 2L, 6L, 0L, 4L, 8L, 7_500L));

        assertThat(window.peak(start.plusSeconds(900)))
                .isEqualTo(new ObservedTopology(1L, 2L, 8L, 0L, 8L, 16L, 7_500L));
        assertThat(window.peak(start.plusSeconds(3_700)))
                .isEqualTo(new ObservedTopology(1L, 2L, 6L, 0L, 4L, 8L, 7_500L));
        assertThat(window.peak(start.plusSeconds(8_000))).isNull();
    }

    private static AgentReport report(
            Long instances, Long threads, Long active, Long standby, Long rocksDb, Long loadedClasses) {
        return new AgentReport(
                "h",
                1L,
                1L,
                null,
                null,
                0L,
                1L,
                1L,
                rocksDb,
                active,
                standby,
                threads,
                instances,
                0L,
                loadedClasses,
                1L,
                null,
                null,
                JvmCapsUse.NONE,
                null,
                null);
    }
}
