package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.GiB;
import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code spec.jvm.sizing: Observed}: the JVM's caps from its observed peaks, and where what they free goes. */
class LearnedJvmCapsTest {
    private final AllocationEngine engine = new AllocationEngine();

    /** 512 MiB, 2 threads, 8 tasks of 2 key-value stores: the bench-memory shape at its smallest budget. */
    private static WorkloadFacts.Builder smallPod() {
        return WorkloadFacts.builder()
                .memoryBytes(512 * MiB)
                .streamThreads(2)
                .tasksPerPod(8)
                .stores(new StoreCounts(2, 0, 0));
    }

    @Test
    void capsComeFromThePeaksPlusTheirMarginsAndWhatTheyFreeJoinsThePoolWithRocksDbsShareAsWriteBuffers() {
        Allocation declared = engine.allocate(smallPod().build()).allocation();
        // Peaks: metaspace 40,000,000 B, code cache 20 MiB, 46 threads.
        Allocation learned = engine.allocate(smallPod()
                        .observedJvm(new ObservedJvm(40_000_000, 20 * MiB, 46))
                        .build())
                .allocation();

        // Declared: code cache max(512/16, 48) = 48 MiB, metaspace 97 MiB (15,000 classes), stacks (40 + 3x2) x 256 KiB
        // = 11.5 -> 12 MiB.
        assertThat(declared.part("jvm-code-cache").bytes()).isEqualTo(48 * MiB);
        assertThat(declared.part("jvm-metaspace").bytes()).isEqualTo(97 * MiB);
        assertThat(declared.part("jvm-thread-stacks").bytes()).isEqualTo(12 * MiB);
        // Learned: code cache 20 MiB x 1.5 = 30 -> the 32 MiB floor; metaspace 40,000,000 x 1.25 = 47.7 -> 48 MiB;
        // stacks 46 x 256 KiB x 1.25 = 14.4 -> 15 MiB, above the model's 12: the model's.
        assertThat(learned.part("jvm-code-cache").bytes()).isEqualTo(32 * MiB);
        assertThat(learned.part("jvm-metaspace").bytes()).isEqualTo(48 * MiB);
        assertThat(learned.part("jvm-thread-stacks").bytes()).isEqualTo(12 * MiB);
        assertThat(learned.jvmOptions()).contains("-XX:ReservedCodeCacheSize=32m", "-XX:MaxMetaspaceSize=48m");
        assertThat(learned.part("jvm-metaspace").reason())
                .contains("learned: the observed metaspace peak", "+ 25%", "the model's 97 MiB");

        // 16 + 49 = 65 MiB freed join the pool, shared as any pool: the clients and the heap grow, and RocksDB's gain
        // over the plan with the model's caps is all write buffers; the headroom stays.
        long rocksDbGain =
                learned.part("rocksdb").bytes() - declared.part("rocksdb").bytes();
        assertThat(rocksDbGain).isPositive();
        // The high-priority pool is a share of the whole cache: it takes its 10% of the gain, the memtables the rest,
        // and the data blocks keep their room (to the byte the pool's rounding leaves them).
        long poolShare = (long) Math.ceil(rocksDbGain * MemoryModel.HIGH_PRIORITY_POOL_RATIO);
        assertThat(learned.part("rocksdb-write-buffers").bytes())
                .isEqualTo(declared.part("rocksdb-write-buffers").bytes() + rocksDbGain - poolShare);
        assertThat(learned.part("rocksdb-data-blocks").bytes())
                .isBetween(
                        declared.part("rocksdb-data-blocks").bytes(),
                        declared.part("rocksdb-data-blocks").bytes() + 1);
        assertThat(learned.part("heap").bytes())
                .isGreaterThan(declared.part("heap").bytes());
        assertThat(learned.part("headroom").bytes())
                .isEqualTo(declared.part("headroom").bytes());
        long grown = learned.part("heap").bytes()
                + learned.part("rocksdb").bytes()
                + learned.part("jvm-direct-memory").bytes()
                - declared.part("heap").bytes()
                - declared.part("rocksdb").bytes()
                - declared.part("jvm-direct-memory").bytes();
        assertThat(grown).isEqualTo(65 * MiB);
        assertThat(learned.part("rocksdb-write-buffers").reason())
                .contains("+ the " + rocksDbGain / MiB + " MiB the learned caps gave RocksDB less the high-priority");
        assertThat(learned.rocksDb().writeBufferManagerBytes())
                .isEqualTo(declared.rocksDb().writeBufferManagerBytes() + rocksDbGain - poolShare);
        assertThat(sum(learned)).isEqualTo(512 * MiB);
    }

    @Test
    void aCapIsNeverAboveTheModelsNorBelowItsFloor() {
        // A JVM seen using more than the model plans keeps the model's caps: learning never raises a cap.
        Allocation huge = engine.allocate(smallPod()
                        .observedJvm(new ObservedJvm(500 * MiB, 300 * MiB, 400))
                        .build())
                .allocation();
        Allocation declared = engine.allocate(smallPod().build()).allocation();
        assertThat(huge.jvmOptions()).isEqualTo(declared.jvmOptions());
        assertThat(huge.part("rocksdb").bytes())
                .isEqualTo(declared.part("rocksdb").bytes());

        // A JVM seen using almost nothing gets the floors: the JIT and a Kafka client's classes still fit.
        Allocation tiny = engine.allocate(
                        smallPod().observedJvm(new ObservedJvm(1, 1, 1)).build())
                .allocation();
        assertThat(tiny.part("jvm-code-cache").bytes()).isEqualTo(MemoryModel.LEARNED_CODE_CACHE_MIN_MIB * MiB);
        assertThat(tiny.part("jvm-metaspace").bytes()).isEqualTo(MemoryModel.LEARNED_METASPACE_MIN_MIB * MiB);
        assertThat(tiny.part("jvm-thread-stacks").bytes()).isEqualTo(MiB);
        assertThat(sum(tiny)).isEqualTo(512 * MiB);
    }

