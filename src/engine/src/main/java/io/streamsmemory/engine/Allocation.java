package io.streamsmemory.engine;

import io.streamsmemory.protocol.RocksDbSettings;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's answer for one pod: the parts (summing exactly to {@code memoryBytes}), the settings
 * they become, and what Kafka's defaults would use for the same topology.
 *
 * @param memoryBytes   the pod's memory
 * @param facts         the input this answers
 * @param topology      what one pod runs now, at the facts' {@code replicas}: sizes the heap, the clients and
 *                      the input buffers
 * @param plannedTopology the busiest pod of the facts' replica range (see {@link WorkloadFacts#replicaRange()}):
 *                      sizes everything RocksDB, so scaling inside the range keeps the restart hash; equal to
 *                      {@code topology} when the facts have no range
 * @param parts         disjoint top-level parts, summing to memoryBytes
 * @param jvmOptions    flags for {@code JAVA_TOOL_OPTIONS}
 * @param streamsConfig Kafka Streams properties (client keys already prefixed)
 * @param rocksDb       shared RocksDB cache settings, null when the topology has no persistent store
 * @param baseline      what Kafka's and the JVM's defaults would use for this topology
 * @param hash          digest of every applied setting: equal hashes mean equal pods
 * @param restartHash   digest of the JVM options and RocksDB settings only, what a running JVM cannot take without a
 *                      restart: a change of the Kafka Streams config alone leaves it as it was (rolls no pod), and
 *                      pods take that change the next time they start
 */
public record Allocation(
        long memoryBytes,
        WorkloadFacts facts,
        Topology topology,
        Topology plannedTopology,
        List<Part> parts,
        List<String> jvmOptions,
        Map<String, String> streamsConfig,
        RocksDbSettings rocksDb,
        DefaultsBaseline baseline,
        String hash,
        String restartHash) {

    public Part part(String name) {
        return findPart(name).orElseThrow(() -> new IllegalArgumentException("no part " + name));
    }

    /** The part named {@code name} anywhere in the tree, or empty when this allocation has none. */
    public Optional<Part> findPart(String name) {
        return parts.stream().map(p -> p.find(name)).flatMap(Optional::stream).findFirst();
    }
}
