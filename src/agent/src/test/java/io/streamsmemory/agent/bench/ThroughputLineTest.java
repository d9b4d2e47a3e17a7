package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.bench.ThroughputLine.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The throughput line's arithmetic: ratios within each repeat, medians over the repeats, the best hand-tuned config
 * among those the kernel let live, and NaN for what did not run.
 */
class ThroughputLineTest {
    private static final long BUDGET = 4L * 1024 * 1024 * 1024;

    private static Run survived(double rps) {
        return new Run(rps, "survived", 100, 50, 0.02, 0.9);
    }

    private static Run killed(double rps, int after) {
        return new Run(rps, "killed@" + after + "s", 100, 50, 0.02, 1.0);
    }

    @Test
    void thePlanIsComparedWithinEachRepeatAndTheLineGivesTheMedians() {
        List<Map<String, Run>> repeats = List.of(
                Map.of(
                        "agent", survived(20_000),
                        "kafka-defaults", survived(20_000),
                        "hand-docs", survived(10_000),
                        "hand-flink", survived(16_000),
                        "unbounded", survived(25_000)),
                Map.of(
                        "agent", survived(10_000),
                        "kafka-defaults", survived(12_500),
                        "hand-docs", survived(5_000),
                        "hand-flink", survived(8_000),
                        "unbounded", survived(12_500)),
                Map.of(
                        "agent", survived(18_000),
                        "kafka-defaults", survived(20_000),
                        "hand-docs", survived(9_000),
                        "hand-flink", survived(12_000),
                        "unbounded", survived(20_000)));

        String line = ThroughputLine.of(BUDGET, "zipf", repeats);

        // hand-flink's median 12,000 beats hand-docs' 9,000; the plan over it: 1.25, 1.25, 1.5 -> 1.25.
        // Over the defaults: 1.0, 0.8, 0.9 -> 0.9; over the ceiling: 0.8, 0.8, 0.9 -> 0.8; spread 20,000 / 10,000.
        assertThat(line)
                .startsWith("throughput: budget=4294967296 shape=zipf repeats=3 plan_rps=18000 best_hand=hand-flink "
                        + "best_hand_rps=12000 defaults_rps=20000 ceiling_rps=20000 plan_vs_best_hand=1.250 "
                        + "plan_vs_defaults=0.900 plan_vs_ceiling=0.800 spread=2.000 ")
                .contains("kernel=agent:survived/survived/survived,hand-docs:survived/survived/survived,");
    }

    @Test
    void aConfigTheKernelKilledIsNoBestHandAndKilledDefaultsSayWhen() {
        List<Map<String, Run>> repeats = List.of(
                Map.of(
                        "agent", survived(6_000),
                        "kafka-defaults", killed(9_000, 50),
                        "hand-docs", survived(2_000),
                        "hand-responsive", killed(8_000, 300)),
                Map.of(
                        "agent", survived(6_000),
                        "kafka-defaults", killed(9_000, 40),
                        "hand-docs", survived(3_000),
                        "hand-responsive", survived(8_000)));

        String line = ThroughputLine.of(512L << 20, "default", repeats);

        assertThat(line)
                .contains("best_hand=hand-docs best_hand_rps=2500 defaults_rps=killed@45s ")
                .contains("plan_vs_best_hand=2.500 plan_vs_defaults=killed ")
                .contains("ceiling_rps=NaN")
                .contains("hand-responsive:killed@300s/survived");
    }

    @Test
    void aRunThatNeverReachedTheRangeIsLeftOutOfTheMedianNotCountedAsZero() {
        List<Map<String, Run>> repeats =
                List.of(Map.of("agent", survived(Double.NaN)), Map.of("agent", survived(7_000)));

        assertThat(ThroughputLine.variant(BUDGET, "default", "agent", repeats))
                .startsWith("throughput-variant: budget=4294967296 shape=default variant=agent rps=7000 spread=1.000 "
                        + "cpu_us_per_record=100.0 read_bytes_per_record=50 gc_share=0.020 rss_ratio=0.900 "
                        + "vs_plan=1.000 kernel=survived/survived");
        assertThat(ThroughputLine.median(new double[] {Double.NaN})).isNaN();
        assertThat(ThroughputLine.bestHand(repeats)).isNull();
    }
}