    @Test
    void theHeadroomIsLearnedFromWhatThePodsHeldBeyondTheBoundedPartsWithinItsFloorAndTheModels() {
        // 2 GiB: the model's headroom is 10% of (2048 - 128 code cache) = 192 MiB.
        WorkloadFacts.Builder pod = smallPod().memoryBytes(2 * GiB);
        ObservedJvm caps = new ObservedJvm(40_000_000, 20 * MiB, 46);
        Allocation capsOnly = engine.allocate(pod.observedJvm(caps).build()).allocation();
        assertThat(capsOnly.part("headroom").bytes()).isEqualTo(192 * MiB);
        assertThat(AllocationEngine.learnedHeadroomBytes(pod.build())).isEmpty();

        // Pods held 100 MiB beyond the bounded parts: 100 x 1.25 = 125 MiB, 67 MiB freed, all write buffers.
        WorkloadFacts learnedFacts = pod.observedJvm(new ObservedJvm(40_000_000, 20 * MiB, 46, 100 * MiB))
                .build();
        Allocation learned = engine.allocate(learnedFacts).allocation();
        assertThat(learned.part("headroom").bytes()).isEqualTo(125 * MiB);
        assertThat(learned.part("headroom").reason())
                .contains("learned: the most resident memory a pod held beyond the bounded parts, 100 MiB, + 25%")
                .contains("the model's 192 MiB");
        assertThat(AllocationEngine.learnedHeadroomBytes(learnedFacts)).hasValue(125 * MiB);
        long grown = learned.part("heap").bytes()
                + learned.part("rocksdb").bytes()
                + learned.part("jvm-direct-memory").bytes()
                - capsOnly.part("heap").bytes()
                - capsOnly.part("rocksdb").bytes()
                - capsOnly.part("jvm-direct-memory").bytes();
        assertThat(grown).isEqualTo(67 * MiB);
        assertThat(learned.part("rocksdb-write-buffers").bytes())
                .isGreaterThan(capsOnly.part("rocksdb-write-buffers").bytes());
        assertThat(sum(learned)).isEqualTo(2 * GiB);

        // Never below the floor, never above the model's: a pod that held more keeps the model's headroom.
        Allocation tiny = engine.allocate(pod.observedJvm(new ObservedJvm(40_000_000, 20 * MiB, 46, MiB))
                        .build())
                .allocation();
        assertThat(tiny.part("headroom").bytes()).isEqualTo(MemoryModel.LEARNED_HEADROOM_MIN_MIB * MiB);
        WorkloadFacts busy = pod.observedJvm(new ObservedJvm(40_000_000, 20 * MiB, 46, 300 * MiB))
                .build();
        assertThat(engine.allocate(busy).allocation().part("headroom").bytes()).isEqualTo(192 * MiB);
        assertThat(AllocationEngine.learnedHeadroomBytes(busy)).isEmpty();
        // Declared sizing (no observed JVM) never learns it.
        assertThat(engine.allocate(smallPod().memoryBytes(2 * GiB).build())
                        .allocation()
                        .part("headroom")
                        .bytes())
                .isEqualTo(192 * MiB);
    }

    @Test
    void withoutPersistentStoresTheFreedMemoryGoesToTheClientsAndTheHeap() {
        WorkloadFacts.Builder stateless =
                WorkloadFacts.builder().memoryBytes(GiB).streamThreads(2).tasksPerPod(4);
        Allocation declared = engine.allocate(stateless.build()).allocation();
        Allocation learned = engine.allocate(stateless
                        .observedJvm(new ObservedJvm(40_000_000, 20 * MiB, 46))
                        .build())
                .allocation();
        // code cache max(1024/16, 48) = 64 -> 32 MiB; metaspace 97 -> 48 MiB: 81 MiB more for the clients and heap.
        assertThat(learned.part("heap").bytes()
                        + learned.part("jvm-direct-memory").bytes())
                .isEqualTo(declared.part("heap").bytes()
                        + declared.part("jvm-direct-memory").bytes()
                        + 81 * MiB);
        assertThat(learned.part("heap").bytes())
                .isGreaterThan(declared.part("heap").bytes() + 60 * MiB);
        assertThat(learned.part("rocksdb").bytes()).isZero();
        assertThat(sum(learned)).isEqualTo(GiB);
    }

    @Test
    void aPodThatDoesNotFitWithTheModelsCapsDoesNotFitWithLearnedOnes() {
        // 240 RocksDB instances need 75 + 16 MiB, the model leaves RocksDB about 73 MiB, and the 65 MiB learned caps
        // free would make it fit: they must not, so restoring a cap never turns a plan that fitted into none.
        WorkloadFacts.Builder busy = smallPod().tasksPerPod(120);
        AllocationResult declared = engine.allocate(busy.build());
        AllocationResult learned = engine.allocate(
                busy.observedJvm(new ObservedJvm(40_000_000, 20 * MiB, 46)).build());
        assertThat(declared.ok()).isFalse();
        assertThat(learned.ok()).isFalse();
        assertThat(learned.errors().get(0).code())
                .isEqualTo(declared.errors().get(0).code());
    }

    private static long sum(Allocation a) {
        return a.parts().stream().mapToLong(Part::bytes).sum();
    }
}
