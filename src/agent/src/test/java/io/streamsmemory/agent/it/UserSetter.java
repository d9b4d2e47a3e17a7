package io.streamsmemory.agent.it;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;

/**
 * An application's own RocksDB config setter, as users write them: a private 32 MiB block cache per store (which the
 * agent must replace by the shared one) and one memtable (stricter than the allocation; it must be kept).
 */
public class UserSetter implements RocksDBConfigSetter {
    public static final AtomicInteger CALLS = new AtomicInteger();
    public static final Map<String, Long> MAX_WRITE_BUFFER_NUMBER = new ConcurrentHashMap<>();
    private LRUCache ownCache;

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        CALLS.incrementAndGet();
        ownCache = new LRUCache(32L << 20);
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(ownCache);
        table.setBlockSize(8 * 1024);
        options.setTableFormatConfig(table);
        options.setMaxWriteBufferNumber(1);
        // The opposite of what Kafka Streams set (true from 4.2, false before): the agent must leave it so.
        options.setOptimizeFiltersForHits(!options.optimizeFiltersForHits());
    }

    @Override
    public void close(String storeName, Options options) {
        if (ownCache != null) {
            ownCache.close();
        }
    }
}
