package io.streamsmemory.agent.rocksdb;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.state.AgentState;
import io.streamsmemory.protocol.RocksDbSettings;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Env;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.TableFormatConfig;
import org.rocksdb.WriteBufferManager;

/**
 * The JVM's one block cache and one WriteBufferManager charged to it, shared by every RocksDB instance of every
 * store (Kafka's "BoundedMemoryRocksDBConfig" pattern). Created on first use, never closed: stores come and go
 * (window segments roll, tasks migrate), the bound stays.
 */
public final class SharedRocksDb {
    private static final Object LOCK = new Object();
    private static volatile SharedRocksDb instance;
    private static volatile boolean unavailable;

    private final RocksDbSettings settings;
    private final LRUCache cache;
    private final WriteBufferManager writeBufferManager;

    SharedRocksDb(RocksDbSettings settings) {
        this.settings = settings;
        // numShardBits -1: RocksDB picks the shard count from the capacity (at least 512 KiB per shard).
        this.cache = new LRUCache(
                settings.blockCacheCapacityBytes(),
                -1,
                settings.strictCapacityLimit(),
                settings.highPriorityPoolRatio());
        this.writeBufferManager = new WriteBufferManager(settings.writeBufferManagerBytes(), cache);
    }

    /** The shared objects, or null when there is no RocksDB bound to apply. */
    public static SharedRocksDb get() {
        SharedRocksDb current = instance;
        if (current != null || unavailable) {
            return current;
        }
        synchronized (LOCK) {
            if (instance != null || unavailable) {
                return instance;
            }
            AgentAllocation allocation = AgentState.ensureLoaded("library (rocksdb.config.setter)");
            if (allocation == null || allocation.rocksDb() == null) {
                unavailable = true;
                return null;
            }
            try {
                SharedRocksDb created = new SharedRocksDb(allocation.rocksDb());
                RocksDbStats.capacity = allocation.rocksDb().blockCacheCapacityBytes();
                reportUsage(created.cache);
                instance = created;
            } catch (Throwable t) {
                unavailable = true;
                AgentLog.warnOnce(
                        "rocksdb-create",
                        "could not create the shared RocksDB block cache (" + t
                                + "); RocksDB runs on the application's own settings");
            }
            return instance;
        }
    }

    /**
     * The report's cache figures. RocksJava 5.x (Kafka Streams 2.8) has no {@code Cache.getUsage}: the bound holds all
     * the same, and only the report leaves the figures out.
     */
    private static void reportUsage(LRUCache cache) {
        try {
            RocksDbStats.usage = cache::getUsage;
            RocksDbStats.pinnedUsage = cache::getPinnedUsage;
            RocksDbStats.flushThreads = () -> Env.getDefault().getBackgroundThreads(Priority.HIGH);
        } catch (LinkageError e) {
            AgentLog.warnOnce(
                    "rocksdb-usage",
                    "this RocksJava cannot report the shared block cache's usage (" + e
                            + "); the bound is in force, the report leaves the usage out");
        }
    }

    /**
     * Applies the bound to one RocksDB instance's options (after the application's own setter ran).
     *
     * @param applicationSetFilters whether the application's own setter changed {@code optimize_filters_for_hits}:
     *                              its choice then stays
     */
    public void apply(String storeName, Options options, boolean applicationSetFilters) {
        TableFormatConfig format = options.tableFormatConfig();
        if (format instanceof BlockBasedTableConfig) {
            BlockBasedTableConfig table = (BlockBasedTableConfig) format;
            // Mutate the object Kafka Streams created (its subclass exposes the cache to the RocksDB metrics).
            table.setBlockCache(cache);
            table.setCacheIndexAndFilterBlocks(true);
            table.setCacheIndexAndFilterBlocksWithHighPriority(true);
            table.setPinTopLevelIndexAndFilter(true);
            // The index type stays the application's (Kafka Streams': RocksDB's binary-search index with whole-file
            // filters). Partitioned index and filters cost about 10% more CPU per record at 1 GiB and bought
            // nothing: see "Index and filters stay the application's" in docs/model.md. Kafka Streams' SST files
            // are small (memtables of at most 16 MiB, 64 MiB files further down), so a whole file's filter is a small
            // block.
            options.setTableFormatConfig(table);
        } else {
            AgentLog.warnOnce(
                    "table-format:" + storeName,
                    "store " + storeName + " does not use a block-based table ("
                            + (format == null ? "none" : format.getClass().getName())
                            + "); only its memtables are bounded");
        }
        options.setWriteBufferManager(writeBufferManager);
        options.setWriteBufferSize(Math.min(options.writeBufferSize(), settings.writeBufferSizeBytes()));
        options.setMaxWriteBufferNumber(Math.min(options.maxWriteBufferNumber(), settings.maxWriteBufferNumber()));
        // The engine sizes arena blocks so every planned memtable fits the manager's budget
        // (MemoryModel.ARENA_BLOCK_*).
        long arena = options.arenaBlockSize();
        if (arena <= 0 || arena > settings.arenaBlockSizeBytes()) {
            options.setArenaBlockSize(settings.arenaBlockSizeBytes());
        }
        keepLastLevelFilters(options, applicationSetFilters);
        listenForFlushesAndStalls(storeName, options);
        try {
            // Kafka Streams 3.x's options (RocksDB 7) report no environment when none was set: the default is used.
            Env env = options.getEnv();
            raiseFlushThreads(env != null ? env : Env.getDefault(), settings.backgroundFlushThreads());
        } catch (RuntimeException | LinkageError e) {
            // The store is bounded all the same; only its flushes queue on RocksDB's own threads. RocksJava 5.x (Kafka
            // Streams 2.8) has no Priority to name the pool with.
            AgentLog.warnOnce(
                    "rocksdb-flush-threads",
                    "could not set RocksDB's flush threads (" + e + "); RocksDB keeps its own");
        }
    }

