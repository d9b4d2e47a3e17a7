package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamsmemory.agent.bench.MemoryBenchmark.Progress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every variant is rated over the same input records, whatever it did before and after them. */
class InputRangeTest {
    private static final InputRange RANGE = new InputRange(1_000, 3_000);

    @Test
    void theRateIsOverTheSamplesThatFirstPassedEachEndOfTheRange() {
        List<Progress> progress = List.of(
                new Progress(0, 500),
                new Progress(1_000, 1_200), // first past 1,000
                new Progress(2_000, 2_000),
                new Progress(3_000, 3_100), // first past 3,000
                new Progress(4_000, 9_000)); // after the range: not counted

        assertThat(RANGE.rate(progress)).isEqualTo((3_100 - 1_200) / 2.0);
        assertThat(RANGE.passed(progress)).isTrue();
    }

    @Test
    void aRunKilledInsideTheRangeIsRatedOverWhatItReachedAndOneThatNeverReachedItIsNot() {
        List<Progress> killedInside =
                List.of(new Progress(0, 1_000), new Progress(1_000, 1_500), new Progress(2_000, 2_000));
        assertThat(RANGE.rate(killedInside)).isEqualTo(500.0);
        assertThat(RANGE.passed(killedInside)).isFalse();

        assertThat(RANGE.rate(List.of(new Progress(0, 10), new Progress(1_000, 900))))
                .isNaN();
        assertThat(RANGE.rate(List.of())).isNaN();
    }

    @Test
    void aRangeIsParsedFromFromColonTo() {
        assertThat(InputRange.parse(" 4000000:12000000 ")).isEqualTo(new InputRange(4_000_000, 12_000_000));
        assertThatThrownBy(() -> InputRange.parse("5:5")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputRange.parse("5")).isInstanceOf(IllegalArgumentException.class);
    }
}
