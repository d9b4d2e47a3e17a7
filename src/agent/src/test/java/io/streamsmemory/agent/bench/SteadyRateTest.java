package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.streamsmemory.agent.bench.MemoryBenchmark.Progress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The throughput benchmark's arithmetic: the steady rate, and when a run's rate has settled. */
class SteadyRateTest {
    /** One sample a second: {@code fastSeconds} at {@code fast} records/s, then {@code slow} records/s. */
    private static List<Progress> run(int fastSeconds, double fast, int totalSeconds, double slow) {
        List<Progress> progress = new ArrayList<>();
        double count = 0;
        for (int s = 0; s <= totalSeconds; s++) {
            progress.add(new Progress(1_000_000L + s * 1000L, Math.round(count)));
            count += s < fastSeconds ? fast : slow;
        }
        return progress;
    }

    @Test
    void theSteadyRateIsTheLastTwoMinutesNotTheFastStart() {
        List<Progress> progress = run(60, 50_000, 400, 10_000);

        assertThat(SteadyRate.overLast(progress, SteadyRate.STEADY_SECONDS)).isCloseTo(10_000, within(1.0));
    }

    @Test
    void aRunThatConsumedItsInputIsJudgedByItsRateWhileItHadInput() {
        List<Progress> progress = run(300, 20_000, 400, 0);

        assertThat(SteadyRate.overLast(progress, SteadyRate.STEADY_SECONDS)).isCloseTo(20_000, within(1.0));
    }

    @Test
    void aRunShorterThanTheWindowHasNoSteadyRate() {
        assertThat(SteadyRate.overLast(run(0, 0, 60, 1_000), SteadyRate.STEADY_SECONDS))
                .isNaN();
    }

    @Test
    void aRateStillFallingHasNotSettled() {
        // 20,000/s in the minute before, 10,000/s in the last: not settled; the same rate in both: settled.
        assertThat(SteadyRate.settled(run(240, 20_000, 300, 10_000))).isFalse();
        assertThat(SteadyRate.settled(run(0, 0, 300, 10_000))).isTrue();
        // Within 5%: 10,000 then 9,600 records/s.
        assertThat(SteadyRate.settled(run(240, 10_000, 300, 9_600))).isTrue();
        assertThat(SteadyRate.settled(run(240, 10_000, 300, 9_400))).isFalse();
    }

    @Test
    void underTwoWindowsOfProgressHasNotSettled() {
        assertThat(SteadyRate.settled(run(0, 0, 100, 10_000))).isFalse();
        assertThat(SteadyRate.settled(List.of())).isFalse();
    }
}
