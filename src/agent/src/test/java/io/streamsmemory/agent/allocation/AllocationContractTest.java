package io.streamsmemory.agent.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.Part;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The agent reads the engine's document with its own small reader (so the jar carries no engine classes); this test
 * keeps the two in step: every field the agent reads exists in the engine's records, and what the engine writes is
 * what the agent applies.
 */
class AllocationContractTest {
    @Test
    void theAgentReadsTheFieldsTheEngineWrites() {
        assertThat(AgentAllocation.API_VERSION).isEqualTo(AllocationDocument.API_VERSION);
        assertThat(AgentAllocation.KIND).isEqualTo(AllocationDocument.KIND);
        assertThat(AgentAllocation.FORMAT_VERSION).isEqualTo(AllocationDocument.FORMAT_VERSION);
        assertThat(names(AllocationDocument.class))
                .contains("apiVersion", "kind", "formatVersion", "hash", "memoryBytes", "streamsConfig", "rocksdb");
        assertThat(names(io.streamsmemory.engine.RocksDbSettings.class)) // the engine's and the agent's own
                .containsExactlyInAnyOrder(accessors(RocksDbSettings.class));
        assertThat(names(WorkloadFacts.class)).contains("instancesPerPod");
        assertThat(names(Part.class)).contains("name", "bytes");
    }

    /**
     * Case 8 of issue 9: the agent's one list of keys ({@link EngineKeys}) is exactly what the engine emits, over
     * facts that reach every key (both record cache keys by version, the global consumer, stateless workloads).
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
        assertThat(EngineKeys.KEYS.keySet()).containsExactlyInAnyOrderElementsOf(emitted);
    }

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
                AgentAllocation.HEAP_PART, AgentAllocation.METASPACE_PART, AgentAllocation.DIRECT_MEMORY_PART)) {
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
                        "-Xmx" + jvmSize(agent.plannedLimits().get(AgentAllocation.HEAP_PART)),
                        "-XX:MaxMetaspaceSize=" + jvmSize(agent.plannedLimits().get(AgentAllocation.METASPACE_PART)),
                        "-XX:MaxDirectMemorySize="
                                + jvmSize(agent.plannedLimits().get(AgentAllocation.DIRECT_MEMORY_PART)));
    }

    private static String jvmSize(long bytes) {
        return bytes % (1 << 20) == 0 ? bytes / (1 << 20) + "m" : bytes / 1024 + "k";
    }

    private static String[] accessors(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(m -> m.getParameterCount() == 0
                        && Modifier.isPublic(m.getModifiers())
                        && !Modifier.isStatic(m.getModifiers()))
                .map(Method::getName)
                .filter(name -> !List.of("hashCode", "toString").contains(name))
                .toArray(String[]::new);
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
            io.streamsmemory.engine.RocksDbSettings rocks = engine.rocksdb();
            assertThat(agent.rocksDb())
                    .isEqualTo(new RocksDbSettings(
                            rocks.blockCacheCapacityBytes(),
                            rocks.writeBufferManagerBytes(),
                            rocks.writeBufferSizeBytes(),
                            rocks.maxWriteBufferNumber(),
                            rocks.highPriorityPoolRatio(),
                            rocks.strictCapacityLimit(),
                            rocks.arenaBlockSizeBytes(),
                            rocks.backgroundFlushThreads(),
                            rocks.lastLevelFilters()));
        }
    }

    private static String[] names(Class<?> record) {
        return Arrays.stream(record.getRecordComponents())
                .map(RecordComponent::getName)
                .toArray(String[]::new);
    }
}
