package io.streamsmemory.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.protocol.StreamsConfigKeys;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The protocol's one list of keys ({@link StreamsConfigKeys#APPLIED}: the only ones the agent applies) is exactly what
 * the engine emits: no key the engine sets is dropped by the agent, and no key is on the list for nothing.
 */
class StreamsConfigKeysTest {
    /**
     * Case 8 of issue 9, over facts that reach every key (both record cache keys by version, the global consumer,
     * stateless workloads).
     */
    @Test
    void theAgentAppliesExactlyTheKeysTheEngineEmits() {
        Set<String> emitted = new TreeSet<>();
        for (String version : new String[] {"4.4", "3.3"}) {
            for (int global : new int[] {0, 1}) {
                for (int kv : new int[] {0, 2}) {
                    WorkloadFacts facts = WorkloadFacts.builder()
                            .memoryBytes(2L << 30)
                            .streamThreads(2)
                            .instancesPerPod(1 + global)
                            .partitions(8)
                            .stores(new StoreCounts(kv, 1, 0))
                            .globalStores(global)
                            .kafkaStreamsVersion(version)
                            .transactionalStateStores(version.equals("4.4"))
                            .build();
                    emitted.addAll(new AllocationEngine()
                            .allocate(facts)
                            .allocation()
                            .streamsConfig()
                            .keySet());
                }
            }
        }
        assertThat(StreamsConfigKeys.APPLIED.keySet()).containsExactlyInAnyOrderElementsOf(emitted);
    }
}
