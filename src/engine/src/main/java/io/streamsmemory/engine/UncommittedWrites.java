package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.engine.MemoryModel.*;

import io.streamsmemory.protocol.StreamsConfigKeys;
import java.util.Map;

/**
 * The uncommitted writes of transactional state stores (KIP-892, Kafka Streams 4.4, with
 * {@code enable.transactional.statestores=true}). Kafka Streams 4.4 keeps every write since the last commit twice: on
 * the heap, in the {@code TreeMap} of {@code AbstractTransactionBuffer}, and, for RocksDB stores, in the native
 * {@code WriteBatch} of {@code RocksDBTransactionBuffer}, which is outside the block cache and the WriteBufferManager
 * until the commit writes it. {@code statestore.uncommitted.max.bytes} bounds the key and value bytes of one
 * KafkaStreams instance (split among its stream threads), so the engine sizes that bound from a share of the pool and
 * budgets both copies: the heap copy inside {@code -Xmx}, the native copy as a part of its own.
 *
 * @param shareMiB        the pool's share for both copies (0 when the feature is off)
 * @param perInstance     {@code statestore.uncommitted.max.bytes} of each KafkaStreams instance
 * @param heapBytes       the heap copies of every instance's uncommitted writes at that bound
 * @param nativeBytes     the rest of the share: the WriteBatch copies (with their growth slack)
 * @param threadsPerShare the stream threads (+1 global) each instance divides its bound among; 0 when off
 *
 * <p>The engine counts every store as a RocksDB store (as it does for the instances), so the WriteBatch copy is
 * budgeted for all of them; an in-memory store keeps only the heap copy.
 */
record UncommittedWrites(long shareMiB, long perInstance, long heapBytes, long nativeBytes, long threadsPerShare) {
    static final String KEY = StreamsConfigKeys.STATESTORE_UNCOMMITTED_MAX_BYTES;
    static final UncommittedWrites NONE = new UncommittedWrites(0, 0, 0, 0, 0);

    /**
     * Sized from {@code baseMiB}, what client I/O left of the pool (or the fixed heap); {@link #NONE} when the feature
     * is off.
     */
    static UncommittedWrites of(WorkloadFacts facts, long baseMiB) {
        if (!facts.transactionalStateStores() || facts.stores().total() + facts.globalStores() == 0) {
            return NONE;
        }
        double heapPerByte = heapPerByte(facts);
        double perByte = heapPerByte + nativePerByte(facts);
        long instances = facts.instancesPerPod();
        long demandMiB = (long) Math.ceil(UNCOMMITTED_MAX_BYTES_DEFAULT * instances * perByte / MiB);
        long shareMiB = Math.min(baseMiB * UNCOMMITTED_PERCENT / 100, demandMiB);
        long share = shareMiB * MiB;
        long perInstance = Math.min(UNCOMMITTED_MAX_BYTES_DEFAULT, (long) Math.floor(share / perByte / instances));
        long heap = Math.min(share, (long) Math.ceil(perInstance * instances * heapPerByte));
        return new UncommittedWrites(
                shareMiB,
                perInstance,
                heap,
                share - heap,
                facts.streamThreads() + (facts.globalStores() > 0 ? 1L : 0L));
    }

    /** Heap per counted byte: the bytes themselves and the map entry around each write of the average record size. */
    private static double heapPerByte(WorkloadFacts facts) {
        return (facts.recordBytes() + UNCOMMITTED_ENTRY_HEAP_OVERHEAD) / (double) facts.recordBytes();
    }

    /** Native per counted byte: the WriteBatch's copy with its per-write header, doubled for the buffer's growth. */
    private static double nativePerByte(WorkloadFacts facts) {
        return UNCOMMITTED_NATIVE_FACTOR
                * (facts.recordBytes() + UNCOMMITTED_ENTRY_NATIVE_OVERHEAD)
                / (double) facts.recordBytes();
    }

    /** The application enables the feature and has stores: the part exists (it may still be too small). */
    boolean on() {
        return threadsPerShare > 0;
    }

    /** Each stream thread's share of the bound is below {@link MemoryModel#UNCOMMITTED_MIN_PER_THREAD}. */
    boolean tooSmall() {
        return on() && perInstance / threadsPerShare < UNCOMMITTED_MIN_PER_THREAD;
    }

    /**
     * Why the share is too small, as a format whose {@code %1$s} and {@code %2$s} are what each instance needs and
     * has ({@link DoesNotFit} appends them).
     */
    String tooSmallDetail(WorkloadFacts facts, long baseMiB, String base) {
        return String.format(
                                "transactional state stores: %d stream threads%s of each KafkaStreams instance need at "
                                        + "least %s of uncommitted writes each (" + KEY + "), and the %d%% share "
                                        + "of %s (%s) is %s: with its heap and RocksDB WriteBatch copies counted, each instance ",
                                facts.streamThreads(),
                                threadsPerShare > facts.streamThreads() ? " + the global thread" : "",
                                format(UNCOMMITTED_MIN_PER_THREAD),
                                UNCOMMITTED_PERCENT,
                                base,
                                format(baseMiB * MiB),
                                format(shareMiB * MiB))
                        .replace("%", "%%")
                + "needs %1$s but has %2$s";
    }

    Map<String, String> config() {
        return Map.of(KEY, Long.toString(perInstance));
    }

    Part heapPart(WorkloadFacts facts) {
        return Part.leaf(
                "uncommitted-writes",
                heapBytes,
                String.format(
                        "transactional state stores (KIP-892): %d KafkaStreams instance(s) x %s " + KEY + " "
                                + "(split over %d threads), kept on the heap until each commit with %d B per write of %s",
                        facts.instancesPerPod(),
                        format(perInstance),
                        threadsPerShare,
                        UNCOMMITTED_ENTRY_HEAP_OVERHEAD,
                        format(facts.recordBytes())),
                config());
    }

    Part nativePart() {
        return Part.leaf(
                "uncommitted-write-batches",
                nativeBytes,
                String.format(
                        "the RocksDB WriteBatch copies of the uncommitted writes: native, outside the block cache until the "
                                + "commit, up to %dx their bytes as the batch grows",
                        UNCOMMITTED_NATIVE_FACTOR),
                Map.of());
    }
}