    /**
     * Bloom filters on the last sorted run too ({@code MemoryModel.LAST_LEVEL_FILTERS} in the engine), where the plan
     * asks for them and the application's setter left Kafka Streams' value (Kafka Streams 4.2+ sets
     * {@code optimize_filters_for_hits=true}; before 4.2 the call was a no-op and the value is already false).
     */
    private void keepLastLevelFilters(Options options, boolean applicationSetFilters) {
        if (!settings.lastLevelFilters()) {
            return;
        }
        if (applicationSetFilters) {
            if (RocksDbStats.KEPT_APPLICATION_OPTIONS.add("optimize_filters_for_hits")) {
                AgentLog.infoOnce(
                        "rocksdb-filters-kept",
                        "the application's rocksdb.config.setter sets optimize_filters_for_hits: kept (the plan would"
                                + " keep Bloom filters on the last level)");
            }
            return;
        }
        try {
            options.setOptimizeFiltersForHits(false);
        } catch (RuntimeException | LinkageError e) {
            AgentLog.warnOnce(
                    "rocksdb-filters",
                    "could not keep Bloom filters on RocksDB's last level (" + e + "); Kafka Streams' setting stays");
        }
    }

    /**
     * Whether {@code optimize_filters_for_hits} reads {@code before}'s value; true when it cannot be read (then the
     * option is left alone as if the application had set it).
     */
    public static boolean filtersForHitsChanged(Options options, boolean before) {
        try {
            return options.optimizeFiltersForHits() != before;
        } catch (RuntimeException | LinkageError e) {
            return true;
        }
    }

    /**
     * The report's flushes and write stalls. Where RocksJava has no event listeners (rocksdbjni 5.x, Kafka Streams 2.8)
     * the store is bounded all the same and those figures are left out.
     */
    private static void listenForFlushesAndStalls(String storeName, Options options) {
        if (!nativeThreadsSeeRocksJava()) {
            // RocksDB calls a listener from its own native threads, whose JNI class lookups go to the system class
            // loader: with RocksJava in a launcher's class loader (a fat jar) every callback would throw there.
            AgentLog.infoOnce(
                    "rocksdb-listener-loader",
                    "RocksJava is loaded by the application's launcher, not the system class loader, whose classes"
                            + " RocksDB's native threads look up: the report leaves out RocksDB's flushes and write"
                            + " stalls (the stores are bounded all the same)");
            return;
        }
        try {
            FlushAndStallListener.appendTo(storeName, options);
        } catch (LinkageError | RuntimeException e) {
            AgentLog.warnOnce(
                    "rocksdb-listener",
                    "could not listen to RocksDB's flushes and write stalls (" + e + "); the report leaves them out");
        }
    }

    /** Whether the system class loader, where RocksDB's native threads look classes up, has this RocksJava. */
    static boolean nativeThreadsSeeRocksJava() {
        try {
            return Class.forName(Options.class.getName(), false, ClassLoader.getSystemClassLoader()) == Options.class;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The flush threads Kafka Streams' RocksDBStore leaves at every store open (its {@code setIncreaseParallelism}). */
    static final int KAFKA_STREAMS_FLUSH_THREADS = 1;

    /**
     * RocksDB's flush threads are one pool for the whole JVM (its environment's HIGH-priority pool). Kafka Streams sets
     * that pool to one thread at every store open, just before the setters run, so the engine's count is set again at
     * every open. Any other count was set by the application's own setter, which ran just before: it stays, smaller or
     * larger than the plan (an application that sets exactly one cannot be told from Kafka Streams).
     */
    static void raiseFlushThreads(Env env, int planned) {
        if (planned > KAFKA_STREAMS_FLUSH_THREADS
                && env.getBackgroundThreads(Priority.HIGH) == KAFKA_STREAMS_FLUSH_THREADS) {
            env.setBackgroundThreads(planned, Priority.HIGH);
        }
    }

    public static void resetForTests() {
        synchronized (LOCK) {
            instance = null;
            unavailable = false;
            RocksDbStats.reset();
        }
    }
}
