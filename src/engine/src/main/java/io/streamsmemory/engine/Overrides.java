package io.streamsmemory.engine;

/**
 * Optional choices a user can force; {@code null} means "let the engine decide". A forced fraction also wins over
 * the split the operator tunes from the pods' reports ({@link TunedSplit}).
 *
 * @param heapBytes             fixed JVM heap ({@code -Xmx}); RocksDB then gets what the heap leaves
 * @param rocksDbFraction       share of the pool (after JVM overhead, headroom and client I/O) given to RocksDB
 * @param recordCacheFraction   share of the heap's data part (after client buffers) given to the record cache
 * @param strictCacheLimit      fail RocksDB inserts instead of overshooting the shared block cache
 * @param highPriorityPoolRatio share of the block cache reserved for index and filter blocks
 * @param writeBufferFraction   share of the block cache charged to memtables (the WriteBufferManager)
 */
public record Overrides(
        Long heapBytes,
        Double rocksDbFraction,
        Double recordCacheFraction,
        Boolean strictCacheLimit,
        Double highPriorityPoolRatio,
        Double writeBufferFraction) {
    public static final Overrides NONE = new Overrides(null, null, null, null, null, null);

    public Overrides withHeapBytes(Long value) {
        return new Overrides(
                value,
                rocksDbFraction,
                recordCacheFraction,
                strictCacheLimit,
                highPriorityPoolRatio,
                writeBufferFraction);
    }

    public Overrides withRocksDbFraction(Double value) {
        return new Overrides(
                heapBytes, value, recordCacheFraction, strictCacheLimit, highPriorityPoolRatio, writeBufferFraction);
    }

    public Overrides withRecordCacheFraction(Double value) {
        return new Overrides(
                heapBytes, rocksDbFraction, value, strictCacheLimit, highPriorityPoolRatio, writeBufferFraction);
    }

    public Overrides withStrictCacheLimit(Boolean value) {
        return new Overrides(
                heapBytes, rocksDbFraction, recordCacheFraction, value, highPriorityPoolRatio, writeBufferFraction);
    }

    public Overrides withHighPriorityPoolRatio(Double value) {
        return new Overrides(
                heapBytes, rocksDbFraction, recordCacheFraction, strictCacheLimit, value, writeBufferFraction);
    }

    public Overrides withWriteBufferFraction(Double value) {
        return new Overrides(
                heapBytes, rocksDbFraction, recordCacheFraction, strictCacheLimit, highPriorityPoolRatio, value);
    }
}
