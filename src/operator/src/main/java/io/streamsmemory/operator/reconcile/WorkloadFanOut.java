package io.streamsmemory.operator.reconcile;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Runs one piece of work per workload of a policy, at most {@link #LANES} at once, on java-operator-sdk's own
 * executor ({@code Context#getWorkflowExecutorService}, the one its dependent-resource workflows use: sized by its
 * configuration, shut down with the operator), and waits for them all, as the SDK's workflows do on the reconcile
 * thread. Most of a workload's time is API round trips, so several at once shorten a policy of many workloads.
 */
final class WorkloadFanOut {
    /** Workloads of one policy reconciled at once. */
    static final int LANES = 8;

    private WorkloadFanOut() {}

    /**
     * The results of {@code work} for each of {@code items}, in their order. Each lane takes the next item not taken
     * yet, so a slow workload holds up only its own lane. An exception {@code work} throws is not caught for it.
     */
    static <T, R> List<R> each(List<T> items, Function<T, R> work, ExecutorService executor) {
        Object[] results = new Object[items.size()];
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> lanes = new ArrayList<>();
        for (int lane = 0; lane < Math.min(LANES, items.size()); lane++) {
            lanes.add(executor.submit(() -> {
                for (int i = next.getAndIncrement(); i < items.size(); i = next.getAndIncrement()) {
                    results[i] = work.apply(items.get(i));
                }
            }));
        }
        lanes.forEach(WorkloadFanOut::await);
        @SuppressWarnings("unchecked")
        List<R> done = (List<R>) Arrays.asList(results);
        return List.copyOf(done);
    }

    private static void await(Future<?> lane) {
        try {
            lane.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reconciling the policy's workloads", e);
        } catch (ExecutionException e) {
            // WorkloadReconciler turns every RuntimeException into a failed outcome; an Error is not ours to hide.
            throw new IllegalStateException(e.getCause());
        }
    }
}
