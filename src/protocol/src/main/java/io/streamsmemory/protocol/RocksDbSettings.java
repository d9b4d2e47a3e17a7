package io.streamsmemory.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The {@code rocksdb} object of an allocation document: the settings the agent's RocksDB config setter applies to every
 * store of the JVM. One shared block cache, one WriteBufferManager charged to it, the flush threads of the JVM's RocksDB
 * environment, and whether the last sorted run keeps its Bloom filters ({@code lastLevelFilters}:
 * {@code optimize_filters_for_hits=false} where the application's own setter left Kafka Streams' value). A plain
 * class, not a record: the agent carries it into applications from Java 11.
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

    @JsonCreator
    public RocksDbSettings(
            @JsonProperty("blockCacheCapacityBytes") long blockCacheCapacityBytes,
            @JsonProperty("writeBufferManagerBytes") long writeBufferManagerBytes,
            @JsonProperty("writeBufferSizeBytes") long writeBufferSizeBytes,
            @JsonProperty("maxWriteBufferNumber") int maxWriteBufferNumber,
            @JsonProperty("highPriorityPoolRatio") double highPriorityPoolRatio,
            @JsonProperty("strictCapacityLimit") boolean strictCapacityLimit,
            @JsonProperty("arenaBlockSizeBytes") long arenaBlockSizeBytes,
            @JsonProperty("backgroundFlushThreads") int backgroundFlushThreads,
            @JsonProperty("lastLevelFilters") boolean lastLevelFilters) {
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

    @JsonProperty
    public long blockCacheCapacityBytes() {
        return blockCacheCapacityBytes;
    }

    @JsonProperty
    public long writeBufferManagerBytes() {
        return writeBufferManagerBytes;
    }

    @JsonProperty
    public long writeBufferSizeBytes() {
        return writeBufferSizeBytes;
    }

    @JsonProperty
    public int maxWriteBufferNumber() {
        return maxWriteBufferNumber;
    }

    @JsonProperty
    public double highPriorityPoolRatio() {
        return highPriorityPoolRatio;
    }

    @JsonProperty
    public boolean strictCapacityLimit() {
        return strictCapacityLimit;
    }

    @JsonProperty
    public long arenaBlockSizeBytes() {
        return arenaBlockSizeBytes;
    }

    /** RocksDB's flush threads for the JVM; 0 in documents written before the engine planned them: RocksDB's own. */
    @JsonProperty
    public int backgroundFlushThreads() {
        return backgroundFlushThreads;
    }

    /**
     * Whether the last sorted run keeps its Bloom filters ({@code optimize_filters_for_hits=false}) where the
     * application's own setter left Kafka Streams' value; false in documents written before the engine planned it.
     */
    @JsonProperty
    public boolean lastLevelFilters() {
        return lastLevelFilters;
    }

    /**
     * The settings as the allocation's hashes digest them, from explicit names: the form the engine's record gave when
     * the hashes were first computed, kept so that renaming or adding a field does not change every restart hash and
     * roll every workload. The arena block size, the flush threads and the last level's filters are not part of it:
     * they bound no memory (the manager and the cache do), so a pod takes new ones at its next start and no change to
     * them rolls one.
     */
    public String canonical() {
        return "RocksDbSettings[blockCacheCapacityBytes=" + blockCacheCapacityBytes
                + ", writeBufferManagerBytes=" + writeBufferManagerBytes
                + ", writeBufferSizeBytes=" + writeBufferSizeBytes
                + ", maxWriteBufferNumber=" + maxWriteBufferNumber
                + ", highPriorityPoolRatio=" + highPriorityPoolRatio
                + ", strictCapacityLimit=" + strictCapacityLimit + "]";
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
        return canonical().substring(0, canonical().length() - 1) + ", arenaBlockSizeBytes=" + arenaBlockSizeBytes
                + ", backgroundFlushThreads=" + backgroundFlushThreads + ", lastLevelFilters=" + lastLevelFilters + "]";
    }
}
