package io.streamsmemory.engine;

/**
 * The replica counts the plan must hold for: the RocksDB settings and JVM flags (read when a pod starts) are sized
 * for the busiest pod at any count in {@code [min, max]}, so scaling inside the range never needs a restart.
 * Checked by {@link WorkloadFacts#validate()}: {@code 1 <= min <= max}.
 *
 * @param min the fewest pods the workload runs at
 * @param max the most pods the workload runs at
 */
public record ReplicaRange(int min, int max) {

    /** The range of one count: the plan holds only for {@code replicas}. */
    public static ReplicaRange exactly(int replicas) {
        return new ReplicaRange(replicas, replicas);
    }

    /** Whether {@code replicas} lies inside the range. */
    public boolean contains(int replicas) {
        return min <= replicas && replicas <= max;
    }
}
