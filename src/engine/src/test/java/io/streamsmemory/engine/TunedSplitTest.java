package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The split the operator tunes moves memory between RocksDB's parts and the heap's, never the pod's total. */
class TunedSplitTest {
    private static final AllocationEngine ENGINE = new AllocationEngine();

    private static WorkloadFacts.Builder pod() {
        return WorkloadFacts.builder()
                .memoryBytes(512 * MiB)
                .streamThreads(4)
                .partitions(16)
                .stores(new StoreCounts(2, 1, 0));
    }

    private static Allocation plan(WorkloadFacts facts) {
        AllocationResult result = ENGINE.allocate(facts);
        assertThat(result.ok()).as(result.message()).isTrue();
        return result.allocation();
    }

    private static long sum(List<Part> parts) {
        return parts.stream().mapToLong(Part::bytes).sum();
    }

    @Test
    void moreWriteBuffersComeOutOfTheDataBlocksAndThePodStaysWhole() {
        Allocation model = plan(pod().build());
        Allocation tuned = plan(pod().tunedSplit(new TunedSplit(null, 0.5, null, "write stalls"))
                .build());

        long modelBuffers = model.part("rocksdb-write-buffers").bytes();
        long tunedBuffers = tuned.part("rocksdb-write-buffers").bytes();
        assertThat(tunedBuffers).isGreaterThan(modelBuffers * 14 / 10);
        assertThat(tuned.part("rocksdb-data-blocks").bytes())
                .isEqualTo(model.part("rocksdb-data-blocks").bytes() - (tunedBuffers - modelBuffers));
        assertThat(tuned.rocksDb().blockCacheCapacityBytes())
                .isEqualTo(model.rocksDb().blockCacheCapacityBytes());
        assertThat(tuned.part("heap").bytes()).isEqualTo(model.part("heap").bytes());
        assertThat(sum(tuned.parts())).isEqualTo(512 * MiB);
        assertThat(tuned.part("rocksdb").reason()).contains("tuned from the pods' reports: write stalls");
        assertThat(tuned.part("rocksdb-write-buffers").reason()).startsWith("50.0% (tuned) of the cache");
        assertThat(tuned.restartHash()).isNotEqualTo(model.restartHash());
    }

    @Test
    void aSmallerRecordCacheOrRocksDbShareGoesToTheHeap() {
        Allocation model = plan(pod().build());
        Allocation lessCache =
                plan(pod().tunedSplit(new TunedSplit(null, null, 0.1, "GC")).build());
        assertThat(lessCache.part("record-cache").bytes())
                .isLessThan(model.part("record-cache").bytes());
        assertThat(lessCache.part("application").bytes())
                .isGreaterThan(model.part("application").bytes());
        assertThat(sum(lessCache.parts())).isEqualTo(512 * MiB);

        Allocation lessRocksDb =
                plan(pod().tunedSplit(new TunedSplit(0.3, null, null, "GC")).build());
        assertThat(lessRocksDb.part("heap").bytes())
                .isGreaterThan(model.part("heap").bytes());
        assertThat(lessRocksDb.part("rocksdb").bytes())
                .isLessThan(model.part("rocksdb").bytes());
        assertThat(sum(lessRocksDb.parts())).isEqualTo(512 * MiB);
    }

    @Test
    void theUsersOverrideWinsOverTheTunedShare() {
        Allocation forced = plan(pod().overrides(Overrides.NONE.withWriteBufferFraction(0.25))
                .tunedSplit(new TunedSplit(null, 0.5, null, "write stalls"))
                .build());
        long capacity = forced.rocksDb().blockCacheCapacityBytes();
        assertThat(forced.part("rocksdb-write-buffers").bytes()).isEqualTo((long) Math.floor(capacity * 0.25));
        assertThat(forced.part("rocksdb-write-buffers").reason()).startsWith("25.0% (the override) of the cache");
    }

    @Test
    void noTuningIsTheModelByteForByte() {
        assertThat(plan(pod().tunedSplit(null).build()).hash())
                .isEqualTo(plan(pod().build()).hash());
    }

    @Test
    void aSplitLeavingDataBlocksNothingIsRefused() {
        WorkloadFacts facts = pod().overrides(Overrides.NONE.withHighPriorityPoolRatio(0.5))
                .tunedSplit(new TunedSplit(null, 0.6, null, "write stalls"))
                .build();
        assertThat(facts.validate()).anyMatch(p -> p.contains("leave data blocks at least 10%"));
    }
}
