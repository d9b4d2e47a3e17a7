package io.streamsmemory.engine;

/**
 * Optional choices a user can force; {@code null} means "let the engine decide".
 *
 * @param heapBytes             fixed JVM heap ({@code -Xmx}); RocksDB then gets what the heap leaves
 * @param rocksDbFraction       share of the pool (after JVM overhead, headroom and client I/O) given to RocksDB
 * @param recordCacheFraction   share of the heap's data part (after client buffers) given to the record cache
 * @param strictCacheLimit      fail RocksDB inserts instead of overshooting the shared block cache
 * @param highPriorityPoolRatio share of the block cache reserved for index and filter blocks
 */
public record Overrides(
        Long heapBytes,
        Double rocksDbFraction,
        Double recordCacheFraction,
        Boolean strictCacheLimit,
        Double highPriorityPoolRatio) {
    public static final Overrides NONE = new Overrides(null, null, null, null, null);

    public Overrides withHeapBytes(Long value) {
        return new Overrides(value, rocksDbFraction, recordCacheFraction, strictCacheLimit, highPriorityPoolRatio);
    }

    public Overrides withRocksDbFraction(Double value) {
        return new Overrides(heapBytes, value, recordCacheFraction, strictCacheLimit, highPriorityPoolRatio);
    }

    public Overrides withRecordCacheFraction(Double value) {
        return new Overrides(heapBytes, rocksDbFraction, value, strictCacheLimit, highPriorityPoolRatio);
    }

    public Overrides withStrictCacheLimit(Boolean value) {
        return new Overrides(heapBytes, rocksDbFraction, recordCacheFraction, value, highPriorityPoolRatio);
    }

    public Overrides withHighPriorityPoolRatio(Double value) {
        return new Overrides(heapBytes, rocksDbFraction, recordCacheFraction, strictCacheLimit, value);
    }
}
