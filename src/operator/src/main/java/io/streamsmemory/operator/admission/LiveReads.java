package io.streamsmemory.operator.admission;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The webhook's calls past the cache (a workload or ConfigMap its cache has not seen yet, a first allocation), each
 * awaited with a timeout by its caller. They run on this small pool, not the JDK's common pool, which has one thread
 * on a 2-core node and serves the whole JVM: a blocking call there waits behind any other. Its threads end when idle;
 * a call it cannot queue fails at once, and its caller treats it as late (the pod is admitted as a late read leaves
 * it).
 */
final class LiveReads {
    static final int THREADS = 4;
    private static final int QUEUED = 64;
    private static final ThreadPoolExecutor POOL = pool();

    private LiveReads() {}

    /** {@code call} started on the pool. */
    static <T> CompletableFuture<T> start(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, POOL);
    }

    private static ThreadPoolExecutor pool() {
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUED), r -> {
                    Thread thread = new Thread(r, "webhook-live-read");
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
