package io.streamsmemory.engine.json;

import static io.streamsmemory.engine.ByteSize.GiB;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.ObservedJvm;
import io.streamsmemory.engine.ReplicaRange;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.protocol.AllocationFormat;
import org.junit.jupiter.api.Test;

class AllocationJsonTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Allocation rangedAllocation() {
        return new AllocationEngine()
                .allocate(WorkloadFacts.builder()
                        .memoryBytes(2 * GiB)
                        .streamThreads(4)
                        .replicas(4)
                        .partitions(24)
                        .stores(new StoreCounts(2, 0, 0))
                        .standbyReplicas(1)
                        .replicaRange(new ReplicaRange(2, 6))
                        .build())
                .allocation();
    }

    @Test
    void theRangeAndThePlannedTopologyRoundTrip() {
        Allocation allocation = rangedAllocation();
        AllocationDocument document = AllocationJson.read(AllocationJson.write(allocation));
        assertThat(document.inputs().replicaRange()).isEqualTo(new ReplicaRange(2, 6));
        assertThat(document.plannedTopology()).isEqualTo(allocation.plannedTopology());
        assertThat(document.topology()).isEqualTo(allocation.topology());
    }

    @Test
    void aDocumentWrittenBeforeReplicaRangesStillReads() throws Exception {
        Allocation allocation = rangedAllocation();
        ObjectNode old = (ObjectNode) JSON.readTree(AllocationJson.write(allocation));
        old.remove("plannedTopology");
        ((ObjectNode) old.get("inputs")).remove("replicaRange");

        AllocationDocument document = AllocationJson.read(JSON.writeValueAsString(old));

        assertThat(document.formatVersion())
                .isEqualTo(AllocationFormat.FORMAT_VERSION)
                .isEqualTo(1);
        assertThat(document.plannedTopology()).isNull();
        assertThat(document.inputs().replicaRange()).isNull();
        assertThat(document.inputs().plannedRange()).isEqualTo(ReplicaRange.exactly(4));
        assertThat(document.hash()).isEqualTo(allocation.hash());
        assertThat(document.rocksdb()).isEqualTo(allocation.rocksDb());
        assertThat(document.jvmOptions()).isEqualTo(allocation.jvmOptions());
    }

    @Test
    void theObservedHeadroomRoundTripsAndAPlanWithoutItWritesWhatItWroteBefore() {
        WorkloadFacts.Builder facts = WorkloadFacts.builder()
                .memoryBytes(2 * GiB)
                .streamThreads(2)
                .tasksPerPod(4)
                .stores(new StoreCounts(2, 0, 0));
        Allocation learned = new AllocationEngine()
                .allocate(facts.observedJvm(new ObservedJvm(40L << 20, 20L << 20, 46, 100L << 20))
                        .build())
                .allocation();
        assertThat(AllocationJson.read(AllocationJson.write(learned)).inputs().observedJvm())
                .isEqualTo(new ObservedJvm(40L << 20, 20L << 20, 46, 100L << 20));

        // Without a headroom figure the document has no such field, as before the headroom was learned.
        Allocation capsOnly = new AllocationEngine()
                .allocate(facts.observedJvm(new ObservedJvm(40L << 20, 20L << 20, 46))
                        .build())
                .allocation();
        String written = AllocationJson.write(capsOnly);
        assertThat(written).doesNotContain("headroomBytes");
        assertThat(AllocationJson.read(written).inputs().observedJvm())
                .isEqualTo(new ObservedJvm(40L << 20, 20L << 20, 46));
    }
}
