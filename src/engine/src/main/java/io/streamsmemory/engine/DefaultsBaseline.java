package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.engine.MemoryModel.*;

import java.util.List;
import java.util.Map;

/**
 * What Kafka's and the JVM's defaults would use for the same topology: the figure that explains an
 * OOM kill. The heap the JVM picks (25% of the container) is set against what the heap must hold at
 * Kafka's defaults, and every RocksDB instance gets its own 50 MiB cache and 3 x 16 MiB memtables.
 *
 * @param parts        the consumers at their defaults (worst case each)
 * @param totalBytes   their sum
 * @param heapBytes    the heap the JVM would size by default
 * @param heapNeedBytes what the heap must hold at Kafka's defaults (client buffers, record cache, input buffers)
 */
public record DefaultsBaseline(List<Part> parts, long totalBytes, long heapBytes, long heapNeedBytes) {

    static DefaultsBaseline of(WorkloadFacts facts, Topology topology, long metaspace) {
        long heap = facts.memoryBytes() * JVM_DEFAULT_HEAP_PERCENT / 100;
        long clients = topology.producers() * PRODUCER_BUFFER_DEFAULT + topology.consumers() * FETCH_MAX_DEFAULT;
        // Kafka's default record cache is per KafkaStreams instance.
        long recordCache =
                facts.stores().total() + facts.globalStores() > 0 ? RECORD_CACHE_DEFAULT * facts.instancesPerPod() : 0;
        long inputBuffers = BUFFERED_RECORDS_DEFAULT * topology.activeTasksPerPod() * facts.recordBytes();
        long heapNeed = clients + recordCache + inputBuffers;
        long perInstance =
                ROCKSDB_BLOCK_CACHE_DEFAULT + ROCKSDB_MAX_WRITE_BUFFERS_DEFAULT * ROCKSDB_WRITE_BUFFER_DEFAULT;
        long rocksDb = topology.rocksDbInstances() * perInstance;
        // The JVM's default MaxDirectMemorySize equals the heap; each socket reader can cache its largest read, and
        // the application's own libraries use what the user declared.
        long direct = Math.min(heap, topology.socketReaders() * FETCH_MAX_DEFAULT + facts.extraDirectMemoryBytes());
        long jvm = CODE_CACHE_MAX_MIB * MiB + metaspace + topology.jvmThreads() * THREAD_STACK_RESIDENT + direct;
        List<Part> parts = List.of(
                Part.leaf(
                        "heap",
                        Math.max(heap, heapNeed),
                        String.format(
                                "-Xmx defaults to %d%% of the container (%s) while Kafka's defaults want %s in it: "
                                        + "%s client buffers + %s record cache + %s input buffers",
                                JVM_DEFAULT_HEAP_PERCENT,
                                format(heap),
                                format(heapNeed),
                                format(clients),
                                format(recordCache),
                                format(inputBuffers)),
                        Map.of()),
                Part.leaf(
                        "rocksdb",
                        rocksDb,
                        String.format(
                                "%d instances x (%s private block cache + %d x %s memtables), index and filter blocks on top",
                                topology.rocksDbInstances(),
                                format(ROCKSDB_BLOCK_CACHE_DEFAULT),
                                ROCKSDB_MAX_WRITE_BUFFERS_DEFAULT,
                                format(ROCKSDB_WRITE_BUFFER_DEFAULT)),
                        Map.of()),
                Part.leaf(
                        "jvm-non-heap",
                        jvm,
                        String.format(
                                "%d MiB code cache + %s metaspace + %d thread stacks + %s direct read copies%s",
                                CODE_CACHE_MAX_MIB,
                                format(metaspace),
                                topology.jvmThreads(),
                                format(direct),
                                facts.extraDirectMemoryBytes() > 0 ? " and the application's direct memory" : ""),
                        Map.of()));
        long total = parts.stream().mapToLong(Part::bytes).sum();
        return new DefaultsBaseline(parts, total, heap, heapNeed);
    }
}
