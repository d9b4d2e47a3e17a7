package io.streamsmemory.engine;

import java.util.Objects;

/**
 * The split the operator tuned for one workload from what its pods reported (write stalls, small flushes, storage
 * reads, GC pauses): each fraction replaces the model's default, and a user's {@link Overrides} fraction replaces it
 * in turn. The total is the pod's memory either way; only how RocksDB, the write buffers and the record cache share
 * it moves. {@code null} fractions keep the model's.
 *
 * @param rocksDbFraction     share of the pool for RocksDB, as {@link Overrides#rocksDbFraction()}
 * @param writeBufferFraction share of the block cache for memtables, as {@link Overrides#writeBufferFraction()}
 * @param recordCacheFraction share of the heap's data part for the record cache, as
 *                            {@link Overrides#recordCacheFraction()}
 * @param reason              what the pods showed that moved the split, for the allocation's explanation
 */
public record TunedSplit(
        Double rocksDbFraction, Double writeBufferFraction, Double recordCacheFraction, String reason) {
    public TunedSplit {
        Objects.requireNonNull(reason, "reason");
    }

    /** {@code forced} when the user forced it, else this split's, else the model's {@code model}. */
    static double pick(Double forced, Double tuned, double model) {
        return forced != null ? forced : tuned != null ? tuned : model;
    }
}
