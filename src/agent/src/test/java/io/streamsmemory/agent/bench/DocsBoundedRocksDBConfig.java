package io.streamsmemory.agent.bench;

import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.Env;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * The hand-written bound from Kafka's memory-management docs ("BoundedMemoryRocksDBConfig"), as a user would copy
 * it: the sizes are constants (here system properties, so that each of the benchmark's hand-tuned variants sizes it as
 * its advice says), everything else (record cache, client buffers) stays at Kafka's defaults. The high-priority pool
 * and the background threads are the two other knobs public advice turns (Responsive's example: 0.25 and 4).
 */
public class DocsBoundedRocksDBConfig extends EventLogRocksDBConfig {
    static final String CACHE_PROPERTY = "docs.totalOffHeapMemory";
    static final String MEMTABLE_PROPERTY = "docs.totalMemtableMemory";
    static final String HIGH_PRIORITY_PROPERTY = "docs.highPriorityPoolRatio";
    /** When set, RocksDB's flush and compaction threads and its background jobs. */
    static final String BACKGROUND_THREADS_PROPERTY = "docs.backgroundThreads";

    private static final long TOTAL_OFF_HEAP_MEMORY = Long.getLong(CACHE_PROPERTY, 200L << 20);
    private static final long TOTAL_MEMTABLE_MEMORY = Long.getLong(MEMTABLE_PROPERTY, 64L << 20);
    private static final double INDEX_FILTER_BLOCK_RATIO =
            Double.parseDouble(System.getProperty(HIGH_PRIORITY_PROPERTY, "0.1"));
    private static final int BACKGROUND_THREADS = Integer.getInteger(BACKGROUND_THREADS_PROPERTY, 0);
    private static final long BLOCK_SIZE = 4096;
    private static final int N_MEMTABLES = 3;
    private static final long MEMTABLE_SIZE = 16L << 20;

    static {
        RocksDB.loadLibrary();
    }

    private static final Cache CACHE = new LRUCache(TOTAL_OFF_HEAP_MEMORY, -1, false, INDEX_FILTER_BLOCK_RATIO);
    private static final WriteBufferManager WRITE_BUFFER_MANAGER = new WriteBufferManager(TOTAL_MEMTABLE_MEMORY, CACHE);

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        super.setConfig(storeName, options, configs);
        BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) options.tableFormatConfig();
        // These three options in combination will limit the memory used by RocksDB to the size passed to the
        // block cache (TOTAL_OFF_HEAP_MEMORY)
        tableConfig.setBlockCache(CACHE);
        tableConfig.setCacheIndexAndFilterBlocks(true);
        options.setWriteBufferManager(WRITE_BUFFER_MANAGER);
        // These options are recommended to be set when bounding the total memory
        tableConfig.setCacheIndexAndFilterBlocksWithHighPriority(true);
        tableConfig.setPinTopLevelIndexAndFilter(true);
        tableConfig.setBlockSize(BLOCK_SIZE);
        options.setMaxWriteBufferNumber(N_MEMTABLES);
        options.setWriteBufferSize(MEMTABLE_SIZE);
        options.setTableFormatConfig(tableConfig);
        if (BACKGROUND_THREADS > 0) {
            options.setMaxBackgroundJobs(BACKGROUND_THREADS);
            Env.getDefault().setBackgroundThreads(BACKGROUND_THREADS, Priority.HIGH);
            Env.getDefault().setBackgroundThreads(BACKGROUND_THREADS, Priority.LOW);
        }
    }

    @Override
    public void close(String storeName, Options options) {
        // Cache and WriteBufferManager are shared: not closed here.
    }
}
