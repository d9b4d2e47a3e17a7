package io.streamsmemory.engine;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What the application's JVMs were seen to use of the caps the model otherwise plans for any application: the peaks
 * over the operator's observation window, across the workload's pods (agents' reports). With them the engine plans
 * {@code spec.jvm.sizing: Observed}: each cap at its peak plus a margin, within a floor and the declared cap (see
 * {@link MemoryModel#LEARNED_METASPACE_MARGIN_PERCENT}), and gives what that frees to RocksDB's write buffers.
 *
 * @param metaspaceBytes peak bytes used in the Metaspace pool
 * @param codeCacheBytes peak bytes used in the code cache (all its pools)
 * @param threads        peak live JVM threads
 * @param headroomBytes  peak resident memory beyond the parts the plan bounds ({@link #headroomUsed}), seen only in
 *                       pods that ran long enough for RocksDB to flush and compact; 0 when no pod reported it: the
 *                       plan then keeps the model's headroom
 */
public record ObservedJvm(
        long metaspaceBytes,
        long codeCacheBytes,
        long threads,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) long headroomBytes) {
    /** Without a headroom figure: the model's headroom. */
    public ObservedJvm(long metaspaceBytes, long codeCacheBytes, long threads) {
        this(metaspaceBytes, codeCacheBytes, threads, 0);
    }

    /**
     * What one JVM holds in the plan's headroom: its resident memory less what the plan's bounded parts account for,
     * each as the agent reports it (heap committed, metaspace and code cache used, direct buffers used, the shared
     * block cache's usage, memtables outside it) and the resident stack the plan gives each live thread
     * ({@link MemoryModel#THREAD_STACK_RESIDENT}). RocksDB's per-instance native overhead stays in the figure, so
     * it errs towards more headroom.
     */
    public static long headroomUsed(
            long rssBytes,
            long heapCommittedBytes,
            long metaspaceUsedBytes,
            long codeCacheUsedBytes,
            long directUsedBytes,
            long liveThreads,
            long blockCacheUsageBytes,
            long unsharedMemtableBytes) {
        return rssBytes
                - heapCommittedBytes
                - metaspaceUsedBytes
                - codeCacheUsedBytes
                - directUsedBytes
                - liveThreads * MemoryModel.THREAD_STACK_RESIDENT
                - blockCacheUsageBytes
                - unsharedMemtableBytes;
    }

    /**
     * Problems with the figures (each must be positive, the headroom's at least 0: a pod that reported nothing has no
     * observed JVM).
     */
    String problem() {
        if (metaspaceBytes <= 0 || codeCacheBytes <= 0 || threads <= 0 || headroomBytes < 0) {
            return "observed JVM peaks must be positive, got " + this;
        }
        return null;
    }
}
