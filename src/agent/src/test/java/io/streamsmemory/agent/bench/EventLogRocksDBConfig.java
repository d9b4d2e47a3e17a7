package io.streamsmemory.agent.bench;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.Statistics;

/**
 * The benchmark application's own RocksDB setter in every variant. It turns RocksDB's LOG back on at INFO, where its
 * event log records each flush and compaction ({@link RocksDbLogs} reads it after the run); Kafka Streams sets it to
 * ERROR before a setter runs. And it gives every store the one counters-only {@link Statistics} the application prints
 * every second ({@link RocksDbTickers}). The agent keeps an application's setter and applies its bound after it, so
 * every variant writes the same log and counts the same counters; the cost is a line per flush or compaction and a
 * per-core increment per counted event.
 */
public class EventLogRocksDBConfig implements RocksDBConfigSetter {
    /**
     * When set, the sorted runs that start a compaction ({@code level0_file_num_compaction_trigger}; Kafka Streams
     * leaves RocksDB's 4 under its universal compaction), for a candidate that sets it as an application could.
     */
    static final String COMPACTION_TRIGGER_PROPERTY = "bench.app.compactionTrigger";
    /** When true, flushes and compactions write past the page cache, for a candidate that sets it as an application could. */
    static final String DIRECT_IO_PROPERTY = "bench.app.directIo";

    private static volatile Statistics statistics;

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        options.setInfoLogLevel(InfoLogLevel.INFO_LEVEL);
        options.setStatistics(shared());
        Integer trigger = Integer.getInteger(COMPACTION_TRIGGER_PROPERTY);
        if (trigger != null) {
            options.setLevel0FileNumCompactionTrigger(trigger);
        }
        if (Boolean.getBoolean(DIRECT_IO_PROPERTY)) {
            options.setUseDirectIoForFlushAndCompaction(true);
        }
    }

    @Override
    public void close(String storeName, Options options) {}

    /** The statistics every store counts into, created with the first store (RocksDB's library is loaded by then). */
    private static Statistics shared() {
        Statistics current = statistics;
        if (current == null) {
            synchronized (EventLogRocksDBConfig.class) {
                if (statistics == null) {
                    statistics = RocksDbTickers.countersOnly();
                }
                current = statistics;
            }
        }
        return current;
    }

    /** The shared statistics, or null before the first store opened. */
    static Statistics statistics() {
        return statistics;
    }
}
