package io.streamsmemory.engine;

/**
 * The settings the agent's RocksDB config setter applies to every store of the JVM: one shared
 * block cache, one WriteBufferManager charged to it.
 */
public record RocksDbSettings(long blockCacheCapacityBytes, long writeBufferManagerBytes, long writeBufferSizeBytes,
                              int maxWriteBufferNumber, double highPriorityPoolRatio, boolean strictCapacityLimit,
                              long arenaBlockSizeBytes) {
}
