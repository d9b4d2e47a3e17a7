package io.streamsmemory.operator.observe;

import io.streamsmemory.engine.KafkaStreamsVersion;
import java.time.Duration;
import java.util.List;
import java.util.function.BinaryOperator;

/**
 * The topology a workload's pods report running, for the facts a policy leaves out: each figure is the most seen
 * (of one round's pods, then over the observation window), null when no pod reported it.
 *
 * @param instancesPerPod   KafkaStreams instances of the busiest pod's JVM
 * @param streamThreads     stream threads of the busiest pod (over all its instances)
 * @param activeTasks       active tasks of the whole workload: the sum over one round's pods, which is the
 *                          application's input partitions once every pod reports
 * @param standbyTasks      standby tasks of the whole workload, summed the same way
 * @param tasksPerPod       active plus standby tasks of the busiest pod
 * @param rocksDbInstances  RocksDB instances of the busiest pod (store x task x segment, global stores included)
 * @param loadedClasses     classes loaded by the busiest pod's JVM once its Kafka Streams runs
 * @param jvmCaps           the most any pod's JVM used of the memory its caps bound (spec.jvm.sizing: Observed)
 * @param kafkaStreamsVersion the oldest Kafka Streams any pod ran (during a rolling upgrade the pods still on the
 *                          old version are the ones a key only it knows must reach), null when none said
 * @param inMemoryStateBytes the most heap a pod's in-memory stores and suppression buffers held, null when none did
 * @param applicationRecordCacheBytes the largest record cache a pod's application sets itself,
 *                          {@link AgentReport#RECORD_CACHE_LEFT_TO_PLAN} when one sets none, null when no agent said
 */
public record ObservedTopology(
        Long instancesPerPod,
        Long streamThreads,
        Long activeTasks,
        Long standbyTasks,
        Long tasksPerPod,
        Long rocksDbInstances,
        Long loadedClasses,
        JvmCapsUse jvmCaps,
        KafkaStreamsVersion kafkaStreamsVersion,
        Long inMemoryStateBytes,
        Long applicationRecordCacheBytes) {
    /** Nothing reported. */
    public static final ObservedTopology NONE =
            new ObservedTopology(null, null, null, null, null, null, null, JvmCapsUse.NONE, null, null, null);

    /**
     * One round: the busiest pod's figures, and the workload's task totals; the headroom's figure only from pods that
     * have run {@code settle} (until RocksDB flushes and compacts, a JVM holds less beyond its bounds than it will).
     */
    static ObservedTopology of(List<AgentReport> reports, Duration settle) {
        ObservedTopology round = NONE;
        for (AgentReport report : reports) {
            round = round.combine(ofPod(report, settle), ObservedTopology::sum);
        }
        return round;
    }

    /** One pod's figures (its active and standby tasks are summed over the round's pods into the workload's). */
    private static ObservedTopology ofPod(AgentReport report, Duration settle) {
        boolean settled = report.tuning() != null && report.tuning().minUptimeMillis() >= settle.toMillis();
        Long tasks = report.activeTasks() == null
                ? null
                : report.activeTasks() + (report.standbyTasks() == null ? 0 : report.standbyTasks());
        return new ObservedTopology(
                report.instances(),
                report.streamThreads(),
                report.activeTasks(),
                report.standbyTasks(),
                tasks,
                report.rocksDbInstances(),
                // Counted once Kafka Streams runs: a JVM still starting has not loaded its classes yet, and a cap
                // planned from a count taken then would stop the JVM that loads the rest.
                report.streamThreads() == null ? null : report.loadedClasses(),
                settled ? report.jvmCaps() : report.jvmCaps().withoutHeadroom(),
                KafkaStreamsVersion.parse(report.kafkaStreamsVersion()),
                report.heapState() == null ? null : report.heapState().stateBytes(),
                // Once Kafka Streams runs: the agent knows the application's setting once it merged its config.
                report.streamThreads() == null ? null : report.applicationRecordCacheBytes());
    }

    /** The larger of each figure. */
    ObservedTopology max(ObservedTopology other) {
        return combine(other, AgentReport::max);
    }

    /** The larger of each pod's figure, and the workload's task totals as {@code totals} makes them of the two. */
    private ObservedTopology combine(ObservedTopology other, BinaryOperator<Long> totals) {
        return new ObservedTopology(
                AgentReport.max(instancesPerPod, other.instancesPerPod),
                AgentReport.max(streamThreads, other.streamThreads),
                totals.apply(activeTasks, other.activeTasks),
                totals.apply(standbyTasks, other.standbyTasks),
                AgentReport.max(tasksPerPod, other.tasksPerPod),
                AgentReport.max(rocksDbInstances, other.rocksDbInstances),
                AgentReport.max(loadedClasses, other.loadedClasses),
                jvmCaps.max(other.jvmCaps),
                older(kafkaStreamsVersion, other.kafkaStreamsVersion),
                AgentReport.max(inMemoryStateBytes, other.inMemoryStateBytes),
                AgentReport.max(applicationRecordCacheBytes, other.applicationRecordCacheBytes));
    }

    private static KafkaStreamsVersion older(KafkaStreamsVersion a, KafkaStreamsVersion b) {
        if (a == null) {
            return b;
        }
        return b == null || a.compareTo(b) <= 0 ? a : b;
    }

    /** Whether any pod said anything about its Kafka Streams topology (a JVM that has not started it says nothing). */
    boolean reportsStreams() {
        return streamThreads != null;
    }

    private static Long sum(Long a, Long b) {
        if (a == null) {
            return b;
        }
        return b == null ? a : Long.valueOf(a + b);
    }
}
