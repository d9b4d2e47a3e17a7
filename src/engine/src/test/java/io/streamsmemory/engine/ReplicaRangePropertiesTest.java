package io.streamsmemory.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;

/**
 * Scaling inside the planned replica range never changes what a running pod cannot take without a restart: the
 * JVM flags and the RocksDB settings are planned for the busiest pod of the whole range.
 */
class ReplicaRangePropertiesTest {
    private final AllocationEngine engine = new AllocationEngine();

    /** The generated workloads of {@link AllocationPropertiesTest}, given a range of up to 60 replicas. */
    @Provide
    Arbitrary<WorkloadFacts> rangedWorkloads() {
        Arbitrary<Integer> min = Arbitraries.integers().between(1, 60).withDistribution(RandomDistribution.biased());
        Arbitrary<Integer> span = Arbitraries.integers().between(0, 59).withDistribution(RandomDistribution.biased());
        // Up to 70 standbys, past the partitions of small workloads, so both bounds of the worst-case search are hit.
        Arbitrary<Integer> standbys =
                Arbitraries.integers().between(0, 70).withDistribution(RandomDistribution.biased());
        return Combinators.combine(new AllocationPropertiesTest().workloads(), min, span, standbys)
                .as((facts, lo, extra, sb) -> facts.toBuilder()
                        .standbyReplicas(sb)
                        .replicaRange(new ReplicaRange(lo, Math.min(60, lo + extra)))
                        .build());
    }

    @Property
    void scalingInsideTheRangeKeepsTheRestartHash(
            @ForAll("rangedWorkloads") WorkloadFacts facts,
            @ForAll @IntRange(min = 0, max = 59) int first,
            @ForAll @IntRange(min = 0, max = 59) int second) {
        ReplicaRange range = facts.replicaRange();
        int span = range.max() - range.min() + 1;
        WorkloadFacts atFirst =
                facts.toBuilder().replicas(range.min() + first % span).build();
        WorkloadFacts atSecond =
                facts.toBuilder().replicas(range.min() + second % span).build();
        // The least memory at which the workload fits at both counts (more memory never stops a fit).
        long memory = Math.max(leastFitting(atFirst), leastFitting(atSecond));
        AllocationResult one =
                engine.allocate(atFirst.toBuilder().memoryBytes(memory).build());
        AllocationResult other =
                engine.allocate(atSecond.toBuilder().memoryBytes(memory).build());
        Assume.that(one.ok() && other.ok());
        Allocation a = one.allocation();
        Allocation b = other.allocation();
        assertThat(b.restartHash()).isEqualTo(a.restartHash());
        assertThat(b.jvmOptions()).isEqualTo(a.jvmOptions());
        assertThat(b.rocksDb()).isEqualTo(a.rocksDb());
        assertThat(b.plannedTopology()).isEqualTo(a.plannedTopology());
        Map<String, String> aConfig = new HashMap<>(a.streamsConfig());
        Map<String, String> bConfig = new HashMap<>(b.streamsConfig());
        aConfig.remove("buffered.records.per.partition");
        bConfig.remove("buffered.records.per.partition");
        assertThat(bConfig).isEqualTo(aConfig);
    }

    private long leastFitting(WorkloadFacts facts) {
        AllocationResult result = engine.allocate(facts);
        return result.ok() || result.minimumMemoryBytes() == null
                ? facts.memoryBytes()
                : Math.max(facts.memoryBytes(), result.minimumMemoryBytes());
    }

    @Property
    void theWorstCaseHasTheMostRocksDbInstancesOfTheRange(@ForAll("rangedWorkloads") WorkloadFacts facts) {
        ReplicaRange range = facts.replicaRange();
        Topology worst = Topology.worstCase(facts);
        boolean reached = false;
        for (int r = Math.max(1, range.min() - 1); r <= range.max(); r++) {
            Topology at = Topology.of(facts.toBuilder().replicas(r).build());
            assertThat(worst.rocksDbInstances()).as("replicas %d", r).isGreaterThanOrEqualTo(at.rocksDbInstances());
            if (at.rocksDbInstances() == worst.rocksDbInstances()) {
                assertThat(worst.activeTasksPerPod())
                        .as("tie at replicas %d", r)
                        .isGreaterThanOrEqualTo(at.activeTasksPerPod());
            }
            reached |= at.equals(worst);
        }
        assertThat(reached)
                .as("the worst case is the topology of some count of the range")
                .isTrue();
    }
}
