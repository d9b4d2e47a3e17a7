package io.streamsmemory.engine.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.DefaultsBaseline;
import io.streamsmemory.engine.Part;
import io.streamsmemory.engine.Topology;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.protocol.AllocationFormat;
import io.streamsmemory.protocol.RocksDbSettings;
import java.util.List;
import java.util.Map;

/**
 * The published form of an allocation: what {@code plan --output json} prints, what the operator
 * puts in a workload's ConfigMap, and what the agent reads. {@code formatVersion} changes only when a
 * reader written for the old version would misread the new one: {@code plannedTopology} and
 * {@code inputs.replicaRange} were added within version 1 (older documents lack them and read as null).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AllocationDocument(
        String apiVersion,
        String kind,
        int formatVersion,
        String hash,
        String restartHash,
        long memoryBytes,
        WorkloadFacts inputs,
        Topology topology,
        Topology plannedTopology,
        List<Part> parts,
        List<String> jvmOptions,
        Map<String, String> streamsConfig,
        RocksDbSettings rocksdb,
        DefaultsBaseline kafkaDefaults) {
    public static AllocationDocument of(Allocation allocation) {
        return new AllocationDocument(
                AllocationFormat.API_VERSION,
                AllocationFormat.KIND,
                AllocationFormat.FORMAT_VERSION,
                allocation.hash(),
                allocation.restartHash(),
                allocation.memoryBytes(),
                allocation.facts(),
                allocation.topology(),
                allocation.plannedTopology(),
                allocation.parts(),
                allocation.jvmOptions(),
                allocation.streamsConfig(),
                allocation.rocksDb(),
                allocation.baseline());
    }
}
