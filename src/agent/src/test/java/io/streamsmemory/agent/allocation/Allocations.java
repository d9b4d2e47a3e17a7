package io.streamsmemory.agent.allocation;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationJson;
import java.io.IOException;

/** Real allocation documents from the engine, as {@code plan --output json} prints them. */
public final class Allocations {
    private Allocations() {}

    public static String json(long memoryBytes, int threads, int partitions, int kv, int window) {
        return json(memoryBytes, threads, partitions, kv, window, "4.4");
    }

    public static String json(long memoryBytes, int threads, int partitions, int kv, int window, String version) {
        return json(facts(memoryBytes, threads, partitions, kv, window, version));
    }

    /** {@link #oneGiB()} planned for a record cache of {@code bytes} (a policy's {@code spec.streams.recordCache}). */
    public static String oneGiBWithRecordCache(long bytes) {
        return json(facts(1L << 30, 4, 8, 2, 1, "4.4").applicationRecordCacheBytes(bytes));
    }

    private static WorkloadFacts.Builder facts(
            long memoryBytes, int threads, int partitions, int kv, int window, String version) {
        return WorkloadFacts.builder()
                .memoryBytes(memoryBytes)
                .streamThreads(threads)
                .partitions(partitions)
                .stores(new StoreCounts(kv, window, 0))
                .kafkaStreamsVersion(version);
    }

    private static String json(WorkloadFacts.Builder facts) {
        AllocationResult result = new AllocationEngine().allocate(facts.build());
        if (!result.ok()) {
            throw new IllegalStateException(result.message());
        }
        return AllocationJson.write(result.allocation());
    }

    public static AgentAllocation agentAllocation(String json) {
        try {
            return AgentAllocation.of(new ObjectMapper().readTree(json), "test");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String oneGiB() {
        return json(1L << 30, 4, 8, 2, 1);
    }

    /**
     * The allocation document {@code json} as if edited by hand (case 8 of issue 9): a 4 GiB pod, a key the engine
     * never emits ({@code main.consumer.max.poll.records: 0}, which Kafka's consumer refuses) and an engine key with a
     * value Kafka rejects ({@code main.consumer.fetch.max.bytes} is an INT; 3,000,000,000 does not fit).
     */
    public static ObjectNode editedByHand(String json) throws IOException {
        ObjectNode document = (ObjectNode) new ObjectMapper().readTree(json);
        document.put("memoryBytes", 4L << 30);
        ObjectNode config = (ObjectNode) document.get("streamsConfig");
        config.put("main.consumer.max.poll.records", "0");
        config.put("main.consumer.fetch.max.bytes", "3000000000");
        return document;
    }
}
