package io.streamsmemory.agent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamsmemory.engine.ObservedJvm;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import java.util.Locale;

/**
 * The highest figures the agent's reports ({@code GET /report}) gave over a learning run, what the operator learns from
 * with {@code spec.jvm.sizing: Observed} and a learned topology; 0 where no report gave the figure.
 *
 * @param metaspaceBytes   {@code jvm.metaspacePeakCommittedBytes} (what -XX:MaxMetaspaceSize caps, as the operator reads
 *                         it; else {@code jvm.metaspaceUsedBytes})
 * @param codeCacheBytes   {@code jvm.codeCachePeakBytes} (else {@code jvm.codeCacheUsedBytes})
 * @param liveThreads      {@code jvm.liveThreads}
 * @param loadedClasses    {@code jvm.loadedClasses}
 * @param streamThreads    {@code streams.streamThreads}
 * @param activeTasks      {@code streams.activeTasks}
 * @param standbyTasks     {@code streams.standbyTasks}
 * @param rocksDbInstances {@code streams.rocksDbInstances}
 * @param headroomBytes    what the JVM held beyond the plan's bounded parts ({@link ObservedJvm#headroomUsed}), from
 *                         reports of a JVM that has run the settle time only, as the operator counts it; 0 when none
 */
record ObservedPeaks(
        long metaspaceBytes,
        long codeCacheBytes,
        long liveThreads,
        long loadedClasses,
        long streamThreads,
        long activeTasks,
        long standbyTasks,
        long rocksDbInstances,
        long headroomBytes) {
    static final ObservedPeaks NONE = new ObservedPeaks(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** The policy's default class count, the least the operator learns. */
    static final int MIN_LOADED_CLASSES = 15_000;

    /** One report's figures (a figure left out of the report is 0), without the headroom's. */
    static ObservedPeaks of(JsonNode report) {
        return of(report, Long.MAX_VALUE);
    }

    /** One report's figures, the headroom's once the JVM has run {@code settleMillis}. */
    static ObservedPeaks of(JsonNode report, long settleMillis) {
        JsonNode jvm = report.path("jvm");
        JsonNode streams = report.path("streams");
        JsonNode rocksdb = report.path("rocksdb");
        boolean settled = jvm.path("uptimeMillis").asLong(0) >= settleMillis
                && report.path("process").has("rssBytes")
                && streams.path("streamThreads").asLong(0) > 0;
        long headroom = settled
                ? Math.max(
                        0,
                        ObservedJvm.headroomUsed(
                                report.path("process").path("rssBytes").asLong(),
                                jvm.path("heapCommittedBytes").asLong(0),
                                jvm.path("metaspaceUsedBytes").asLong(0),
                                jvm.path("codeCacheUsedBytes").asLong(0),
                                jvm.path("directUsedBytes").asLong(0),
                                jvm.path("liveThreads").asLong(0),
                                rocksdb.path("blockCacheUsageBytes").asLong(0),
                                rocksdb.has("blockCacheCapacityBytes")
                                        ? 0
                                        : rocksdb.path("memtableBytes").asLong(0)))
                : 0;
        return new ObservedPeaks(
                jvm.has("metaspacePeakCommittedBytes")
                        ? jvm.path("metaspacePeakCommittedBytes").asLong(0)
                        : jvm.path("metaspaceUsedBytes").asLong(0),
                jvm.has("codeCachePeakBytes")
                        ? jvm.path("codeCachePeakBytes").asLong(0)
                        : jvm.path("codeCacheUsedBytes").asLong(0),
                jvm.path("liveThreads").asLong(0),
                jvm.path("loadedClasses").asLong(0),
                streams.path("streamThreads").asLong(0),
                streams.path("activeTasks").asLong(0),
                streams.path("standbyTasks").asLong(0),
                streams.path("rocksDbInstances").asLong(0),
                headroom);
    }

    /** Each figure's maximum of the two. */
    ObservedPeaks max(ObservedPeaks other) {
        return new ObservedPeaks(
                Math.max(metaspaceBytes, other.metaspaceBytes),
                Math.max(codeCacheBytes, other.codeCacheBytes),
                Math.max(liveThreads, other.liveThreads),
                Math.max(loadedClasses, other.loadedClasses),
                Math.max(streamThreads, other.streamThreads),
                Math.max(activeTasks, other.activeTasks),
                Math.max(standbyTasks, other.standbyTasks),
                Math.max(rocksDbInstances, other.rocksDbInstances),
                Math.max(headroomBytes, other.headroomBytes));
    }

    /** Why these peaks cannot be learned from (a figure the learned facts need is missing), or null. */
    String missing() {
        StringBuilder why = new StringBuilder();
        if (metaspaceBytes <= 0) {
            why.append(" metaspace");
        }
        if (codeCacheBytes <= 0) {
            why.append(" codeCache");
        }
        if (liveThreads <= 0) {
            why.append(" liveThreads");
        }
        if (streamThreads <= 0) {
            why.append(" streamThreads");
        }
        if (activeTasks <= 0) {
            why.append(" activeTasks");
        }
        return why.isEmpty() ? null : "no" + why + " in the reports";
    }

    /** Key-value stores per task, as the operator counts the observed RocksDB instances: ceil(instances / tasks). */
    int keyValueStoresPerTask() {
        return activeTasks <= 0 ? 0 : (int) ((rocksDbInstances + activeTasks - 1) / activeTasks);
    }

    /** The class count the operator learns: 25% over the peak, rounded up to thousands, at least the default. */
    int learnedLoadedClasses() {
        long thousands = (long) Math.ceil(loadedClasses * 1.25 / 1000);
        return (int) Math.max(MIN_LOADED_CLASSES, thousands * 1000);
    }

    /** The facts the operator plans with for {@code spec.jvm.sizing: Observed} and a learned topology. */
    WorkloadFacts learnedFacts(long memoryBytes) {
        return WorkloadFacts.builder()
                .memoryBytes(memoryBytes)
                .streamThreads((int) streamThreads)
                .tasksPerPod((int) activeTasks)
                .standbyReplicas(0)
                .stores(new StoreCounts(keyValueStoresPerTask(), 0, 0))
                .loadedClasses(learnedLoadedClasses())
                .observedJvm(new ObservedJvm(metaspaceBytes, codeCacheBytes, liveThreads, headroomBytes))
                .build();
    }

    String line() {
        return String.format(
                Locale.ROOT,
                "metaspace_peak=%d (%.1f MiB) code_cache_peak=%d (%.1f MiB) live_threads=%d loaded_classes=%d "
                        + "stream_threads=%d active_tasks=%d standby_tasks=%d rocksdb_instances=%d headroom_peak=%.1f MiB",
                metaspaceBytes,
                metaspaceBytes / 1048576.0,
                codeCacheBytes,
                codeCacheBytes / 1048576.0,
                liveThreads,
                loadedClasses,
                streamThreads,
                activeTasks,
                standbyTasks,
                rocksDbInstances,
                headroomBytes / 1048576.0);
    }
}
