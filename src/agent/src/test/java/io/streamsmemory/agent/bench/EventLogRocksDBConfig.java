package io.streamsmemory.agent.bench;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;

/**
 * The benchmark application's own RocksDB setter in every variant: it only turns RocksDB's LOG back on at INFO, where
 * its event log records each flush and compaction ({@link RocksDbLogs} reads it after the run). Kafka Streams sets it
 * to ERROR before a setter runs. The agent keeps an application's setter and applies its bound after it, so every
 * variant writes the same log; the cost is a line per flush or compaction.
 */
public class EventLogRocksDBConfig implements RocksDBConfigSetter {
    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        options.setInfoLogLevel(InfoLogLevel.INFO_LEVEL);
    }

    @Override
    public void close(String storeName, Options options) {}
}
