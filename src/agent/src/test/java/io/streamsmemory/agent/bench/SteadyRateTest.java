package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.streamsmemory.agent.bench.MemoryBenchmark.Progress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The throughput benchmark's arithmetic: the steady rate over a run's last minutes. */
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
}
