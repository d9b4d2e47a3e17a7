package io.streamsmemory.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationJson;
import org.junit.jupiter.api.Test;

/** The contract between the engine and the webhook: every flag the engine emits passes the webhook's list. */
class EngineJvmFlagsTest {

    @Test
    void everyAllocationTheEngineMakesIsAcceptedByTheWebhook() {
        AllocationEngine engine = new AllocationEngine();
        int checked = 0;
        for (long mib : new long[] {512, 1000, 2048, 3333, 16384, 65536}) {
            for (int threads : new int[] {1, 4, 16}) {
                WorkloadFacts facts = WorkloadFacts.builder()
                        .memoryBytes(mib << 20)
                        .streamThreads(threads)
                        .replicas(3)
                        .partitions(24)
                        .stores(new StoreCounts(2, 1, 0))
                        .build();
                AllocationResult result = engine.allocate(facts);
                if (!result.ok()) {
                    continue;
                }
                PublishedAllocation published = PublishedAllocation.parse(AllocationJson.write(result.allocation()));
                assertThat(published.jvmOptions()).isEqualTo(result.allocation().jvmOptions());
                assertThat(published.heapBytes())
                        .isEqualTo(result.allocation().part("heap").bytes());
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(10);
    }
}
