package io.streamsmemory.engine;

/**
 * The settings the agent's RocksDB config setter applies to every store of the JVM: one shared
 * block cache, one WriteBufferManager charged to it, the flush threads of the JVM's RocksDB environment, and whether
 * the last sorted run keeps its Bloom filters ({@code lastLevelFilters}: {@code optimize_filters_for_hits=false} where
 * the application's own setter left Kafka Streams' value).
 */
public record RocksDbSettings(
        long blockCacheCapacityBytes,
        long writeBufferManagerBytes,
        long writeBufferSizeBytes,
        int maxWriteBufferNumber,
        double highPriorityPoolRatio,
        boolean strictCapacityLimit,
        long arenaBlockSizeBytes,
        int backgroundFlushThreads,
        boolean lastLevelFilters) {

    /**
     * The settings as the allocation's hashes digest them, from explicit names: the form a record's {@code toString()}
     * gave when the hashes were first computed, kept so that renaming or adding a component (which changes
     * {@code toString()}) does not change every restart hash and roll every workload. The arena block size, the
     * flush threads and the last level's filters are not part of it: they bound no memory (the manager and the cache
     * do), so a pod takes new ones at its next start and no change to them rolls one.
     */
    String canonical() {
        return "RocksDbSettings[blockCacheCapacityBytes=" + blockCacheCapacityBytes
                + ", writeBufferManagerBytes=" + writeBufferManagerBytes
                + ", writeBufferSizeBytes=" + writeBufferSizeBytes
                + ", maxWriteBufferNumber=" + maxWriteBufferNumber
                + ", highPriorityPoolRatio=" + highPriorityPoolRatio
                + ", strictCapacityLimit=" + strictCapacityLimit + "]";
    }
}
