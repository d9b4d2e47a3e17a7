package io.streamsmemory.agent.allocation;

import java.util.Objects;

/**
 * The {@code rocksdb} object of an allocation document (the engine's {@code RocksDbSettings}): one shared block cache
 * and one WriteBufferManager charged to it for every store of the JVM, and the flush threads of the JVM's RocksDB
 * environment. A plain class, not a record: the agent is compiled for Java 11.
 */
public final class RocksDbSettings {
    private final long blockCacheCapacityBytes;
    private final long writeBufferManagerBytes;
    private final long writeBufferSizeBytes;
    private final int maxWriteBufferNumber;
    private final double highPriorityPoolRatio;
    private final boolean strictCapacityLimit;
    private final long arenaBlockSizeBytes;
    private final int backgroundFlushThreads;
    private final boolean lastLevelFilters;

    public RocksDbSettings(
            long blockCacheCapacityBytes,
            long writeBufferManagerBytes,
            long writeBufferSizeBytes,
            int maxWriteBufferNumber,
            double highPriorityPoolRatio,
            boolean strictCapacityLimit,
            long arenaBlockSizeBytes,
            int backgroundFlushThreads,
            boolean lastLevelFilters) {
        this.blockCacheCapacityBytes = blockCacheCapacityBytes;
        this.writeBufferManagerBytes = writeBufferManagerBytes;
        this.writeBufferSizeBytes = writeBufferSizeBytes;
        this.maxWriteBufferNumber = maxWriteBufferNumber;
        this.highPriorityPoolRatio = highPriorityPoolRatio;
        this.strictCapacityLimit = strictCapacityLimit;
        this.arenaBlockSizeBytes = arenaBlockSizeBytes;
        this.backgroundFlushThreads = backgroundFlushThreads;
        this.lastLevelFilters = lastLevelFilters;
    }

    public long blockCacheCapacityBytes() {
        return blockCacheCapacityBytes;
    }

    public long writeBufferManagerBytes() {
        return writeBufferManagerBytes;
    }

    public long writeBufferSizeBytes() {
        return writeBufferSizeBytes;
    }

    public int maxWriteBufferNumber() {
        return maxWriteBufferNumber;
    }

    public double highPriorityPoolRatio() {
        return highPriorityPoolRatio;
    }

    public boolean strictCapacityLimit() {
        return strictCapacityLimit;
    }

    public long arenaBlockSizeBytes() {
        return arenaBlockSizeBytes;
    }

    /** RocksDB's flush threads for the JVM; 0 in documents written before the engine planned them: RocksDB's own. */
    public int backgroundFlushThreads() {
        return backgroundFlushThreads;
    }

    /**
     * Whether the last sorted run keeps its Bloom filters ({@code optimize_filters_for_hits=false}) where the
     * application's own setter left Kafka Streams' value; false in documents written before the engine planned it.
     */
    public boolean lastLevelFilters() {
        return lastLevelFilters;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof RocksDbSettings)) {
            return false;
        }
        RocksDbSettings that = (RocksDbSettings) other;
        return blockCacheCapacityBytes == that.blockCacheCapacityBytes
                && writeBufferManagerBytes == that.writeBufferManagerBytes
                && writeBufferSizeBytes == that.writeBufferSizeBytes
                && maxWriteBufferNumber == that.maxWriteBufferNumber
                && Double.compare(highPriorityPoolRatio, that.highPriorityPoolRatio) == 0
                && strictCapacityLimit == that.strictCapacityLimit
                && arenaBlockSizeBytes == that.arenaBlockSizeBytes
                && backgroundFlushThreads == that.backgroundFlushThreads
                && lastLevelFilters == that.lastLevelFilters;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                blockCacheCapacityBytes,
                writeBufferManagerBytes,
                writeBufferSizeBytes,
                maxWriteBufferNumber,
                highPriorityPoolRatio,
                strictCapacityLimit,
                arenaBlockSizeBytes,
                backgroundFlushThreads,
                lastLevelFilters);
    }

    @Override
    public String toString() {
        return "RocksDbSettings[blockCacheCapacityBytes=" + blockCacheCapacityBytes + ", writeBufferManagerBytes="
                + writeBufferManagerBytes + ", writeBufferSizeBytes=" + writeBufferSizeBytes + ", maxWriteBufferNumber="
                + maxWriteBufferNumber + ", highPriorityPoolRatio=" + highPriorityPoolRatio + ", strictCapacityLimit="
                + strictCapacityLimit + ", arenaBlockSizeBytes=" + arenaBlockSizeBytes + ", backgroundFlushThreads="
                + backgroundFlushThreads + ", lastLevelFilters=" + lastLevelFilters + "]";
    }
}
