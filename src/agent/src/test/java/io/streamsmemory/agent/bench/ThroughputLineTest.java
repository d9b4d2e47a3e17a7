package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.bench.ThroughputLine.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The throughput line's arithmetic: ratios against the anchor of the same repeat, medians, NaN for what did not run. */
class ThroughputLineTest {
    private static final long BUDGET = 512L * 1024 * 1024;

    private static Run run(double rps, double peakShare) {
        return new Run(rps, rps * 2, Math.round(BUDGET * peakShare), "survived", "steady");
    }

    @Test
    void eachRatioIsAgainstTheAnchorOfItsOwnRepeatAndTheLineGivesTheMedians() {
        List<Map<String, Run>> repeats = List.of(
                Map.of("unbounded", run(20_000, 2.0), "agent", run(18_000, 0.80), "learned", run(10_000, 0.90)),
                Map.of("unbounded", run(10_000, 2.0), "agent", run(8_000, 0.84), "learned", run(6_000, 0.88)),
                Map.of("unbounded", run(16_000, 2.0), "agent", run(16_000, 0.82), "learned", run(4_000, 0.86)));

        String line = ThroughputLine.of(BUDGET, "default", repeats);

        // declared: 0.9, 0.8, 1.0 -> 0.9; learned: 0.5, 0.6, 0.25 -> 0.5; the anchor's median rate 16,000.
        assertThat(line)
                .startsWith("throughput: budget=536870912 shape=default unbounded_rps=16000 docs_ratio=NaN "
                        + "declared_ratio=0.900 learned_ratio=0.500 rss_ratio=0.820 learned_rss_ratio=0.880 ")
                .contains("repeats=3 declared_ratios=0.900/0.800/1.000 learned_ratios=0.500/0.600/0.250")
                .contains("kernel=unbounded:survived/survived/survived,declared:survived/survived/survived,");
    }

    @Test
    void aCandidateIsRatedAgainstTheSameAnchorBesideTheDeclaredPlan() {
        List<Map<String, Run>> repeats = List.of(Map.of(
                "unbounded",
                run(20_000, 2.0),
                "agent",
                run(10_000, 0.80),
                "agent+small-record-cache",
                run(15_000, 0.84)));

        assertThat(ThroughputLine.candidate(BUDGET, "default", "agent+small-record-cache", repeats))
                .startsWith("throughput-candidate: budget=536870912 shape=default variant=agent+small-record-cache "
                        + "ratio=0.750 declared_ratio=0.500 rss_ratio=0.840 repeats=1 ratios=0.750 ");
    }

    @Test
    void aRunWithoutASteadyRateIsLeftOutOfTheMedianNotCountedAsZero() {
        List<Map<String, Run>> repeats = List.of(
                Map.of("unbounded", run(10_000, 2.0), "agent", run(Double.NaN, 0.8)),
                Map.of("unbounded", run(10_000, 2.0), "agent", run(7_000, 0.8)));

        assertThat(ThroughputLine.of(BUDGET, "wide", repeats)).contains("declared_ratio=0.700 ");
        assertThat(ThroughputLine.median(new double[] {Double.NaN})).isNaN();
    }
}
