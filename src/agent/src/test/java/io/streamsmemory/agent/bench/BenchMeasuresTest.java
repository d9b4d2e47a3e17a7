package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark's own arithmetic: which order a repeat runs its variants in, and how CPU and steal are read. */
class BenchMeasuresTest {
    @Test
    void eachRepeatStartsOneVariantLater() {
        List<String> variants = List.of("default", "docs-bounded", "agent");

        assertThat(MemoryBenchmark.inTurn(variants, 1)).containsExactly("default", "docs-bounded", "agent");
        assertThat(MemoryBenchmark.inTurn(variants, 2)).containsExactly("docs-bounded", "agent", "default");
        assertThat(MemoryBenchmark.inTurn(variants, 3)).containsExactly("agent", "default", "docs-bounded");
        assertThat(MemoryBenchmark.inTurn(variants, 4)).containsExactly("default", "docs-bounded", "agent");
    }

    @Test
    void readsThisJvmsCpuAndTheMachinesSteal() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        CpuSample before = CpuSample.read(ProcessHandle.current().pid());
        // Spin until this thread alone has used 300 ms of CPU (by the JVM's own count, not the wall clock, so a busy
        // machine that schedules the thread less does not shorten it), for at most 60 s: make test beside a build
        // gave it under 300 ms in 10 s.
        long threadStart = threads.getCurrentThreadCpuTime();
        long giveUp = System.nanoTime() + 60_000_000_000L;
        long sink = 0;
        while (threads.getCurrentThreadCpuTime() - threadStart < 300_000_000L && System.nanoTime() < giveUp) {
            sink += System.nanoTime() % 7;
        }
        double threadSeconds = (threads.getCurrentThreadCpuTime() - threadStart) / 1e9;
        CpuSample after = CpuSample.read(ProcessHandle.current().pid());

        assertThat(sink).isPositive();
        assertThat(before).isNotNull();
        assertThat(threadSeconds).isGreaterThanOrEqualTo(0.3);
        // The process's CPU includes this thread's; /proc counts in 10 ms ticks, so allow two ticks of rounding.
        assertThat(after.processSecondsSince(before)).isGreaterThanOrEqualTo(threadSeconds - 0.02);
        assertThat(after.machineTicks()).isGreaterThan(before.machineTicks());
        assertThat(after.stealShareSince(before)).isBetween(0.0, 1.0);
    }

    @Test
    void takesTheLastSampleAtOrBeforeATime() {
        CpuSample first = new CpuSample(1_000, 10, 0, 100);
        CpuSample second = new CpuSample(2_000, 60, 25, 300);
        List<CpuSample> samples = List.of(first, second);

        assertThat(CpuSample.at(samples, 500)).isSameAs(first);
        assertThat(CpuSample.at(samples, 1_999)).isSameAs(first);
        assertThat(CpuSample.at(samples, 2_500)).isSameAs(second);
        assertThat(second.processSecondsSince(first)).isEqualTo(0.5);
        assertThat(second.stealShareSince(first)).isEqualTo(0.125);
    }
}
