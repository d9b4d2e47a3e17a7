package io.streamsmemory.engine.fuzz;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fuzz targets' bound on one try ("a parser never blocks what it runs in"), counted in the CPU time of the thread
 * that runs it, not on the wall clock: {@code make test} runs three lanes of classes and two of modules on two cores
 * (load averages of 30-60), where a try that needs 5 ms can wait a second for a core, and a wall-clock bound of one
 * second failed tries that had done nothing wrong. A try that computes past its budget (a loop, a pathological input)
 * fails as soon as the budget is spent; one that waits without computing (a lock, a read that never returns) fails
 * after {@link #WAITING}, far beyond any delay the load makes.
 */
public final class CpuBudget {
    /** How long a try may wait without computing. */
    static final Duration WAITING = Duration.ofSeconds(60);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final long POLL_MILLIS = 20;

    private CpuBudget() {}

    /**
     * {@code work}'s result, computed in a thread of its own; what it throws is thrown as it is, so a caller catches a
     * refusal (an IllegalArgumentException, say) as it would without the bound. An AssertionError when it spends more
     * than {@code cpu} of its thread's CPU time, or waits longer than {@link #WAITING}.
     */
    public static <T> T within(Duration cpu, Callable<T> work) {
        AtomicLong spentNanos = new AtomicLong();
        FutureTask<T> task = new FutureTask<>(() -> {
            long start = THREADS.getCurrentThreadCpuTime();
            try {
                return work.call();
            } finally {
                spentNanos.set(THREADS.getCurrentThreadCpuTime() - start);
            }
        });
        Thread worker = new Thread(task, "cpu-budget");
        worker.setDaemon(true);
        worker.start();
        long waitUntil = System.nanoTime() + WAITING.toNanos();
        while (true) {
            try {
                T result = task.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
                failOver(cpu, spentNanos.get());
                return result;
            } catch (TimeoutException stillRunning) {
                // The worker's CPU time so far (-1 once it has ended: the finished task's own figure is checked above).
                failOver(cpu, THREADS.getThreadCpuTime(worker.getId()), worker);
                if (System.nanoTime() > waitUntil) {
                    worker.interrupt();
                    throw new AssertionError("did not finish within " + WAITING + " while computing for only "
                            + TimeUnit.NANOSECONDS.toMillis(THREADS.getThreadCpuTime(worker.getId())) + " ms");
                }
            } catch (ExecutionException e) {
                failOver(cpu, spentNanos.get());
                throw CpuBudget.<RuntimeException>asUnchecked(e.getCause());
            } catch (InterruptedException e) {
                worker.interrupt();
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for the try", e);
            }
        }
    }

    private static void failOver(Duration cpu, long spentNanos, Thread... stillRunning) {
        if (spentNanos > cpu.toNanos()) {
            for (Thread worker : stillRunning) {
                worker.interrupt();
            }
            throw new AssertionError("computed for " + TimeUnit.NANOSECONDS.toMillis(spentNanos)
                    + " ms of CPU time, over " + cpu.toMillis() + " ms");
        }
    }

    /** Throws a checked cause as it is (the caller's lambda could throw it), without wrapping it. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E asUnchecked(Throwable cause) throws E {
        throw (E) cause;
    }
}
