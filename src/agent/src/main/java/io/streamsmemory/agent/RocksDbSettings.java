package io.streamsmemory.agent;

/**
 * The {@code rocksdb} object of an allocation document (the engine's {@code RocksDbSettings}): one shared block cache
 * and one WriteBufferManager charged to it for every store of the JVM.
 */
public record RocksDbSettings(long blockCacheCapacityBytes, long writeBufferManagerBytes, long writeBufferSizeBytes,
                              int maxWriteBufferNumber, double highPriorityPoolRatio, boolean strictCapacityLimit,
                              long arenaBlockSizeBytes) {
}
