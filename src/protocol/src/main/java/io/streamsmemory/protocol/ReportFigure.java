package io.streamsmemory.protocol;

/**
 * The figures of an agent's report that the operator reads, each by its section and name in the report's JSON
 * ({@code GET /report}): the agent writes them under these names and the operator reads them by these constants, so
 * neither spells a path of the other's. The agent reports more figures than these (for its {@code /metrics} and for
 * people); those are its own.
 */
public enum ReportFigure {
    RSS_BYTES(Section.PROCESS, "rssBytes"),
    RSS_PEAK_BYTES(Section.PROCESS, "rssPeakBytes"),
    STORAGE_READ_BYTES(Section.PROCESS, "storageReadBytes"),
    PROCESS_CPU_NANOS(Section.PROCESS, "processCpuNanos"),

    CGROUP_CURRENT_BYTES(Section.CGROUP, "currentBytes"),
    CGROUP_PEAK_BYTES(Section.CGROUP, "peakBytes"),
    OOM_KILLS(Section.CGROUP, "oomKills"),

    UPTIME_MILLIS(Section.JVM, "uptimeMillis"),
    GC_PAUSE_MILLIS(Section.JVM, "gcPauseMillis"),
    HEAP_USED_BYTES(Section.JVM, "heapUsedBytes"),
    HEAP_COMMITTED_BYTES(Section.JVM, "heapCommittedBytes"),
    HEAP_MAX_BYTES(Section.JVM, "heapMaxBytes"),
    PLANNED_HEAP_MAX_BYTES(Section.JVM, "plannedHeapMaxBytes"),
    LOADED_CLASSES(Section.JVM, "loadedClasses"),
    METASPACE_USED_BYTES(Section.JVM, "metaspaceUsedBytes"),
    METASPACE_COMMITTED_BYTES(Section.JVM, "metaspaceCommittedBytes"),
    METASPACE_PEAK_COMMITTED_BYTES(Section.JVM, "metaspacePeakCommittedBytes"),
    METASPACE_MAX_BYTES(Section.JVM, "metaspaceMaxBytes"),
    CODE_CACHE_USED_BYTES(Section.JVM, "codeCacheUsedBytes"),
    CODE_CACHE_PEAK_BYTES(Section.JVM, "codeCachePeakBytes"),
    CODE_CACHE_MAX_BYTES(Section.JVM, "codeCacheMaxBytes"),
    DIRECT_USED_BYTES(Section.JVM, "directUsedBytes"),
    LIVE_THREADS(Section.JVM, "liveThreads"),

    STREAM_THREADS(Section.STREAMS, "streamThreads"),
    INSTANCES(Section.STREAMS, "instances"),
    ACTIVE_TASKS(Section.STREAMS, "activeTasks"),
    STANDBY_TASKS(Section.STREAMS, "standbyTasks"),
    ROCKSDB_INSTANCES(Section.STREAMS, "rocksDbInstances"),
    RECORD_CACHE_BYTES(Section.STREAMS, "recordCacheBytes"),
    /** The application's own record cache setting; -1 when it sets none (the plan's applies). */
    APPLICATION_RECORD_CACHE_BYTES(Section.STREAMS, "applicationRecordCacheBytes"),
    CONSUMER_LAG_RECORDS(Section.STREAMS, "consumerLagRecords"),
    PROCESSED_RECORDS(Section.STREAMS, "processedRecords"),

    BLOCK_CACHE_CAPACITY_BYTES(Section.ROCKSDB, "blockCacheCapacityBytes"),
    BLOCK_CACHE_USAGE_BYTES(Section.ROCKSDB, "blockCacheUsageBytes"),
    /** Memtables outside a shared cache: reported only by agents before 78fde88. */
    MEMTABLE_BYTES(Section.ROCKSDB, "memtableBytes"),
    FLUSHES(Section.ROCKSDB, "flushes"),
    FLUSHED_BYTES(Section.ROCKSDB, "flushedBytes"),
    WRITE_STALL_MILLIS(Section.ROCKSDB, "writeStallMillis"),

    STATE_BYTES(Section.HEAP_STATE, "stateBytes"),
    SUPPRESSION_BUFFER_BYTES(Section.HEAP_STATE, "suppressionBufferBytes"),
    IN_MEMORY_STORES(Section.HEAP_STATE, "inMemoryStores"),
    SUPPRESSION_BUFFERS(Section.HEAP_STATE, "suppressionBuffers"),
    UNBOUNDED_SUPPRESSION_BUFFERS(Section.HEAP_STATE, "unboundedSuppressionBuffers");

    /** The report's sections, by their names in the JSON. */
    public static final class Section {
        public static final String PROCESS = "process";
        public static final String CGROUP = "cgroup";
        public static final String JVM = "jvm";
        public static final String STREAMS = "streams";
        public static final String HEAP_STATE = "heapState";
        public static final String ROCKSDB = "rocksdb";

        private Section() {}
    }

    private final String section;
    private final String field;

    ReportFigure(String section, String field) {
        this.section = section;
        this.field = field;
    }

    public String section() {
        return section;
    }

    /** The figure's name within its section. */
    public String field() {
        return field;
    }
}
