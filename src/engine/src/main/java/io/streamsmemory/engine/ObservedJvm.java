package io.streamsmemory.engine;

/**
 * What the application's JVMs were seen to use of the caps the model otherwise plans for any application: the peaks
 * over the operator's observation window, across the workload's pods (agents' reports). With them the engine plans
 * {@code spec.jvm.sizing: Observed}: each cap at its peak plus a margin, within a floor and the declared cap (see
 * {@link MemoryModel#LEARNED_METASPACE_MARGIN_PERCENT}), and gives what that frees to RocksDB's write buffers.
 *
 * @param metaspaceBytes peak bytes used in the Metaspace pool
 * @param codeCacheBytes peak bytes used in the code cache (all its pools)
 * @param threads        peak live JVM threads
 */
public record ObservedJvm(long metaspaceBytes, long codeCacheBytes, long threads) {
    /** Problems with the figures (each must be positive: a pod that reported nothing has no observed JVM). */
    String problem() {
        if (metaspaceBytes <= 0 || codeCacheBytes <= 0 || threads <= 0) {
            return "observed JVM peaks must be positive, got " + this;
        }
        return null;
    }
}
