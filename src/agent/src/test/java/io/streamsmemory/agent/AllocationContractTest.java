package io.streamsmemory.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Map;
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
        assertThat(names(AllocationDocument.class)).contains("apiVersion", "kind", "formatVersion", "hash",
                "memoryBytes", "streamsConfig", "rocksdb");
        assertThat(names(io.streamsmemory.engine.RocksDbSettings.class))
                .containsExactlyInAnyOrder(names(RocksDbSettings.class));
    }

    @Test
    void whatTheEngineWritesIsWhatTheAgentApplies() {
        for (String version : new String[] {"4.4", "3.9", "3.3"}) {
            String json = Allocations.json(3L << 30, 4, 24, 3, 2, version);
            AllocationDocument engine = AllocationJson.read(json);
            AgentAllocation agent = Allocations.agentAllocation(json);
            assertThat(agent.hash()).isEqualTo(engine.hash());
            assertThat(agent.memoryBytes()).isEqualTo(engine.memoryBytes());
            Map<String, Long> expected = new java.util.LinkedHashMap<>();
            engine.streamsConfig().forEach((key, value) -> expected.put(key, Long.parseLong(value)));
            assertThat(agent.streamsConfig()).containsExactlyEntriesOf(expected);
            io.streamsmemory.engine.RocksDbSettings rocks = engine.rocksdb();
            assertThat(agent.rocksDb()).isEqualTo(new RocksDbSettings(rocks.blockCacheCapacityBytes(),
                    rocks.writeBufferManagerBytes(), rocks.writeBufferSizeBytes(), rocks.maxWriteBufferNumber(),
                    rocks.highPriorityPoolRatio(), rocks.strictCapacityLimit(), rocks.arenaBlockSizeBytes()));
        }
    }

    private static String[] names(Class<?> record) {
        return Arrays.stream(record.getRecordComponents()).map(RecordComponent::getName).toArray(String[]::new);
    }
}
