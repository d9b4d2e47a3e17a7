package io.streamsmemory.agent.report;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;

/**
 * Stores and RocksDB's own gauges from one KafkaStreams instance's metrics registry, with Kafka's own types: the
 * registry holds a thousand metrics or more (each store alone has dozens), and walking it by reflection cost most of a
 * report (measured: 0.4 ms of 0.57 ms per report with 8 stores). Kept apart from {@link StreamsFigures} so that a Kafka
 * the agent's class loader cannot see (a fat-jar launcher) fails here alone, as a LinkageError its caller catches.
 */
final class StoreMetrics {
    static final String STATE_GROUP = "stream-state-metrics";
    static final String MEMTABLES = "cur-size-all-mem-tables";

    /**
     * Kafka Streams' RocksDB gauges read from each instance's properties at the default recording level INFO
     * (KIP-607), summed over every store into the report's {@code rocksdb} section under the name on the right. They
     * say whether writes wait on flushes (immutable memtables and pending flushes near two a store: the next write
     * stops) or on compactions, at the moment of the report, for nothing more than a read of the registry.
     */
    static final Map<String, String> ROCKSDB_GAUGES = Map.of(
            MEMTABLES,
            "memtableBytes",
            "num-immutable-mem-table",
            "immutableMemtables",
            "mem-table-flush-pending",
            "memtableFlushesPending",
            "num-running-flushes",
            "runningFlushes",
            "estimate-pending-compaction-bytes",
            "pendingCompactionBytes",
            "num-running-compactions",
            "runningCompactions");

    private StoreMetrics() {}

    /**
     * Adds each store's tag set to {@code stores} and each RocksDB gauge of {@link #ROCKSDB_GAUGES} to its sum in
     * {@code sums} (a gauge no store reports stays out); throws ClassCastException when the registry is of another
     * class loader's Kafka.
     */
    static void read(Object registry, Set<Map<String, String>> stores, Map<String, Long> sums) {
        for (Map.Entry<MetricName, ? extends Metric> entry :
                ((Metrics) registry).metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (!STATE_GROUP.equals(name.group())) {
                continue;
            }
            Map<String, String> tags = name.tags();
            if (!stores.contains(tags) && isStore(tags)) {
                stores.add(tags);
            }
            String field = ROCKSDB_GAUGES.get(name.name());
            if (field != null) {
                Object value = entry.getValue().metricValue();
                if (value instanceof Number) {
                    sums.merge(field, ((Number) value).longValue(), Long::sum);
                }
            }
        }
    }

    /** Whether a state metric names a store: a "…-state-id" tag (rocksdb-state-id, in-memory-state-id, …). */
    private static boolean isStore(Map<String, String> tags) {
        for (String key : tags.keySet()) {
            if (key.endsWith("-state-id")) {
                return true;
            }
        }
        return false;
    }
}
