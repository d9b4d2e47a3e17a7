package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * In-memory state stores and suppression buffers hold their state on the heap (issue 46): the heap gets a part of
 * that size, set aside before RocksDB and the rest of the heap share the pool, and the parts still sum to the pod.
 */
class InMemoryStateTest {
    private final AllocationEngine engine = new AllocationEngine();

    private static WorkloadFacts.Builder pod() {
        return WorkloadFacts.builder()
                .memoryBytes(2048 * MiB)
                .streamThreads(2)
                .tasksPerPod(8)
                .stores(new StoreCounts(1, 1, 0));
    }

    @Test
    void theHeapGrowsByTheStateItHoldsAndRocksDbAndTheDataPartShareWhatIsLeft() {
        Allocation without = engine.allocate(pod().build()).allocation();
        Allocation with =
                engine.allocate(pod().inMemoryStateBytes(300 * MiB).build()).allocation();

        Part state = with.part("in-memory-state");
        assertThat(state.bytes()).isEqualTo(300 * MiB);
        assertThat(state.reason()).contains("300 MiB of one pod's state held on the heap");
        assertThat(with.part("heap").parts()).extracting(Part::name).contains("in-memory-state");
        // What RocksDB and the heap's other parts share shrank by exactly the state, split as the pool always is:
        // RocksDB gives its 40 %, the heap's other parts the rest, so the heap grows by the state less their share.
        long rocksDbGave =
                without.part("rocksdb").bytes() - with.part("rocksdb").bytes();
        long heapPartsGave = without.part("heap").bytes() - (with.part("heap").bytes() - 300 * MiB);
        assertThat(rocksDbGave + heapPartsGave).isEqualTo(300 * MiB);
        assertThat(rocksDbGave).isBetween(300 * MiB * 4 / 10 - MiB, 300 * MiB * 4 / 10 + MiB);
        assertThat(with.part("heap").bytes() - without.part("heap").bytes()).isEqualTo(rocksDbGave);
        assertThat(with.part("application").bytes())
                .isLessThan(without.part("application").bytes());
        assertThat(with.jvmOptions()).contains("-Xmx" + with.part("heap").bytes() / 1024 + "k");
        assertThat(with.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(2048 * MiB);
        assertThat(with.restartHash()).isNotEqualTo(without.restartHash());
    }

    @Test
    void noStateKeepsThePlanAsItWasToTheByte() {
        Allocation before = engine.allocate(pod().build()).allocation();
        Allocation none = engine.allocate(pod().inMemoryStateBytes(0).build()).allocation();

        assertThat(none.hash()).isEqualTo(before.hash());
        assertThat(none.restartHash()).isEqualTo(before.restartHash());
        assertThat(none.part("heap").parts()).extracting(Part::name).doesNotContain("in-memory-state");
    }

    @Test
    void stateThePodCannotHoldIsRefusedWithWhatToChange() {
        AllocationResult result =
                engine.allocate(pod().inMemoryStateBytes(1900 * MiB).build());

        assertThat(result.ok()).isFalse();
        assertThat(result.errors()).extracting(AllocationError::code).contains("InMemoryStateTooLarge");
        assertThat(result.message())
                .contains("in-memory stores and suppression buffers hold")
                .contains("persistent (RocksDB) store");
        // The smallest pod that holds it is named, and it holds the state.
        assertThat(result.minimumMemoryBytes()).isGreaterThan(1900 * MiB);
        Allocation atMinimum = engine.allocate(pod().memoryBytes(result.minimumMemoryBytes())
                        .inMemoryStateBytes(1900 * MiB)
                        .build())
                .allocation();
        assertThat(atMinimum.part("in-memory-state").bytes()).isEqualTo(1900 * MiB);
    }

    @Test
    void aFixedHeapMustHoldTheStateToo() {
        AllocationResult result = engine.allocate(pod().inMemoryStateBytes(600 * MiB)
                .overrides(Overrides.NONE.withHeapBytes(512 * MiB))
                .build());

        assertThat(result.ok()).isFalse();
        assertThat(result.message()).contains("the fixed heap does not fit with the in-memory state in it");
    }
}
