package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.KiB;
import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.engine.MemoryModel.*;

import io.streamsmemory.protocol.RocksDbSettings;

/**
 * The sizing step: every number of an allocation, with no explanation, so the minimum-memory search can run it
 * cheaply; {@link AllocationExplainer} turns a sizing into the explained parts. The steps are numbered as in the
 * step table of docs/model.md ("The steps"), and each takes its share of what the previous ones left (see
 * {@link AllocationEngine} for why). The first floor that does not hold ends the sizing with {@link DoesNotFit}.
 *
 * @param topology    what one pod runs now: sizes the heap, the clients and the input buffers
 * @param planned     the busiest pod of the replica range: sizes everything RocksDB
 * @param rocksDb     the shared cache's settings, null without persistent stores
 */
record Sizing(
        WorkloadFacts facts,
        Overrides overrides,
        Topology topology,
        Topology planned,
        Jvm jvm,
        ClientIo clients,
        UncommittedWrites uncommitted,
        Split split,
        RocksDbSettings rocksDb,
        HeapShares heapShares) {

    /**
     * Steps 1 to 3, in whole MiB: the JVM's own memory, and the pool it leaves for the data.
     *
     * @param learned the model's caps that observed use replaced, null when the caps are the model's
     * @param learnedDirectMiB the application's direct memory learned from the pods' peak, 0 when none; the larger of
     *                it and the declared one is {@code extraDirectMiB}
     */
    record Jvm(
            long codeCacheMiB,
            long headroomMiB,
            long metaspaceMiB,
            long stacksMiB,
            long extraDirectMiB,
            long poolMiB,
            DeclaredCaps learned,
            long learnedDirectMiB) {
        /** Whether the direct memory beyond the clients' comes from the pods' peak rather than the declared figure. */
        boolean directLearned() {
            return learnedDirectMiB > 0 && learnedDirectMiB == extraDirectMiB;
        }
    }

    /** The caps and headroom the model plans without observed use (spec.jvm.sizing: Declared), in whole MiB. */
    record DeclaredCaps(long codeCacheMiB, long metaspaceMiB, long stacksMiB, long headroomMiB) {}

    /** Step 4: the clients' heap buffers and the direct memory their socket reads are copied through. */
    record ClientIo(long ioMiB, long producerBuffer, long fetchMax, long heapBytes, long directBytes) {}

    /**
     * Step 5: how RocksDB and the heap share the rest; the spare headroom is what a fixed heap leaves unused; the
     * learned write buffers are RocksDB's gain from learned JVM caps (part of {@code rocksDbMiB}), all of it memtables;
     * the in-memory state is the heap the topology's in-memory stores and suppression buffers hold, set aside first;
     * the application cache's release is the heap the plan's record cache would have taken beyond the one the
     * application sets itself, moved to RocksDB (part of {@code rocksDbMiB}).
     */
    record Split(
            long rocksDbMiB,
            long dataHeapMiB,
            long spareHeadroomMiB,
            long heapBytes,
            long learnedWriteBuffersMiB,
            long inMemoryStateMiB,
            long applicationCacheReleasedMiB) {
        Split withLearnedWriteBuffers(long mib) {
            return new Split(
                    rocksDbMiB,
                    dataHeapMiB,
                    spareHeadroomMiB,
                    heapBytes,
                    mib,
                    inMemoryStateMiB,
                    applicationCacheReleasedMiB);
        }

        /** {@code mib} of the heap's data part moved to RocksDB: the plan's record cache the application does not run. */
        Split withHeapToRocksDb(long mib) {
            return new Split(
                    rocksDbMiB + mib,
                    dataHeapMiB - mib,
                    spareHeadroomMiB,
                    heapBytes - mib * MiB,
                    learnedWriteBuffersMiB,
                    inMemoryStateMiB,
                    mib);
        }
    }

    /**
     * Step 7: the heap's data part, in bytes. The record cache's share of the heap is {@code recordCache} (what
     * Kafka Streams counts, {@code recordCachePerInstance} for each instance's key) plus {@code recordCacheOverhead}
     * (what its entries take beyond that count).
     */
    record HeapShares(
            double cacheFraction,
            boolean capped,
            long recordCachePerInstance,
            long recordCache,
            long recordCacheOverhead,
            long bufferedRecords,
            long inputBuffers,
            long application) {}

    /**
     * With observed JVM peaks ({@code spec.jvm.sizing: Observed}) the learned caps leave a larger pool, which the steps
     * share as they share any pool (measured at 512 MiB: a heap held at the model's size thrashed in GC while the
     * memtables had plenty), and what RocksDB gains over the plan with the model's caps goes to its write buffers. A
     * plan fits with the model's caps or not at all, so restoring a cap never turns a plan that fitted into none.
     *
     * @throws DoesNotFit at the first floor that does not hold, in step order
     */
    static Sizing of(WorkloadFacts facts) throws DoesNotFit {
        Sizing sizing = sizedWithDeclaredCaps(facts, 0);
        // When the observed direct memory needs more than a pass gave it, another pass: everything after step 3 then
        // shares a smaller pool and the clients' read copies shrink with it, so the application's part grows again.
        // Each pass only raises it; a few settle it within a MiB.
        for (int pass = 0; pass < LEARNED_DIRECT_PASSES; pass++) {
            long learnedDirect = learnedExtraDirectMiB(facts, sizing);
            if (learnedDirect <= sizing.jvm().extraDirectMiB()) {
                break;
            }
            sizing = sizedWithDeclaredCaps(facts, learnedDirect);
        }
        return sizing;
    }

    private static final int LEARNED_DIRECT_PASSES = 4;

    private static Sizing sizedWithDeclaredCaps(WorkloadFacts facts, long learnedDirectMiB) throws DoesNotFit {
        if (facts.observedJvm() == null) {
            return sized(facts, null, learnedDirectMiB);
        }
        Sizing declared = sized(facts.toBuilder().observedJvm(null).build(), null, learnedDirectMiB);
        return sized(facts, declared, learnedDirectMiB);
    }

    /**
     * The application's own direct memory learned from what its pods held: the observed peak plus its margin, less
     * the clients' read copies the plan already counts (the peak includes them); 0 without an observed peak.
     */
    private static long learnedExtraDirectMiB(WorkloadFacts facts, Sizing sizing) {
        long observed = facts.observedDirectMemoryBytes();
        if (observed <= 0) {
            return 0;
        }
        long withMargin = observed + observed / 100 * LEARNED_DIRECT_MARGIN_PERCENT;
        return Math.max(0, ByteSize.ceilDiv(withMargin - sizing.clients().directBytes(), MiB));
    }

    private static Sizing sized(WorkloadFacts facts, Sizing declared, long learnedDirectMiB) throws DoesNotFit {
        Overrides overrides = facts.overrides() == null ? Overrides.NONE : facts.overrides();
        // Two pods: what one pod runs now, and the busiest pod of the replica range. RocksDB settings and JVM flags
        // are read when a pod starts (the restart hash), so everything RocksDB is sized for the busiest pod and
        // scaling inside the range changes none of it; the heap, the clients and buffered.records.per.partition follow
        // the current count (the latter is published without a roll and taken at the next start).
        Topology topology = Topology.of(facts);
        Topology planned = Topology.worstCase(facts);
        long memoryMiB = facts.memoryBytes() / MiB;
        long codeCache = codeCacheMiB(memoryMiB);
        long headroom = modelHeadroomMiB(memoryMiB);
        Jvm jvm = jvmOverhead(facts, topology, codeCache, headroom, learnedDirectMiB);
        ClientIo clients = clientIo(facts, overrides, topology, jvm.poolMiB());
        long afterClients = jvm.poolMiB() - clients.ioMiB();
        UncommittedWrites uncommitted = uncommittedWrites(facts, overrides, afterClients);
        Split split = rocksDbAndHeap(
                overrides,
                facts.tunedSplit(),
                planned,
                clients,
                uncommitted,
                ByteSize.ceilDiv(facts.inMemoryStateBytes(), MiB),
                afterClients - uncommitted.shareMiB());
        if (declared != null && planned.rocksDbInstances() > 0) {
            split = split.withLearnedWriteBuffers(
                    Math.max(0, split.rocksDbMiB() - declared.split().rocksDbMiB()));
        }
        HeapShares heapShares = heapShares(facts, overrides, topology, clients, split, null);
        long released = releasedByApplicationCache(facts, overrides, planned, heapShares);
        if (released > 0) {
            // The application's own smaller record cache is what runs (the agent keeps it): the heap holds that much
            // of the cache, and what the plan's would have taken beyond it goes to RocksDB's shared cache.
            split = split.withHeapToRocksDb(released);
            heapShares = heapShares(facts, overrides, topology, clients, split, facts.applicationRecordCacheBytes());
        }
        RocksDbSettings rocksDb = rocksDb(facts, overrides, planned, split);
        return new Sizing(facts, overrides, topology, planned, jvm, clients, uncommitted, split, rocksDb, heapShares);
    }

    boolean persistent() {
        return planned.rocksDbInstances() > 0;
    }

    long nativeOverheadBytes() {
        return planned.rocksDbInstances() * ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE;
    }

    /** The clients' read copies and the application's own direct memory: {@code -XX:MaxDirectMemorySize}. */
    long directMemoryBytes() {
        return clients.directBytes() + jvm.extraDirectMiB() * MiB;
    }

    /** 1. Code cache. */
    private static long codeCacheMiB(long memoryMiB) {
        return ByteSize.clamp(memoryMiB / CODE_CACHE_DIVISOR, CODE_CACHE_MIN_MIB, CODE_CACHE_MAX_MIB);
    }

    /** 2. Headroom, of what the model's code cache leaves. */
    private static long modelHeadroomMiB(long memoryMiB) {
        return Math.max((memoryMiB - codeCacheMiB(memoryMiB)) * HEADROOM_PERCENT / 100, HEADROOM_MIN_MIB);
    }

    /**
     * The headroom learned from the pods' reports ({@code spec.jvm.sizing: Observed}): the most they held beyond the
     * bounded parts plus its margin, within [the floor, the model's]; the model's while no pod reported it.
     */
    static long plannedHeadroomMiB(WorkloadFacts facts) {
        long model = modelHeadroomMiB(facts.memoryBytes() / MiB);
        ObservedJvm observed = facts.observedJvm();
        if (observed == null || observed.headroomBytes() <= 0) {
            return model;
        }
        return learnedCap(observed.headroomBytes(), LEARNED_HEADROOM_MARGIN_PERCENT, LEARNED_HEADROOM_MIN_MIB, model);
    }

    /** 3. Metaspace, thread stacks and the application's own direct memory, which do not depend on the memory. */
    private static Jvm jvmOverhead(
            WorkloadFacts facts, Topology topology, long codeCache, long headroom, long learnedDirectMiB)
            throws DoesNotFit {
        long metaspace =
                ByteSize.ceilDiv(facts.loadedClasses() * METASPACE_BYTES_PER_CLASS + METASPACE_FIXED_BYTES, MiB);
        long stacks = ByteSize.ceilDiv(topology.jvmThreads() * THREAD_STACK_RESIDENT, MiB);
        long extraDirect = Math.max(ByteSize.ceilDiv(facts.extraDirectMemoryBytes(), MiB), learnedDirectMiB);
        long pool = facts.memoryBytes() / MiB - codeCache - headroom - metaspace - stacks - extraDirect;
        // A pool of 0 is no overhead exceeding the pod: the client I/O step names what is then missing.
        if (pool < 0) {
            throw new DoesNotFit(
                    "JvmOverheadExceedsMemory",
                    "the JVM alone needs %7$s (code cache %1$s + headroom %2$s + metaspace %3$s + %4$d thread stacks "
                            + "x %5$s%6$s) but the pod has %8$s",
                    "lower the threads" + (extraDirect > 0 ? " or the extra direct memory" : ""),
                    (codeCache + headroom + metaspace + stacks + extraDirect) * MiB,
                    facts.memoryBytes(),
                    format(codeCache * MiB),
                    format(headroom * MiB),
                    format(metaspace * MiB),
                    topology.jvmThreads(),
                    format(THREAD_STACK_RESIDENT),
                    extraDirect > 0 ? " + the application's direct memory " + format(extraDirect * MiB) : "");
        }
        ObservedJvm observed = facts.observedJvm();
        if (observed == null) {
            return new Jvm(codeCache, headroom, metaspace, stacks, extraDirect, pool, null, learnedDirectMiB);
        }
        long learnedCodeCache = learnedCap(
                observed.codeCacheBytes(), LEARNED_CODE_CACHE_MARGIN_PERCENT, LEARNED_CODE_CACHE_MIN_MIB, codeCache);
        long learnedMetaspace = learnedCap(
                observed.metaspaceBytes(), LEARNED_METASPACE_MARGIN_PERCENT, LEARNED_METASPACE_MIN_MIB, metaspace);
        long learnedStacks =
                learnedCap(observed.threads() * THREAD_STACK_RESIDENT, LEARNED_THREADS_MARGIN_PERCENT, 1, stacks);
        long learnedHeadroom = plannedHeadroomMiB(facts);
        long freed = codeCache
                - learnedCodeCache
                + metaspace
                - learnedMetaspace
                + stacks
                - learnedStacks
                + headroom
                - learnedHeadroom;
        return new Jvm(
                learnedCodeCache,
                learnedHeadroom,
                learnedMetaspace,
                learnedStacks,
                extraDirect,
                pool + freed,
                new DeclaredCaps(codeCache, metaspace, stacks, headroom),
                learnedDirectMiB);
    }

    /** An observed peak plus its margin, in whole MiB, never below the floor and never above the model's cap. */
    static long learnedCap(long peakBytes, long marginPercent, long floorMiB, long declaredMiB) {
        long withMargin = ByteSize.ceilDiv(peakBytes + peakBytes * marginPercent / 100, MiB);
        return Math.min(declaredMiB, Math.max(floorMiB, withMargin));
    }

    /**
     * 4. Client I/O: heap buffers of every producer and consumer, plus the direct copy the JDK makes of each socket
     * read, scaled down together from Kafka's defaults when the share is smaller, each buffer kept at its floor.
     */
    private static ClientIo clientIo(WorkloadFacts facts, Overrides overrides, Topology topology, long poolMiB)
            throws DoesNotFit {
        long fetchBuffers = topology.consumers() + topology.socketReaders();
        long bufferDemand = topology.producers() * PRODUCER_BUFFER_DEFAULT + fetchBuffers * FETCH_MAX_DEFAULT;
        // A fixed heap fixes the clients' share too, so more memory never squeezes the heap's other parts.
        long shareBase = overrides.heapBytes() != null ? overrides.heapBytes() / MiB : poolMiB;
        long io =
                Math.min(shareBase * CLIENT_IO_PERCENT / 100, ByteSize.ceilDiv(bufferDemand + DIRECT_MEMORY_BASE, MiB));
        long neededIo = (topology.producers() + fetchBuffers) * CLIENT_BUFFER_MIN + DIRECT_MEMORY_BASE;
        if (io * MiB < neededIo) {
            throw new DoesNotFit(
                    "ClientBuffersTooSmall",
                    "%d threads x (1 producer buffer + 2 consumer fetch buffers + 1 direct read copy)%s at the %s "
                            + "floor each + %s direct memory base: the client I/O (%d%% of %s) needs %s but has %s",
                    "lower the threads",
                    neededIo,
                    Math.max(io, 0) * MiB,
                    facts.streamThreadsPerPod(),
                    topology.consumers() > 2L * facts.streamThreadsPerPod() ? " + the global consumers" : "",
                    format(CLIENT_BUFFER_MIN),
                    format(DIRECT_MEMORY_BASE),
                    CLIENT_IO_PERCENT,
                    format(shareBase * MiB)
                            + (overrides.heapBytes() != null
                                    ? ", the fixed heap"
                                    : " left after JVM overhead and headroom"));
        }
        long[] buffers = clientBuffers(io * MiB - DIRECT_MEMORY_BASE, topology.producers(), fetchBuffers);
        long heap = topology.producers() * buffers[0] + topology.consumers() * buffers[1];
        return new ClientIo(io, buffers[0], buffers[1], heap, io * MiB - heap);
    }

    /**
     * Producer {@code buffer.memory} and {@code fetch.max.bytes} for a heap-and-direct buffer budget: Kafka's defaults
     * scaled by one factor while every buffer stays above {@link MemoryModel#CLIENT_BUFFER_MIN}; below that the
     * producer buffers (the smaller default) hold the floor and the fetch buffers share the rest. Both only grow with
     * the budget. The caller has checked the budget holds every buffer at the floor.
     *
     * @return {producer buffer, fetch max}, each a whole KiB
     */
    private static long[] clientBuffers(long budget, long producers, long fetchBuffers) {
        long demand = producers * PRODUCER_BUFFER_DEFAULT + fetchBuffers * FETCH_MAX_DEFAULT;
        long producer = scaledKiB(PRODUCER_BUFFER_DEFAULT, budget, demand);
        if (producer >= CLIENT_BUFFER_MIN) {
            return new long[] {producer, scaledKiB(FETCH_MAX_DEFAULT, budget, demand)};
        }
        return new long[] {CLIENT_BUFFER_MIN, (budget - producers * CLIENT_BUFFER_MIN) / fetchBuffers / KiB * KiB};
    }

    /** {@code defaultValue} scaled by budget/demand (at most 1), rounded down to KiB. */
    private static long scaledKiB(long defaultValue, long budget, long demand) {
        if (budget >= demand) {
            return defaultValue;
        }
        if (budget <= 0) {
            return 0;
        }
        // defaultValue <= 50 MiB (2^26) and budget < demand <= a few TiB, so the product stays below 2^63.
        return java.math.BigInteger.valueOf(defaultValue)
                        .multiply(java.math.BigInteger.valueOf(budget))
                        .divide(java.math.BigInteger.valueOf(demand))
                        .longValue()
                / KiB
                * KiB;
    }

    /**
     * 4b. Uncommitted writes of transactional state stores, when the application enables them: a share of what client
     * I/O leaves (of the heap, when it is fixed, as for the clients) for their heap and native (WriteBatch) copies.
     */
    private static UncommittedWrites uncommittedWrites(WorkloadFacts facts, Overrides overrides, long afterClientsMiB)
            throws DoesNotFit {
        long base = overrides.heapBytes() != null ? overrides.heapBytes() / MiB : afterClientsMiB;
        UncommittedWrites uncommitted = UncommittedWrites.of(facts, base);
        if (uncommitted.tooSmall()) {
            throw new DoesNotFit(
                    "UncommittedWritesTooSmall",
                    uncommitted.tooSmallDetail(
                            facts, base, overrides.heapBytes() != null ? "the fixed heap" : "what client I/O leaves"),
                    "lower the threads",
                    uncommitted.threadsPerShare() * UNCOMMITTED_MIN_PER_THREAD,
                    uncommitted.perInstance());
        }
        return uncommitted;
    }

    /**
     * 5. RocksDB and the heap's data part share the rest, once the heap's in-memory state (stores and suppression
     * buffers the pods hold on the heap) is set aside: a fixed heap takes its size and RocksDB what it leaves.
     */
    private static Split rocksDbAndHeap(
            Overrides overrides,
            TunedSplit tuned,
            Topology planned,
            ClientIo clients,
            UncommittedWrites uncommitted,
            long stateMiB,
            long restMiB)
            throws DoesNotFit {
        boolean persistent = planned.rocksDbInstances() > 0;
        long rocksDb;
        long dataHeap;
        long spareHeadroom = 0;
        if (overrides.heapBytes() != null) {
            dataHeap = (overrides.heapBytes() - clients.heapBytes() - uncommitted.heapBytes()) / MiB - stateMiB;
            long left = restMiB - stateMiB - dataHeap;
            if (dataHeap < 0 || left < 0) {
                throw new DoesNotFit(
                        "HeapOverrideTooLarge",
                        "the fixed heap does not fit%s: it needs %s but after JVM overhead, headroom and direct memory "
                                + "the pod has %s for heap and RocksDB",
                        "lower the heap override",
                        overrides.heapBytes() + (dataHeap < 0 ? stateMiB * MiB : 0),
                        Math.max(0, (restMiB + clients.ioMiB()) * MiB - clients.directBytes()),
                        dataHeap < 0 ? " with the in-memory state in it" : "");
            }
            rocksDb = persistent ? left : 0;
            spareHeadroom = persistent ? 0 : left;
        } else {
            long shared = restMiB - stateMiB;
            // With no in-memory state this is the split as it always was (the floors below speak for it).
            if (stateMiB > 0 && shared < HEAP_MIN_MIB) {
                throw new DoesNotFit(
                        "InMemoryStateTooLarge",
                        "the in-memory stores and suppression buffers hold %s of heap but after JVM overhead, headroom "
                                + "and client I/O the pod has %s for heap and RocksDB",
                        "give the pod more memory, keep the state in a persistent (RocksDB) store, or bound the "
                                + "suppression buffer",
                        (stateMiB + HEAP_MIN_MIB) * MiB,
                        Math.max(0, restMiB) * MiB);
            }
            if (persistent) {
                double fraction = TunedSplit.pick(
                        overrides.rocksDbFraction(), tuned == null ? null : tuned.rocksDbFraction(), ROCKSDB_FRACTION);
                rocksDb = (long) Math.floor(shared * fraction);
            } else {
                rocksDb = 0;
            }
            dataHeap = shared - rocksDb;
        }
        long heap = clients.heapBytes() + dataHeap * MiB + uncommitted.heapBytes() + stateMiB * MiB;
        if (heap < HEAP_MIN_MIB * MiB) {
            String remedy = overrides.heapBytes() != null
                    ? "raise the heap override"
                    : "lower the threads or the RocksDB share";
            throw new DoesNotFit(
                    "HeapTooSmall", "the heap needs its %s floor but would be %s", remedy, HEAP_MIN_MIB * MiB, heap);
        }
        return new Split(rocksDb, dataHeap, spareHeadroom, heap, 0, stateMiB, 0);
    }

    /**
     * 6. RocksDB: one shared cache holding blocks and write buffers, plus the native overhead no bound catches.
     *
     * @return null without persistent stores
     */
    private static RocksDbSettings rocksDb(WorkloadFacts facts, Overrides overrides, Topology planned, Split split)
            throws DoesNotFit {
        long rocksDbMiB = split.rocksDbMiB();
        if (planned.rocksDbInstances() == 0) {
            return null;
        }
        long nativeOverhead = planned.rocksDbInstances() * ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE;
        // RocksDB's gain from learned sizes is memtables (and the high-priority pool's share): the floors hold without
        // it (as the plan with the model's sizes has shown), and the data blocks stay as that plan sized them.
        long rocksBytes = (rocksDbMiB - split.learnedWriteBuffersMiB()) * MiB;
        long capacity = rocksBytes - nativeOverhead;
        if (capacity < BLOCK_CACHE_MIN) {
            throw new DoesNotFit(
                    "RocksDbBudgetTooSmall",
                    "%d RocksDB instances (%s) x %s of native overhead + a %s shared cache need %s, "
                            + "but the RocksDB share is %s",
                    facts.replicaRange() == null
                            ? "lower the stores or the tasks per pod (more replicas)"
                            : "lower the stores or the tasks per pod (more replicas, or a higher minimum of the "
                                    + "replica range)",
                    nativeOverhead + BLOCK_CACHE_MIN,
                    rocksBytes,
                    planned.rocksDbInstances(),
                    instancesExplained(facts, planned),
                    format(ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE),
                    format(BLOCK_CACHE_MIN));
        }
        return rocksDbSettings(
                capacity + split.learnedWriteBuffersMiB() * MiB,
                split.learnedWriteBuffersMiB() * MiB,
                overrides,
                writeBufferFraction(facts, overrides),
                planned.rocksDbInstances(),
                facts.streamThreadsPerPod());
    }

    /**
     * The share of the block cache for memtables when forced or tuned, null for the model's 1/{@link
     * MemoryModel#WRITE_BUFFER_DIVISOR} (kept as an integer division, so untuned plans keep their exact bytes).
     */
    static Double writeBufferFraction(WorkloadFacts facts, Overrides overrides) {
        if (overrides.writeBufferFraction() != null) {
            return overrides.writeBufferFraction();
        }
        return facts.tunedSplit() == null ? null : facts.tunedSplit().writeBufferFraction();
    }

    /** What of the learned gain the memtables get: all but the high-priority pool's share of it. */
    static long learnedMemtableBytes(long learnedGainBytes, double highPriorityPoolRatio) {
        return learnedGainBytes - (long) Math.ceil(learnedGainBytes * highPriorityPoolRatio);
    }

    /**
     * @param learnedWriteBuffers what learned JVM sizes freed for RocksDB, part of {@code capacity}: memtables, but
     *                            for the high-priority pool's share of it
     * @param writeBufferFraction the memtables' share of the rest, null for the model's
     */
    private static RocksDbSettings rocksDbSettings(
            long capacity,
            long learnedWriteBuffers,
            Overrides overrides,
            Double writeBufferFraction,
            long instances,
            long streamThreads) {
        double ratio = overrides.highPriorityPoolRatio() != null
                ? overrides.highPriorityPoolRatio()
                : HIGH_PRIORITY_POOL_RATIO;
        boolean strict = Boolean.TRUE.equals(overrides.strictCacheLimit());
        long shared = capacity - learnedWriteBuffers;
        // The high-priority pool is a share of the whole cache, so it takes its share of the learned gain too: the
        // memtables get the rest, and the data blocks keep exactly what the plan with the model's sizes gave them
        // (all of the gain as memtables drove them below 0 once a learned headroom freed a tenth of a large pod).
        long writeBuffers = (writeBufferFraction == null
                        ? shared / WRITE_BUFFER_DIVISOR
                        : (long) Math.floor(shared * writeBufferFraction))
                + learnedMemtableBytes(learnedWriteBuffers, ratio);
        long writeBufferSize = ByteSize.clamp(
                writeBuffers / MEMTABLES_PER_BUDGET / KiB * KiB, WRITE_BUFFER_SIZE_MIN, WRITE_BUFFER_SIZE_MAX);
        long memtables = instances * MEMTABLE_COLUMN_FAMILIES * MAX_WRITE_BUFFER_NUMBER;
        long arenaBlock = ByteSize.clamp(
                writeBuffers / ARENA_BLOCKS_DIVISOR / memtables / ARENA_BLOCK_STEP * ARENA_BLOCK_STEP,
                ARENA_BLOCK_MIN,
                Math.min(ARENA_BLOCK_MAX, writeBufferSize / 8));
        int flushThreads = (int) ByteSize.clamp(streamThreads, 1, ROCKSDB_FLUSH_THREADS_MAX);
        return new RocksDbSettings(
                capacity,
                writeBuffers,
                writeBufferSize,
                MAX_WRITE_BUFFER_NUMBER,
                ratio,
                strict,
                arenaBlock,
                flushThreads,
                LAST_LEVEL_FILTERS);
    }

    /**
     * Whole MiB of the heap the plan's record cache would take beyond the one the application sets itself
     * ({@link WorkloadFacts#applicationRecordCacheBytes}); 0 when it sets none or a larger one, when the heap is fixed
     * (the user chose its size), or without persistent stores (no RocksDB to take it).
     */
    private static long releasedByApplicationCache(
            WorkloadFacts facts, Overrides overrides, Topology planned, HeapShares planShares) {
        Long own = facts.applicationRecordCacheBytes();
        if (own == null
                || own >= planShares.recordCachePerInstance()
                || overrides.heapBytes() != null
                || planned.rocksDbInstances() == 0) {
            return 0;
        }
        long heapPerInstance = (planShares.recordCachePerInstance() - own) * RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
        return heapPerInstance * facts.instancesPerPod() / MiB;
    }

    /**
     * 7. The heap's data part: record cache, input buffers, and the application's own objects.
     *
     * @param applicationCache the record cache per instance the application sets itself, when the split already gave
     *                         RocksDB what the plan's would have taken beyond it; null to plan the model's
     */
    private static HeapShares heapShares(
            WorkloadFacts facts,
            Overrides overrides,
            Topology topology,
            ClientIo clients,
            Split split,
            Long applicationCache)
            throws DoesNotFit {
        long dataHeapBytes = split.dataHeapMiB() * MiB;
        double cacheFraction = TunedSplit.pick(
                overrides.recordCacheFraction(),
                facts.tunedSplit() == null ? null : facts.tunedSplit().recordCacheFraction(),
                RECORD_CACHE_FRACTION);
        // Kafka Streams sizes the record cache per KafkaStreams instance: each instance's key gets an equal share,
        // and the part is the sum of the shares (what a share's rounding leaves stays with the application).
        long instances = facts.instancesPerPod();
        long cacheHeapPerInstance = hasStores(facts) ? (long) Math.floor(dataHeapBytes * cacheFraction) / instances : 0;
        long capPerInstance = recordCacheCapPerInstance(facts, overrides);
        boolean capped = cacheHeapPerInstance > capPerInstance * RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
        if (capped) {
            cacheHeapPerInstance = capPerInstance * RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
        }
        if (applicationCache != null) {
            cacheHeapPerInstance = applicationCache * RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
        }
        // Kafka Streams counts a fraction of what its cache's entries take in the heap: the setting is that fraction
        // of the cache's share, the rest of the share holds what it does not count.
        long recordCachePerInstance = cacheHeapPerInstance / RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
        long recordCache = recordCachePerInstance * instances;
        long recordCacheOverhead = cacheHeapPerInstance * instances - recordCache;
        long afterCache = dataHeapBytes - recordCache - recordCacheOverhead;
        long bytesPerBufferedRecordRound = topology.activeTasksPerPod() * facts.recordBytes();
        long bufferedRecords =
                Math.min(BUFFERED_RECORDS_DEFAULT, afterCache / INPUT_BUFFER_DIVISOR / bytesPerBufferedRecordRound);
        if (bufferedRecords < BUFFERED_RECORDS_MIN) {
            throw new DoesNotFit(
                    "InputBuffersTooSmall",
                    "%d input partitions per pod x %d records x %s need %s but the input share of the heap is %s",
                    "lower the tasks per pod (more replicas)",
                    BUFFERED_RECORDS_MIN * bytesPerBufferedRecordRound,
                    afterCache / INPUT_BUFFER_DIVISOR,
                    topology.activeTasksPerPod(),
                    BUFFERED_RECORDS_MIN,
                    format(facts.recordBytes()));
        }
        // The part is the input share itself (up to Kafka's default count), not the whole records it holds: a part
        // of whole records would jump by a round of records (partitions x record size) as memory grows and take it
        // from the application, which must never shrink. The rest of a round that does not fit stays as slack.
        long inputBuffers =
                Math.min(afterCache / INPUT_BUFFER_DIVISOR, BUFFERED_RECORDS_DEFAULT * bytesPerBufferedRecordRound);
        long application = afterCache - inputBuffers;
        // Half of the data part, not of the whole heap: the client buffers scale with the pool, not with the data part,
        // and near the point where both grow alike a whole-heap rule flipped between fitting and not with every MiB.
        // Measured against the data part, the rule depends only on the record cache fraction and the input buffers'
        // cap, so once a pod fits, every larger pod fits too.
        if (application * 2 < dataHeapBytes) {
            throw new DoesNotFit(
                    "ApplicationHeapTooSmall",
                    "record cache %s and input buffers %s leave the application less than half of the %s the "
                            + "client buffers (%s) leave in the heap: it needs %s but would keep %s",
                    "lower the record cache fraction, or the tasks per pod (more replicas)",
                    dataHeapBytes - dataHeapBytes / 2,
                    application,
                    format(recordCache),
                    format(inputBuffers),
                    format(dataHeapBytes),
                    format(clients.heapBytes()));
        }
        return new HeapShares(
                cacheFraction,
                capped,
                recordCachePerInstance,
                recordCache,
                recordCacheOverhead,
                bufferedRecords,
                inputBuffers,
                application);
    }

    /**
     * The most record cache one instance is planned, by Kafka Streams' count: {@link MemoryModel#RECORD_CACHE_MAX_PER_THREAD}
     * per stream thread, at least Kafka's default; no cap when the user forces the share.
     */
    static long recordCacheCapPerInstance(WorkloadFacts facts, Overrides overrides) {
        if (overrides.recordCacheFraction() != null) {
            return Long.MAX_VALUE / RECORD_CACHE_HEAP_PER_COUNTED_BYTE;
        }
        return Math.max(RECORD_CACHE_DEFAULT, facts.streamThreads() * RECORD_CACHE_MAX_PER_THREAD);
    }

    /** Whether the record cache has anything to hold. */
    static boolean hasStores(WorkloadFacts facts) {
        return facts.stores().total() + facts.globalStores() > 0;
    }

    /** How the planned pod's instances add up, and which replica counts it is the busiest of. */
    static String instancesExplained(WorkloadFacts facts, Topology planned) {
        String text = String.format(
                "%d active + %d standby tasks x %d per task",
                planned.activeTasksPerPod(),
                planned.standbyTasksPerPod(),
                facts.stores().rocksDbInstancesPerTask());
        text = facts.globalStores() > 0 ? text + " + " + facts.globalStores() + " global" : text;
        ReplicaRange range = facts.replicaRange();
        return range == null
                ? text
                : String.format(
                        "%s: the busiest pod at %d to %d replicas, the replica range "
                                + "[%d, %d] with one pod of the fewest restarting",
                        text, Math.max(1, range.min() - 1), range.max(), range.min(), range.max());
    }
}
