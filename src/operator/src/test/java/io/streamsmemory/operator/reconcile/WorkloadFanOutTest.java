package io.streamsmemory.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WorkloadFanOutTest {
    @Test
    void eachWorkloadsResultComesBackInOrderWithAtMostEightAtOnce() {
        ExecutorService executor = Executors.newFixedThreadPool(32);
        try {
            AtomicInteger running = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            List<Integer> items = IntStream.range(0, 40).boxed().toList();
            List<Integer> doubled = WorkloadFanOut.each(
                    items,
                    i -> {
                        most.accumulateAndGet(running.incrementAndGet(), Math::max);
                        try {
                            Thread.sleep(5);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        running.decrementAndGet();
                        return i * 2;
                    },
                    executor);
            assertThat(doubled).isEqualTo(items.stream().map(i -> i * 2).toList());
            assertThat(most.get()).isBetween(1, WorkloadFanOut.LANES);
            assertThat(WorkloadFanOut.each(List.<Integer>of(), i -> i, executor))
                    .isEmpty();
        } finally {
            executor.shutdownNow();
        }
    }
}
