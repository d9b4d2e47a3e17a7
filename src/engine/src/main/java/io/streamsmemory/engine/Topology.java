package io.streamsmemory.engine;

/**
 * What one pod runs, derived from the facts: tasks, RocksDB instances and Kafka clients.
 *
 * @param activeTasksPerPod  active tasks on the busiest pod (partitions spread evenly, rounded up)
 * @param standbyTasksPerPod standby tasks on the busiest pod (a standby never shares a pod with its active)
 * @param rocksDbInstances   RocksDB instances of the pod: (active + standby tasks) x instances per task + global stores
 * @param producers          one per stream thread of every KafkaStreams instance (at-least-once and exactly-once v2)
 * @param consumers          main and restore consumer per stream thread, plus a global consumer per instance
 * @param socketReaders      threads reading fetch responses, each needing a direct copy of the largest one
 * @param jvmThreads         JVM threads whose stacks are reserved
 */
public record Topology(
        long activeTasksPerPod,
        long standbyTasksPerPod,
        long rocksDbInstances,
        long producers,
        long consumers,
        long socketReaders,
        long jvmThreads) {

    /** The busiest pod at the workload's current {@code replicas}. */
    static Topology of(WorkloadFacts facts) {
        return at(facts, facts.replicas());
    }

    /**
     * The busiest pod at any replica count the plan holds for: the most RocksDB instances per pod (ties: the most
     * active tasks). The counts run from {@code max(1, min - 1)}, because while one pod of the fewest restarts the
     * others hold its tasks, to {@code max} of {@link WorkloadFacts#plannedRange()}. Facts without a replica range
     * plan for their current count only, as the engine did before ranges: the same as {@link #of}.
     */
    static Topology worstCase(WorkloadFacts facts) {
        if (facts.replicaRange() == null) {
            return of(facts);
        }
        ReplicaRange range = facts.replicaRange();
        int lo = Math.max(1, range.min() - 1);
        int hi = Math.max(lo, range.max());
        if (facts.partitions() == null) {
            // A pod's active tasks are fixed and its standbys grow with r (min(standbyReplicas, r - 1) per active
            // task), so the most replicas is the worst.
            return at(facts, hi);
        }
        // No need to try every count up to hi, which may be huge. Active tasks per pod fall as r grows, and once
        // r >= standbyReplicas + 1 (every standby placed) active + standby per pod never rises again; below it the
        // standbys per pod rise while the actives fall, and the ceilings make the sum uneven, so every count up to
        // standbyReplicas + 1 is tried. Past r = partitions + 1 each pod holds one active task and at most every
        // partition as a standby, which r = partitions + 1 already reaches, so that bounds the search too.
        int last = (int) Math.min(hi, Math.max(lo, Math.min(facts.standbyReplicas(), (long) facts.partitions()) + 1));
        Topology worst = at(facts, hi);
        for (int r = lo; r <= last; r++) {
            Topology candidate = at(facts, r);
            if (candidate.rocksDbInstances() > worst.rocksDbInstances()
                    || candidate.rocksDbInstances() == worst.rocksDbInstances()
                            && candidate.activeTasksPerPod() > worst.activeTasksPerPod()) {
                worst = candidate;
            }
        }
        return worst;
    }

    /** The busiest pod when the workload runs {@code replicas} pods. */
    private static Topology at(WorkloadFacts facts, int replicas) {
        long active;
        long standby;
        // Kafka Streams places at most one copy of a task per instance, so standbys are capped at replicas - 1.
        long effectiveStandbys = Math.min(facts.standbyReplicas(), replicas - 1L);
        if (facts.partitions() != null) {
            active = ByteSize.ceilDiv(facts.partitions(), replicas);
            standby = ByteSize.ceilDiv(facts.partitions() * effectiveStandbys, replicas);
        } else {
            active = facts.tasksPerPod();
            standby = active * effectiveStandbys;
        }
        boolean global = facts.globalStores() > 0;
        long instances = (active + standby) * facts.stores().rocksDbInstancesPerTask() + facts.globalStores();
        // Every KafkaStreams instance of the pod brings its own stream threads and, with global stores, global thread.
        long threads = facts.streamThreadsPerPod();
        long globalThread = global ? facts.instancesPerPod() : 0;
        return new Topology(
                active,
                standby,
                instances,
                threads,
                2 * threads + globalThread,
                threads + globalThread,
                MemoryModel.BASE_JVM_THREADS + MemoryModel.JVM_THREADS_PER_STREAM_THREAD * threads + globalThread);
    }
}
