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
public record Topology(long activeTasksPerPod, long standbyTasksPerPod, long rocksDbInstances, long producers,
                       long consumers, long socketReaders, long jvmThreads) {

    static Topology of(WorkloadFacts facts) {
        long active;
        long standby;
        // Kafka Streams places at most one copy of a task per instance, so standbys are capped at replicas - 1.
        long effectiveStandbys = Math.min(facts.standbyReplicas(), facts.replicas() - 1L);
        if (facts.partitions() != null) {
            active = ByteSize.ceilDiv(facts.partitions(), facts.replicas());
            standby = ByteSize.ceilDiv(facts.partitions() * effectiveStandbys, facts.replicas());
        } else {
            active = facts.tasksPerPod();
            standby = active * effectiveStandbys;
        }
        boolean global = facts.globalStores() > 0;
        long instances = (active + standby) * facts.stores().rocksDbInstancesPerTask() + facts.globalStores();
        // Every KafkaStreams instance of the pod brings its own stream threads and, with global stores, global thread.
        long threads = facts.streamThreadsPerPod();
        long globalThread = global ? facts.instancesPerPod() : 0;
        return new Topology(active, standby, instances, threads, 2 * threads + globalThread,
                threads + globalThread,
                MemoryModel.BASE_JVM_THREADS + MemoryModel.JVM_THREADS_PER_STREAM_THREAD * threads + globalThread);
    }
}
