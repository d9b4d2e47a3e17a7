package io.streamsmemory.agent.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.protocol.AllocationFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent checks the engine's document with its own reader (the jar carries the protocol module, not the engine):
 * what the engine writes is what the agent applies, field for field.
 */
class EngineDocumentTest {
    /** The record cache and the engine's part names the agent reads (JvmLimits compares the JVM flags by them). */
    @Test
    void theAgentReadsThePlannedJvmLimitsAndInstancesTheEngineWrites() {
        String json = AllocationJson.write(new AllocationEngine()
                .allocate(WorkloadFacts.builder()
                        .memoryBytes(1L << 30)
                        .streamThreads(2)
                        .instancesPerPod(3)
                        .partitions(4)
                        .stores(new StoreCounts(1, 0, 0))
                        .build())
                .allocation());
        AllocationDocument engine = AllocationJson.read(json);
        AgentAllocation agent = Allocations.agentAllocation(json);
        assertThat(agent.instancesPerPod()).isEqualTo(3);
        for (String part : List.of(
                AllocationFormat.HEAP_PART, AllocationFormat.METASPACE_PART, AllocationFormat.DIRECT_MEMORY_PART)) {
            long bytes = engine.parts().stream()
                    .filter(p -> p.name().equals(part))
                    .findFirst()
                    .orElseThrow()
                    .bytes();
            assertThat(agent.plannedLimits()).containsEntry(part, bytes);
        }
        // The flags those parts became, byte for byte.
        assertThat(engine.jvmOptions())
                .contains(
                        "-Xmx" + jvmSize(agent.plannedLimits().get(AllocationFormat.HEAP_PART)),
                        "-XX:MaxMetaspaceSize=" + jvmSize(agent.plannedLimits().get(AllocationFormat.METASPACE_PART)),
                        "-XX:MaxDirectMemorySize="
                                + jvmSize(agent.plannedLimits().get(AllocationFormat.DIRECT_MEMORY_PART)));
    }

    private static String jvmSize(long bytes) {
        return bytes % (1 << 20) == 0 ? bytes / (1 << 20) + "m" : bytes / 1024 + "k";
    }

    @Test
    void whatTheEngineWritesIsWhatTheAgentApplies() {
        for (String version : new String[] {"4.4", "3.9", "3.3"}) {
            String json = Allocations.json(3L << 30, 4, 24, 3, 2, version);
            AllocationDocument engine = AllocationJson.read(json);
            AgentAllocation agent = Allocations.agentAllocation(json);
            assertThat(agent.hash()).isEqualTo(engine.hash());
            assertThat(agent.memoryBytes()).isEqualTo(engine.memoryBytes());
            Map<String, Long> expected = new LinkedHashMap<>();
            engine.streamsConfig().forEach((key, value) -> expected.put(key, Long.parseLong(value)));
            assertThat(agent.streamsConfig()).containsExactlyEntriesOf(expected);
            assertThat(agent.rocksDb()).isEqualTo(engine.rocksdb());
        }
    }
}
