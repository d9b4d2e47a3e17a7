package io.streamsmemory.operator.observe;

/**
 * One pod's agent report for a test, as a running Kafka Streams pod would give it: every figure has a plausible value
 * that a test changes where its case needs it, so a new report field touches this class alone.
 */
final class AgentReports {
    private static final long MiB = 1024 * 1024L;

    private long rss = 300 * MiB;
    private long rssPeak = 400 * MiB;
    private long oomKills;
    private long heapUsed = 100 * MiB;
    private long blockCache = 50 * MiB;
    private long unexplained = 10 * MiB;
    private Long instances = 1L;
    private Long threads = 2L;
    private Long active = 4L;
    private Long standby = 0L;
    private Long rocksDb = 4L;
    private Long classes = 10_000L;
    private long metaspace = 50 * MiB;
    private HeapState heapState;
    private Long applicationRecordCache;

    static AgentReports running() {
        return new AgentReports();
    }

    /** The process's resident memory now and at its peak, and the kernel's OOM kills of the container. */
    AgentReports memory(long rssBytes, long rssPeakBytes, long oomKillCount) {
        rss = rssBytes;
        rssPeak = rssPeakBytes;
        oomKills = oomKillCount;
        return this;
    }

    /** The heap in use, the shared block cache's usage and what no part explains. */
    AgentReports parts(long heapUsedBytes, long blockCacheBytes, long unexplainedBytes) {
        heapUsed = heapUsedBytes;
        blockCache = blockCacheBytes;
        unexplained = unexplainedBytes;
        return this;
    }

    /** KafkaStreams instances, stream threads, active and standby tasks, RocksDB instances (null: not reported). */
    AgentReports topology(Long instanceCount, Long threadCount, Long activeTasks, Long standbyTasks, Long stores) {
        instances = instanceCount;
        threads = threadCount;
        active = activeTasks;
        standby = standbyTasks;
        rocksDb = stores;
        return this;
    }

    /** Loaded classes and the metaspace they use. */
    AgentReports classes(Long loadedClasses, long metaspaceBytes) {
        classes = loadedClasses;
        metaspace = metaspaceBytes;
        return this;
    }

    AgentReport report() {
        return new AgentReport(
                "h",
                rss,
                rssPeak,
                null,
                null,
                oomKills,
                heapUsed,
                blockCache,
                rocksDb,
                active,
                standby,
                threads,
                instances,
                unexplained,
                classes,
                metaspace,
                10 * MiB,
                "plan",
                applicationRecordCache,
                JvmCapsUse.NONE,
                null,
                null,
                null,
                null,
                heapState,
                null);
    }

    /** The record cache the application sets itself ({@link AgentReport#RECORD_CACHE_LEFT_TO_PLAN}: none). */
    AgentReports applicationRecordCache(Long bytes) {
        applicationRecordCache = bytes;
        return this;
    }

    /** The pod's in-memory state as its agent reports it. */
    AgentReports heapState(HeapState state) {
        heapState = state;
        return this;
    }

    /** The report as the only pod's observation. */
    WorkloadObservation observation() {
        return WorkloadObservation.none().with(report());
    }
}
