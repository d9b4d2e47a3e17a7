package io.streamsmemory.operator.observe;

/**
 * What a workload's pods reported in the last round, and its peak over the observation window: each figure is the
 * largest any pod reported (the busiest pod is the one that runs out of memory), null when no pod reported it.
 *
 * @param podsReporting    pods whose report was read in the last round
 * @param podsNotAnswering injected, running pods whose report could not be read in the last round
 * @param peakBytes        the highest memory use of any pod over the window (cgroup, else RSS)
 * @param recordCacheBytes  the record cache in force in the busiest pod (KafkaStreams' total cache size)
 * @param recordCacheSource why that record cache applies, as the first reporting pod's agent says: plan,
 *                          application, kafka-default or none
 * @param capHit           a cap (metaspace, code cache) the first such pod's JVM hit, as the row says it, or null
 * @param tuning           what the pods show about their split ({@link TuningSignals}), null before Kafka Streams runs
 * @param heapOverride     the first reporting pod whose heap is not the plan's (a flag of the application's won), or
 *                         null
 * @param oomKills         OOM kills: those kubelet reported for the workload's containers over the window, plus the
 *                         most any running container's own cgroup counted (a process killed without its container)
 * @param heapState        the largest in-memory state a pod holds on its heap, and its unbounded buffers, or null
 */
public record WorkloadObservation(
        int podsReporting,
        int podsNotAnswering,
        Long usedBytes,
        Long peakBytes,
        Long heapUsedBytes,
        Long blockCacheUsageBytes,
        Long rocksDbInstances,
        Long activeTasks,
        Long standbyTasks,
        Long streamThreads,
        Long oomKills,
        Long unexplainedBytes,
        Long loadedClasses,
        Long metaspaceUsedBytes,
        Long recordCacheBytes,
        String recordCacheSource,
        String capHit,
        TuningSignals tuning,
        HeapOverride heapOverride,
        HeapState heapState) {

    /** Folds one more pod's report into the round's figures. */
    WorkloadObservation with(AgentReport report) {
        return new WorkloadObservation(
                podsReporting + 1,
                podsNotAnswering,
                AgentReport.max(usedBytes, report.usedBytes()),
                AgentReport.max(peakBytes, report.peakBytes()),
                AgentReport.max(heapUsedBytes, report.heapUsedBytes()),
                AgentReport.max(blockCacheUsageBytes, report.blockCacheUsageBytes()),
                AgentReport.max(rocksDbInstances, report.rocksDbInstances()),
                AgentReport.max(activeTasks, report.activeTasks()),
                AgentReport.max(standbyTasks, report.standbyTasks()),
                AgentReport.max(streamThreads, report.streamThreads()),
                AgentReport.max(oomKills, report.oomKills()),
                AgentReport.max(unexplainedBytes, report.unexplainedBytes()),
                AgentReport.max(loadedClasses, report.loadedClasses()),
                AgentReport.max(metaspaceUsedBytes, report.metaspaceUsedBytes()),
                AgentReport.max(recordCacheBytes, report.recordCacheBytes()),
                recordCacheSource != null ? recordCacheSource : report.recordCacheSource(),
                capHit != null ? capHit : report.capHit(),
                TuningSignals.worse(tuning, report.tuning()),
                heapOverride != null ? heapOverride : report.heapOverride(),
                HeapState.max(heapState, report.heapState()));
    }

    WorkloadObservation notAnswering() {
        return withRoundTotals(podsNotAnswering + 1, peakBytes, oomKills);
    }

    /** Adds the kills kubelet reported (containers the kernel killed) to those the running pods' cgroups counted. */
    WorkloadObservation withKubeletOomKills(long killedContainers) {
        return withRoundTotals(podsNotAnswering, peakBytes, (oomKills == null ? 0 : oomKills) + killedContainers);
    }

    WorkloadObservation withPeak(Long windowPeak) {
        return withRoundTotals(podsNotAnswering, AgentReport.max(peakBytes, windowPeak), oomKills);
    }

    /** This observation with the three figures that come from outside one pod's report replaced. */
    private WorkloadObservation withRoundTotals(int podsNotAnswering, Long peakBytes, Long oomKills) {
        return new WorkloadObservation(
                podsReporting,
                podsNotAnswering,
                usedBytes,
                peakBytes,
                heapUsedBytes,
                blockCacheUsageBytes,
                rocksDbInstances,
                activeTasks,
                standbyTasks,
                streamThreads,
                oomKills,
                unexplainedBytes,
                loadedClasses,
                metaspaceUsedBytes,
                recordCacheBytes,
                recordCacheSource,
                capHit,
                tuning,
                heapOverride,
                heapState);
    }

    static WorkloadObservation none() {
        return new WorkloadObservation(
                0, 0, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null);
    }
}
