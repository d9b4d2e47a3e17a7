package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The explaining step publishes exactly the numbers the sizing step (the one the minimum-memory search runs) computed:
 * were the explainer to size any part itself, a pod could fit in the search and be published with other numbers.
 */
class SizingExplainerAgreementTest {

    @Provide
    Arbitrary<WorkloadFacts> fittingWorkloads() {
        return new AllocationPropertiesTest().fittingWorkloads();
    }

    @Property
    void everyExplainedPartIsASizedNumber(@ForAll("fittingWorkloads") WorkloadFacts facts) {
        Sizing s;
        try {
            s = Sizing.of(facts);
        } catch (DoesNotFit notFitting) {
            return; // nothing to explain
        }
        Allocation a = AllocationExplainer.explain(s);
        assertThat(a.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(facts.memoryBytes());
        assertThat(a.part("jvm-code-cache").bytes()).isEqualTo(s.jvm().codeCacheMiB() * MiB);
        assertThat(a.part("jvm-metaspace").bytes()).isEqualTo(s.jvm().metaspaceMiB() * MiB);
        assertThat(a.part("jvm-thread-stacks").bytes()).isEqualTo(s.jvm().stacksMiB() * MiB);
        assertThat(a.part("jvm-direct-memory").bytes()).isEqualTo(s.directMemoryBytes());
        assertThat(a.part("headroom").bytes())
                .isEqualTo((s.jvm().headroomMiB() + s.split().spareHeadroomMiB()) * MiB + facts.memoryBytes() % MiB);
        assertThat(a.part("heap").bytes()).isEqualTo(s.split().heapBytes());
        assertThat(a.part("client-buffers").bytes()).isEqualTo(s.clients().heapBytes());
        assertThat(a.part("record-cache").bytes()).isEqualTo(s.heapShares().recordCache());
        assertThat(a.part("record-cache-overhead").bytes())
                .isEqualTo(s.heapShares().recordCacheOverhead());
        assertThat(a.part("input-buffers").bytes()).isEqualTo(s.heapShares().inputBuffers());
        assertThat(a.part("application").bytes()).isEqualTo(s.heapShares().application());
        assertThat(a.part("rocksdb").bytes()).isEqualTo(s.split().rocksDbMiB() * MiB);
        if (s.persistent()) {
            assertThat(a.part("rocksdb-block-cache").bytes())
                    .isEqualTo(s.rocksDb().blockCacheCapacityBytes());
            assertThat(a.part("rocksdb-native-overhead").bytes()).isEqualTo(s.nativeOverheadBytes());
        }
        if (s.uncommitted().on()) {
            assertThat(a.part("uncommitted-writes").bytes())
                    .isEqualTo(s.uncommitted().heapBytes());
            assertThat(a.part("uncommitted-write-batches").bytes())
                    .isEqualTo(s.uncommitted().nativeBytes());
        }
    }
}
