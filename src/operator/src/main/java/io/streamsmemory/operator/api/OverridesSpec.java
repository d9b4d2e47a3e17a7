package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.WorkloadFacts;

/** Choices that replace the engine's defaults. */
public class OverridesSpec {
    @Pattern(StreamsMemoryPolicySpec.QUANTITY)
    @JsonPropertyDescription("Fix the JVM heap (-Xmx); RocksDB gets what the heap leaves.")
    private String heap;

    @Min(0)
    @Max(WorkloadFacts.MAX_ROCKSDB_FRACTION)
    @JsonPropertyDescription("Share of the pool (after JVM overhead, headroom and client I/O) for RocksDB; default "
            + MemoryModel.ROCKSDB_FRACTION + ".")
    private Double rocksDbFraction;

    @Min(0)
    @Max(WorkloadFacts.MAX_RECORD_CACHE_FRACTION)
    @JsonPropertyDescription("Share of the heap after client buffers for the record cache; default "
            + MemoryModel.RECORD_CACHE_FRACTION + ".")
    private Double recordCacheFraction;

    @JsonPropertyDescription("Fail RocksDB inserts instead of overshooting the shared block cache; default false.")
    private Boolean strictCacheLimit;

    @Min(0)
    @Max(WorkloadFacts.MAX_HIGH_PRIORITY_POOL_RATIO)
    @JsonPropertyDescription("Share of the block cache kept for index and filter blocks; default "
            + MemoryModel.HIGH_PRIORITY_POOL_RATIO + ".")
    private Double highPriorityPoolRatio;

    @Min(0)
    @Max(WorkloadFacts.MAX_WRITE_BUFFER_FRACTION)
    @JsonPropertyDescription("Share of the block cache charged to memtables (the WriteBufferManager); default 1/"
            + MemoryModel.WRITE_BUFFER_DIVISOR + ". Set, it also stops the operator tuning this share.")
    private Double writeBufferFraction;

    public Double getWriteBufferFraction() {
        return writeBufferFraction;
    }

    public void setWriteBufferFraction(Double writeBufferFraction) {
        this.writeBufferFraction = writeBufferFraction;
    }

    public String getHeap() {
        return heap;
    }

    public void setHeap(String heap) {
        this.heap = heap;
    }

    public Double getRocksDbFraction() {
        return rocksDbFraction;
    }

    public void setRocksDbFraction(Double rocksDbFraction) {
        this.rocksDbFraction = rocksDbFraction;
    }

    public Double getRecordCacheFraction() {
        return recordCacheFraction;
    }

    public void setRecordCacheFraction(Double recordCacheFraction) {
        this.recordCacheFraction = recordCacheFraction;
    }

    public Boolean getStrictCacheLimit() {
        return strictCacheLimit;
    }

    public void setStrictCacheLimit(Boolean strictCacheLimit) {
        this.strictCacheLimit = strictCacheLimit;
    }

    public Double getHighPriorityPoolRatio() {
        return highPriorityPoolRatio;
    }

    public void setHighPriorityPoolRatio(Double highPriorityPoolRatio) {
        this.highPriorityPoolRatio = highPriorityPoolRatio;
    }
}
