package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.KiB;
import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.TiB;
import static io.streamsmemory.engine.ByteSize.format;

import java.util.List;
import java.util.OptionalLong;

/**
 * Turns {@link WorkloadFacts} into an {@link Allocation}: the single source of every number the
 * operator and the agent set.
 *
 * <p>The pod's memory is peeled in whole MiB, each step taking its share of what the previous steps
 * left: code cache, headroom, metaspace and thread stacks, client I/O (heap buffers and their direct
 * copies), then RocksDB and the heap's data part. Peeling from the remainder, rather than taking
 * every share of the total, is what makes each part grow (never shrink) as memory grows; the nested
 * parts inside heap and RocksDB are split in bytes. The only part that is not a whole number of MiB
 * is the headroom, which keeps the sub-MiB rest of the pod memory so the parts sum to it exactly.
 *
 * <p>Two steps: {@link Sizing} computes the numbers and finds the floor that fails, and is all the minimum-memory
 * search runs; {@link AllocationExplainer} then turns the numbers into explained parts and settings.
 *
 * <p>Replica range: a pod reads its RocksDB settings and JVM flags when it starts, so a change to them (the
 * restart hash) means rolling every pod. With a {@link WorkloadFacts#replicaRange() replica range} the engine
 * sizes everything RocksDB (native overhead, the shared cache, write buffers and arena blocks) for the busiest pod
 * of the range, {@link Allocation#plannedTopology()}: the most RocksDB instances at any count from
 * {@code max(1, min - 1)} (one pod of the fewest restarting) to {@code max}. The other parts do not depend on the
 * replica count except {@code buffered.records.per.partition}, which follows the current count and is published
 * without a roll. So scaling inside the range keeps the restart hash; the price is a RocksDB cache smaller than the
 * current pod alone would get. Without a range the engine plans for exactly the current {@code replicas}.
 */
public final class AllocationEngine {
    /** The largest pod the minimum-memory search considers. */
    static final long SEARCH_LIMIT_BYTES = 4 * TiB;

    /**
     * The headroom a plan of these facts learned from its pods ({@link ObservedJvm#headroomBytes()}), in bytes, when it
     * is below the model's; empty when the plan keeps the model's. What the operator holds the pods' reports against
     * (a pod using {@link MemoryModel#LEARNED_CAP_PRESSURE_PERCENT}% of it restores the model's).
     */
    public static OptionalLong learnedHeadroomBytes(WorkloadFacts facts) {
        WorkloadFacts model = facts.toBuilder().observedJvm(null).build();
        long planned = Sizing.plannedHeadroomMiB(facts);
        return planned < Sizing.plannedHeadroomMiB(model) ? OptionalLong.of(planned * MiB) : OptionalLong.empty();
    }

    /**
     * Computes the allocation, or explains why the facts do not fit and the least memory that would.
     *
     * @throws IllegalArgumentException when the facts themselves are invalid (see {@link WorkloadFacts#validate()})
     */
    public AllocationResult allocate(WorkloadFacts facts) {
        List<String> problems = facts.validate();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        try {
            return new AllocationResult(AllocationExplainer.explain(Sizing.of(facts)), List.of(), null);
        } catch (DoesNotFit failure) {
            Long minimum = minimumMemory(facts);
            String remedy = minimum == null
                    ? failure.remedy + " (no pod size up to " + format(SEARCH_LIMIT_BYTES) + " fits these facts)"
                    : failure.remedy + " or raise memory to at least " + format(minimum) + " (" + minimum / MiB + "Mi)";
            return new AllocationResult(
                    null,
                    List.of(new AllocationError(
                            failure.code,
                            failure.detail() + "; " + remedy,
                            failure.neededBytes,
                            failure.availableBytes)),
                    minimum);
        }
    }

    /**
     * The least whole-MiB memory at which the facts fit, by binary search (every floor holds more easily with more
     * memory). It runs the same {@link Sizing} as {@link #allocate}, so it sizes RocksDB for the same planned
     * (busiest) topology, and skips the explaining, which the search does not need.
     */
    private Long minimumMemory(WorkloadFacts facts) {
        long high = SEARCH_LIMIT_BYTES / MiB;
        if (!fits(facts, high)) {
            return null;
        }
        long low = facts.memoryBytes() / MiB; // does not fit
        while (high - low > 1) {
            long middle = low + (high - low) / 2;
            if (fits(facts, middle)) {
                high = middle;
            } else {
                low = middle;
            }
        }
        return high * MiB;
    }

    private boolean fits(WorkloadFacts facts, long memoryMiB) {
        try {
            Sizing.of(facts.toBuilder().memoryBytes(memoryMiB * MiB).build());
            return true;
        } catch (DoesNotFit failure) {
            return false;
        }
    }

    /**
     * The needed and available sizes as a message prints them: rounded ({@link ByteSize#format}), or in bytes when
     * the rounded forms would read the same, so the message always shows the need exceeding what there is.
     */
    static String[] shown(long needed, long available) {
        String need = format(needed);
        String have = format(available);
        return need.equals(have)
                ? new String[] {
                    String.format(java.util.Locale.ROOT, "%,d B", needed),
                    String.format(java.util.Locale.ROOT, "%,d B", available)
                }
                : new String[] {need, have};
    }

    /** A JVM size flag value: whole MiB as {@code m}, otherwise KiB. Every size here is a whole KiB. */
    static String jvmSize(long bytes) {
        return bytes % MiB == 0 ? bytes / MiB + "m" : bytes / KiB + "k";
    }
}
