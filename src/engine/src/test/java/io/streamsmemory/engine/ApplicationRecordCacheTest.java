package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.MemoryModel.RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * An application that sets its own smaller record cache keeps it (the agent bounds, it never raises a user's value), so
 * the plan holds heap only for that cache and gives what its own would have taken to RocksDB (issue 64, point 2).
 */
class ApplicationRecordCacheTest {
    private final AllocationEngine engine = new AllocationEngine();

    /** 1 GiB and 4 threads: the model's cache is capped at 4 MiB per thread, 16 MiB by Kafka Streams' count. */
    private static WorkloadFacts.Builder pod() {
        return WorkloadFacts.builder()
                .memoryBytes(1024 * MiB)
                .streamThreads(4)
                .partitions(16)
                .stores(new StoreCounts(2, 1, 0));
    }

    private Allocation plan(WorkloadFacts.Builder facts) {
        return engine.allocate(facts.build()).allocation();
    }

    @Test
    void anApplicationThatTurnsTheCacheOffGivesItsHeapToRocksDb() {
        Allocation model = plan(pod());
        Allocation off = plan(pod().applicationRecordCacheBytes(0L));

        long modelCache = model.part("record-cache").bytes()
                + model.part("record-cache-overhead").bytes();
        assertThat(modelCache).isEqualTo(16 * MiB * RECORD_CACHE_HEAP_PER_COUNTED_BYTE);
        assertThat(off.part("record-cache").bytes()).isZero();
        assertThat(off.part("record-cache-overhead").bytes()).isZero();
        assertThat(off.streamsConfig()).containsEntry("statestore.cache.max.bytes", "0");
        // The heap shrinks by exactly the cache's share and RocksDB's shared cache grows by it; nothing else moves.
        assertThat(model.part("heap").bytes() - off.part("heap").bytes()).isEqualTo(modelCache);
        assertThat(off.part("rocksdb").bytes() - model.part("rocksdb").bytes()).isEqualTo(modelCache);
        assertThat(off.rocksDb().blockCacheCapacityBytes() - model.rocksDb().blockCacheCapacityBytes())
                .isEqualTo(modelCache);
        assertThat(off.part("application").bytes())
                .isEqualTo(model.part("application").bytes());
        assertThat(off.part("input-buffers").bytes())
                .isEqualTo(model.part("input-buffers").bytes());
        assertThat(off.jvmOptions()).contains("-Xmx" + off.part("heap").bytes() / 1024 + "k");
        assertThat(off.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(1024 * MiB);
        assertThat(off.part("record-cache").reason()).contains("the application's own 0 B per instance");
        assertThat(off.part("rocksdb").reason())
                .contains("the 64 MiB of heap the application's own smaller record cache");
        assertThat(off.restartHash()).isNotEqualTo(model.restartHash());
    }

    @Test
    void aSmallerCacheOfItsOwnIsPlannedAtItsSize() {
        Allocation model = plan(pod());
        Allocation own = plan(pod().applicationRecordCacheBytes(5 * MiB));

        assertThat(own.part("record-cache").bytes()).isEqualTo(5 * MiB);
        assertThat(own.part("record-cache-overhead").bytes())
                .isEqualTo(5 * MiB * (RECORD_CACHE_HEAP_PER_COUNTED_BYTE - 1));
        assertThat(own.streamsConfig()).containsEntry("statestore.cache.max.bytes", Long.toString(5 * MiB));
        long released = (16 - 5) * MiB * RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
        assertThat(own.part("rocksdb").bytes() - model.part("rocksdb").bytes()).isEqualTo(released);
        assertThat(own.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(1024 * MiB);
    }

    @Test
    void eachInstanceOfThePodReleasesItsShare() {
        Allocation model = plan(pod().instancesPerPod(2));
        Allocation off = plan(pod().instancesPerPod(2).applicationRecordCacheBytes(0L));

        long modelCache = model.part("record-cache").bytes()
                + model.part("record-cache-overhead").bytes();
        // In whole MiB, as the split moves memory: what a MiB's rounding leaves stays with the application.
        assertThat(off.part("rocksdb").bytes() - model.part("rocksdb").bytes()).isEqualTo(modelCache / MiB * MiB);
        assertThat(off.part("record-cache").bytes()).isZero();
        assertThat(off.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(1024 * MiB);
    }

    @Test
    void aLargerCacheOfItsOwnOrNoneLeavesThePlanAsItWas() {
        Allocation model = plan(pod());

        assertThat(plan(pod().applicationRecordCacheBytes(64 * MiB)).hash()).isEqualTo(model.hash());
        assertThat(plan(pod().applicationRecordCacheBytes(16 * MiB)).hash()).isEqualTo(model.hash());
        assertThat(plan(pod().applicationRecordCacheBytes(null)).hash()).isEqualTo(model.hash());
    }

    @Test
    void aFixedHeapKeepsItsSizeAndTheApplicationItsRoom() {
        Overrides fixed = Overrides.NONE.withHeapBytes(400 * MiB);
        Allocation model = plan(pod().overrides(fixed));
        Allocation off = plan(pod().overrides(fixed).applicationRecordCacheBytes(0L));

        // The user chose the heap's size: the plan does not move it, whatever the application's cache.
        assertThat(off.hash()).isEqualTo(model.hash());
        assertThat(off.part("heap").bytes()).isEqualTo(model.part("heap").bytes());
    }

    @Test
    void aNegativeCacheIsRefusedByName() {
        assertThat(pod().applicationRecordCacheBytes(-1L).build().validate())
                .containsExactly("the application's record cache must not be negative, got -1");
    }
}
