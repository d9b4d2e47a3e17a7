package org.apache.kafka.streams.state.internals;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;

/**
 * {@code make bench-record-cache} (issue 43, point 2): the heap Kafka Streams' record cache really takes per byte it
 * counts against {@code statestore.cache.max.bytes}. It fills a real {@link ThreadCache} with entries as a caching
 * key-value store puts them and compares the live heap (after a full GC) with the cache's own count. In this package
 * because the cache's size and its entries' constructor are package-private: nothing here changes Kafka's classes.
 * <p>Kafka Streams counts an entry's key, value and record context (timestamp, offset, partition, topic, headers). It
 * does not count the map and list nodes that hold it, the objects around the bytes, or (from 4.x, KIP-1034) the source
 * record's raw key and value, which every cached entry of a store fed by that record keeps for the processing
 * exception handler. Arguments: entries per measurement (default 200,000).
 */
public final class RecordCacheHeapCost {
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    private static final String NAMESPACE = "0_0-bench-store";
    private static final int KEY_BYTES = 12;

    private RecordCacheHeapCost() {}

    /** One measurement: the counted and the live bytes per entry. */
    record Cost(int valueBytes, int sourceValueBytes, long entries, double countedPerEntry, double heapPerEntry) {
        double heapPerCountedByte() {
            return heapPerEntry / countedPerEntry;
        }
    }

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        System.out.println("record cache heap cost: " + entries + " entries of a " + KEY_BYTES + "-byte key each, "
                + "Kafka Streams' ThreadCache on this classpath");
        // A count (16 bytes: timestamped long), the bench application's latest value (158), a 1 KiB order; each with
        // the source record's raw bytes absent (Kafka Streams 3.x) and present (4.x) at the bench's 150-byte input or
        // RealLimitTest's 1 KiB order.
        int[][] shapes = {{16, 0}, {16, 150}, {16, 1024}, {158, 0}, {158, 150}, {1032, 0}, {1032, 1024}};
        for (int[] shape : shapes) {
            measure(shape[0], shape[1], entries / 4); // warm-up: class loading, JIT
        }
        for (int[] shape : shapes) {
            Cost cost = measure(shape[0], shape[1], entries);
            System.out.printf(
                    Locale.ROOT,
                    "record-cache: value_bytes=%d source_value_bytes=%d counted_per_entry=%.0f heap_per_entry=%.0f "
                            + "heap_per_counted_byte=%.2f%n",
                    cost.valueBytes(),
                    cost.sourceValueBytes(),
                    cost.countedPerEntry(),
                    cost.heapPerEntry(),
                    cost.heapPerCountedByte());
        }
    }

    static Cost measure(int valueBytes, int sourceValueBytes, int entries) {
        long before = liveHeap();
        ThreadCache cache = new ThreadCache(
                new LogContext(), Long.MAX_VALUE / 4, new StreamsMetricsImpl(new Metrics(), "bench", Time.SYSTEM));
        for (int i = 0; i < entries; i++) {
            byte[] key = String.format(Locale.ROOT, "key-%08d", i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            // One source record per entry, as when every input record updates a different key.
            byte[] sourceKey = sourceValueBytes == 0 ? null : key.clone();
            byte[] sourceValue = sourceValueBytes == 0 ? null : new byte[sourceValueBytes];
            cache.put(
                    NAMESPACE,
                    Bytes.wrap(key),
                    new LRUCacheEntry(
                            new byte[valueBytes],
                            new RecordHeaders(),
                            true,
                            i,
                            System.currentTimeMillis(),
                            0,
                            "bench-input",
                            sourceKey,
                            sourceValue));
        }
        long after = liveHeap();
        long counted = cache.sizeBytes();
        Cost cost = new Cost(
                valueBytes, sourceValueBytes, entries, counted / (double) entries, (after - before) / (double) entries);
        // Keep the cache reachable until after the measurement.
        if (cache.size() != entries) {
            throw new IllegalStateException("the cache evicted entries: " + cache.size() + " of " + entries);
        }
        return cost;
    }

    private static long liveHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
