package io.streamsmemory.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CpuBudgetTest {
    private static final Duration BUDGET = Duration.ofMillis(100);

    @Test
    void aTryThatWaitsWithoutComputingPassesWhateverTheWallClockSays() {
        assertThat(CpuBudget.within(BUDGET, () -> {
                    Thread.sleep(300);
                    return "slept";
                }))
                .isEqualTo("slept");
    }

    @Test
    void aTryThatComputesPastItsBudgetFails() {
        assertThatThrownBy(() -> CpuBudget.within(BUDGET, () -> spin(Duration.ofMillis(400))))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("ms of CPU time, over 100 ms");
    }

    @Test
    void whatTheTryThrowsIsThrownAsItIs() {
        assertThatThrownBy(() -> CpuBudget.within(BUDGET, () -> {
                    throw new IllegalArgumentException("refused");
                }))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("refused");
    }

    /** Spends {@code cpu} of this thread's CPU time. */
    private static long spin(Duration cpu) {
        var threads = ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + cpu.toNanos();
        long sum = 0;
        while (threads.getCurrentThreadCpuTime() < until) {
            sum += System.nanoTime() % 7;
        }
        return sum;
    }
}
