package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.KiB;
import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.TiB;
import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.engine.MemoryModel.*;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns {@link WorkloadFacts} into an {@link Allocation}: the single source of every number the
 * operator and the agent set.
 *
 * <p>The pod's memory is peeled in whole MiB, each step taking its share of what the previous steps
 * left: code cache, headroom, metaspace and thread stacks, client I/O (heap buffers and their direct
 * copies), then RocksDB and the heap's data part. Peeling from the remainder, rather than taking
 * every share of the total, is what makes each part grow (never shrink) as memory grows; the nested
 * parts inside heap and RocksDB are split in bytes. The only part that is not a whole number of MiB
 * is the headroom, which keeps the sub-MiB rest of the pod memory so the parts sum to it exactly.
 *
 * <p>Replica range: a pod reads its RocksDB settings and JVM flags when it starts, so a change to them (the
 * restart hash) means rolling every pod. With a {@link WorkloadFacts#replicaRange() replica range} the engine
 * sizes everything RocksDB (native overhead, the shared cache, write buffers and arena blocks) for the busiest pod
 * of the range, {@link Allocation#plannedTopology()}: the most RocksDB instances at any count from
 * {@code max(1, min - 1)} (one pod of the fewest restarting) to {@code max}. The other parts do not depend on the
 * replica count except {@code buffered.records.per.partition}, which follows the current count and is published
 * without a roll. So scaling inside the range keeps the restart hash; the price is a RocksDB cache smaller than the
 * current pod alone would get. Without a range the engine plans for exactly the current {@code replicas}.
 */
public final class AllocationEngine {
    /** The largest pod the minimum-memory search considers. */
    static final long SEARCH_LIMIT_BYTES = 4 * TiB;

    /**
     * Computes the allocation, or explains why the facts do not fit and the least memory that would.
     *
     * @throws IllegalArgumentException when the facts themselves are invalid (see {@link WorkloadFacts#validate()})
     */
    public AllocationResult allocate(WorkloadFacts facts) {
        List<String> problems = facts.validate();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        Outcome outcome = compute(facts, true);
        if (outcome.failure == null) {
            return new AllocationResult(outcome.allocation, List.of(), null);
        }
        Long minimum = minimumMemory(facts);
        Failure failure = outcome.failure;
        String remedy = minimum == null
                ? failure.remedy + " (no pod size up to " + format(SEARCH_LIMIT_BYTES) + " fits these facts)"
                : failure.remedy + " or raise memory to at least " + format(minimum)
                        + " (" + minimum / MiB + "Mi)";
        return new AllocationResult(null, List.of(new AllocationError(failure.code, failure.detail + "; " + remedy,
                failure.neededBytes, failure.availableBytes)), minimum);
    }

    /**
     * The least whole-MiB memory at which the facts fit, by binary search (every floor holds more easily with more
     * memory). It runs {@link #compute} itself, so it sizes RocksDB for the same planned (busiest) topology.
     */
    private Long minimumMemory(WorkloadFacts facts) {
        long high = SEARCH_LIMIT_BYTES / MiB;
        if (!fits(facts, high)) {
            return null;
        }
        long low = facts.memoryBytes() / MiB; // does not fit
        while (high - low > 1) {
            long middle = low + (high - low) / 2;
            if (fits(facts, middle)) {
                high = middle;
            } else {
                low = middle;
            }
        }
        return high * MiB;
    }

    private boolean fits(WorkloadFacts facts, long memoryMiB) {
        return compute(facts.toBuilder().memoryBytes(memoryMiB * MiB).build(), false).failure == null;
    }

    /** A floor that does not hold: {@code neededBytes > availableBytes}, both printed in {@code detail}. */
    private record Failure(String code, String detail, String remedy, long neededBytes, long availableBytes) {
    }

    private record Outcome(Allocation allocation, Failure failure) {
        /** Fits, not explained. */
        static final Outcome FITS = new Outcome(null, null);

        /** {@code detail} is a format of {@code args} followed by the needed and the available size, as
         *  {@link #shown} prints them (two {@code %s}, last unless the format numbers its arguments). */
        static Outcome fail(String code, String detail, String remedy, long needed, long available, Object... args) {
            Object[] all = java.util.Arrays.copyOf(args, args.length + 2);
            String[] shown = shown(needed, available);
            all[args.length] = shown[0];
            all[args.length + 1] = shown[1];
            return new Outcome(null, new Failure(code, String.format(detail, all), remedy, needed, available));
        }
    }

    /**
     * The needed and available sizes as a message prints them: rounded ({@link ByteSize#format}), or in bytes when
     * the rounded forms would read the same, so the message always shows the need exceeding what there is.
     */
    static String[] shown(long needed, long available) {
        String need = format(needed);
        String have = format(available);
        return need.equals(have) ? new String[] {String.format(java.util.Locale.ROOT, "%,d B", needed),
                String.format(java.util.Locale.ROOT, "%,d B", available)}
                : new String[] {need, have};
    }

    /**
     * Sizes every part and checks every floor; with {@code explain} also builds the parts, reasons and
     * settings (the minimum-memory search only needs to know whether the facts fit, and is much faster
     * without the explanations).
     */
    private Outcome compute(WorkloadFacts facts, boolean explain) {
        Overrides overrides = facts.overrides() == null ? Overrides.NONE : facts.overrides();
        // Two pods: what one pod runs now, and the busiest pod of the replica range. RocksDB settings and JVM flags
        // are read when a pod starts (the restart hash), so everything RocksDB is sized for the busiest pod and
        // scaling inside the range changes none of it; the heap, the clients and buffered.records.per.partition follow
        // the current count (the latter is published without a roll and taken at the next start).
        Topology topology = Topology.of(facts);
        Topology planned = Topology.worstCase(facts);
        long memory = facts.memoryBytes();
        long m = memory / MiB;
        long subMiB = memory % MiB;

        // 1. Code cache, then headroom, each from what is left.
        long codeCache = ByteSize.clamp(m / CODE_CACHE_DIVISOR, CODE_CACHE_MIN_MIB, CODE_CACHE_MAX_MIB);
        long afterCode = m - codeCache;
        long headroom = Math.max(afterCode * HEADROOM_PERCENT / 100, HEADROOM_MIN_MIB);
        long afterHeadroom = afterCode - headroom;

        // 2. Metaspace, thread stacks and the application's own direct memory do not depend on the memory.
        long metaspace = ByteSize.ceilDiv(facts.loadedClasses() * METASPACE_BYTES_PER_CLASS + METASPACE_FIXED_BYTES, MiB);
        long stacks = topology.jvmThreads() * THREAD_STACK_MIB;
        long extraDirect = ByteSize.ceilDiv(facts.extraDirectMemoryBytes(), MiB);
        long pool = afterHeadroom - metaspace - stacks - extraDirect;
        // A pool of 0 is no overhead exceeding the pod: the client I/O step names what is then missing.
        if (pool < 0) {
            return Outcome.fail("JvmOverheadExceedsMemory",
                    "the JVM alone needs %7$s (code cache %1$s + headroom %2$s + metaspace %3$s + %4$d thread stacks "
                            + "x %5$d MiB%6$s) but the pod has %8$s",
                    "lower the threads" + (extraDirect > 0 ? " or the extra direct memory" : ""),
                    (codeCache + headroom + metaspace + stacks + extraDirect) * MiB, memory, format(codeCache * MiB),
                    format(headroom * MiB), format(metaspace * MiB), topology.jvmThreads(), THREAD_STACK_MIB,
                    extraDirect > 0 ? " + the application's direct memory " + format(extraDirect * MiB) : "");
        }

        // 3. Client I/O: heap buffers of every producer and consumer, plus the direct copy the JDK makes of
        //    each socket read, scaled down together from Kafka's defaults when the share is smaller, each
        //    buffer kept at its floor (see clientBuffers).
        long fetchBuffers = topology.consumers() + topology.socketReaders();
        long bufferDemand = topology.producers() * PRODUCER_BUFFER_DEFAULT + fetchBuffers * FETCH_MAX_DEFAULT;
        // A fixed heap fixes the clients' share too, so more memory never squeezes the heap's other parts.
        long clientShareBase = overrides.heapBytes() != null ? overrides.heapBytes() / MiB : pool;
        long clientIo = Math.min(clientShareBase * CLIENT_IO_PERCENT / 100,
                ByteSize.ceilDiv(bufferDemand + DIRECT_MEMORY_BASE, MiB));
        long neededIo = (topology.producers() + fetchBuffers) * CLIENT_BUFFER_MIN + DIRECT_MEMORY_BASE;
        if (clientIo * MiB < neededIo) {
            return Outcome.fail("ClientBuffersTooSmall",
                    "%d threads x (1 producer buffer + 2 consumer fetch buffers + 1 direct read copy)%s at the %s "
                            + "floor each + %s direct memory base: the client I/O (%d%% of %s) needs %s but has %s",
                    "lower the threads", neededIo, Math.max(clientIo, 0) * MiB, facts.streamThreadsPerPod(),
                    topology.consumers() > 2L * facts.streamThreadsPerPod() ? " + the global consumers" : "",
                    format(CLIENT_BUFFER_MIN), format(DIRECT_MEMORY_BASE), CLIENT_IO_PERCENT,
                    format(clientShareBase * MiB) + (overrides.heapBytes() != null ? ", the fixed heap"
                            : " left after JVM overhead and headroom"));
        }
        long[] buffers = clientBuffers(clientIo * MiB - DIRECT_MEMORY_BASE, topology.producers(), fetchBuffers);
        long producerBuffer = buffers[0];
        long fetchMax = buffers[1];
        long clientHeap = topology.producers() * producerBuffer + topology.consumers() * fetchMax;
        long clientDirect = clientIo * MiB - clientHeap;
        long directMemory = clientDirect + extraDirect * MiB;
        long afterClients = pool - clientIo;
        // 3b. Uncommitted writes of transactional state stores, when the application enables them: a share of what
        //     client I/O leaves (of the heap, when it is fixed, as for the clients) for their heap and their native
        //     (RocksDB WriteBatch) copies.
        long uncommittedBase = overrides.heapBytes() != null ? overrides.heapBytes() / MiB : afterClients;
        UncommittedWrites uncommitted = UncommittedWrites.of(facts, uncommittedBase);
        if (uncommitted.tooSmall()) {
            return Outcome.fail("UncommittedWritesTooSmall", uncommitted.tooSmallDetail(facts, uncommittedBase,
                    overrides.heapBytes() != null ? "the fixed heap" : "what client I/O leaves"), "lower the threads",
                    uncommitted.threadsPerShare() * UNCOMMITTED_MIN_PER_THREAD, uncommitted.perInstance());
        }
        afterClients -= uncommitted.shareMiB();

        // 4. RocksDB and the heap's data part share the rest.
        boolean persistent = planned.rocksDbInstances() > 0;
        long rocksDb;
        long dataHeap;
        long spareHeadroom = 0;
        if (overrides.heapBytes() != null) {
            dataHeap = (overrides.heapBytes() - clientHeap - uncommitted.heapBytes()) / MiB;
            long left = afterClients - dataHeap;
            if (dataHeap < 0 || left < 0) {
                return Outcome.fail("HeapOverrideTooLarge",
                        "the fixed heap does not fit: it needs %s but after JVM overhead, headroom and direct memory "
                                + "the pod has %s for heap and RocksDB", "lower the heap override",
                        overrides.heapBytes(), Math.max(0, (afterClients + clientIo) * MiB - clientDirect));
            }
            rocksDb = persistent ? left : 0;
            spareHeadroom = persistent ? 0 : left;
        } else if (persistent) {
            double fraction = overrides.rocksDbFraction() != null ? overrides.rocksDbFraction() : ROCKSDB_FRACTION;
            rocksDb = (long) Math.floor(afterClients * fraction);
            dataHeap = afterClients - rocksDb;
        } else {
            rocksDb = 0;
            dataHeap = afterClients;
        }
        long heap = clientHeap + dataHeap * MiB + uncommitted.heapBytes();
        if (heap < HEAP_MIN_MIB * MiB) {
            String remedy = overrides.heapBytes() != null ? "raise the heap override"
                    : "lower the threads or the RocksDB share";
            return Outcome.fail("HeapTooSmall", "the heap needs its %s floor but would be %s", remedy,
                    HEAP_MIN_MIB * MiB, heap);
        }

        // 5. RocksDB: one shared cache holding blocks and write buffers, plus what no bound catches.
        RocksDbSettings rocksSettings = null;
        long nativeOverhead = planned.rocksDbInstances() * ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE;
        if (persistent) {
            long rocksBytes = rocksDb * MiB;
            long capacity = rocksBytes - nativeOverhead;
            if (capacity < BLOCK_CACHE_MIN) {
                return Outcome.fail("RocksDbBudgetTooSmall",
                        "%d RocksDB instances (%s) x %s of native overhead + a %s shared cache need %s, "
                                + "but the RocksDB share is %s",
                        facts.replicaRange() == null ? "lower the stores or the tasks per pod (more replicas)"
                                : "lower the stores or the tasks per pod (more replicas, or a higher minimum of the "
                                        + "replica range)", nativeOverhead + BLOCK_CACHE_MIN, rocksBytes,
                        planned.rocksDbInstances(), instancesExplained(facts, planned),
                        format(ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE), format(BLOCK_CACHE_MIN));
            }
            rocksSettings = rocksDbSettings(capacity, overrides, planned.rocksDbInstances());
        }

        // 6. The heap: client buffers, record cache, input buffers, and the application's own objects.
        KafkaStreamsVersion version = KafkaStreamsVersion.parse(facts.kafkaStreamsVersion());
        long dataHeapBytes = dataHeap * MiB;
        double cacheFraction = overrides.recordCacheFraction() != null ? overrides.recordCacheFraction()
                : RECORD_CACHE_FRACTION;
        boolean hasStores = facts.stores().total() + facts.globalStores() > 0;
        // Kafka Streams sizes the record cache per KafkaStreams instance: each instance's key gets an equal share,
        // and the part is the sum of the shares (what a share's rounding leaves stays with the application).
        long instances = facts.instancesPerPod();
        long recordCachePerInstance = hasStores ? (long) Math.floor(dataHeapBytes * cacheFraction) / instances : 0;
        long recordCache = recordCachePerInstance * instances;
        long afterCache = dataHeapBytes - recordCache;
        long bytesPerBufferedRecordRound = topology.activeTasksPerPod() * facts.recordBytes();
        long bufferedRecords = Math.min(BUFFERED_RECORDS_DEFAULT, afterCache / INPUT_BUFFER_DIVISOR / bytesPerBufferedRecordRound);
        if (bufferedRecords < BUFFERED_RECORDS_MIN) {
            return Outcome.fail("InputBuffersTooSmall",
                    "%d input partitions per pod x %d records x %s need %s but the input share of the heap is %s",
                    "lower the tasks per pod (more replicas)", BUFFERED_RECORDS_MIN * bytesPerBufferedRecordRound,
                    afterCache / INPUT_BUFFER_DIVISOR, topology.activeTasksPerPod(), BUFFERED_RECORDS_MIN,
                    format(facts.recordBytes()));
        }
        // The part is the input share itself (up to Kafka's default count), not the whole records it holds: a part
        // of whole records would jump by a round of records (partitions x record size) as memory grows and take it
        // from the application, which must never shrink. The rest of a round that does not fit stays as slack.
        long inputBuffers = Math.min(afterCache / INPUT_BUFFER_DIVISOR,
                BUFFERED_RECORDS_DEFAULT * bytesPerBufferedRecordRound);
        long application = afterCache - inputBuffers;
        if (application * 2 < heap) {
            return Outcome.fail("ApplicationHeapTooSmall",
                    "client buffers %s, record cache %s and input buffers %s leave the application less than half "
                            + "of the %s heap: it needs %s but would keep %s",
                    "lower the record cache or RocksDB share, or the threads", heap - heap / 2, application,
                    format(clientHeap), format(recordCache), format(inputBuffers), format(heap));
        }
        if (!explain) {
            return Outcome.FITS;
        }

        // 7. Every floor holds: explain each number.
        Part rocksPart = persistent ? rocksDbPart(facts, planned, rocksSettings, nativeOverhead)
                : Part.leaf("rocksdb", 0, "no persistent state stores: nothing for RocksDB", Map.of());
        Map<String, String> streamsConfig = new LinkedHashMap<>();
        List<Part> clientParts = clientParts(facts, topology, producerBuffer, fetchMax, streamsConfig);
        Map<String, String> cacheConfig = Map.of(version.recordCacheKey(), Long.toString(recordCachePerInstance));
        Map<String, String> inputConfig = Map.of(StreamsConfigKeys.BUFFERED_RECORDS_PER_PARTITION, Long.toString(bufferedRecords));
        streamsConfig.putAll(cacheConfig);
        streamsConfig.putAll(inputConfig);
        if (uncommitted.on()) {
            streamsConfig.putAll(uncommitted.config());
        }

        String cacheReason = !hasStores ? "no state stores: the record cache would hold nothing"
                : instances == 1 ? String.format("%.0f%% of the heap after client buffers; Kafka Streams splits it "
                        + "over the %d stream threads (%s each)", cacheFraction * 100, facts.streamThreads(),
                        format(recordCache / facts.streamThreads()))
                : String.format("%.0f%% of the heap after client buffers, divided among %d KafkaStreams instances "
                        + "(%s each, which Kafka Streams splits over its %d stream threads)", cacheFraction * 100,
                        instances, format(recordCachePerInstance), facts.streamThreads());
        String inputReason = String.format("1/%d of the heap left after the record cache, up to Kafka's default: "
                        + "%d records x %d partitions x %s per record%s", INPUT_BUFFER_DIVISOR, bufferedRecords,
                topology.activeTasksPerPod(), format(facts.recordBytes()),
                bufferedRecords == BUFFERED_RECORDS_DEFAULT ? " (Kafka's default count fits)" : "");
        List<Part> heapParts = new ArrayList<>(List.of(
                        Part.of("client-buffers", String.format(
                                "%d producers and %d consumers, %s (all clients of a pod share %d%% of the pool with "
                                        + "their direct read copies)", topology.producers(), topology.consumers(),
                                producerBuffer > CLIENT_BUFFER_MIN || fetchMax <= CLIENT_BUFFER_MIN
                                        ? String.format("each given %.0f%% of Kafka's default buffers",
                                                100.0 * fetchMax / FETCH_MAX_DEFAULT)
                                        : String.format("producer buffers at their %s floor, fetch buffers given "
                                                + "%.1f%% of Kafka's default", format(CLIENT_BUFFER_MIN),
                                                100.0 * fetchMax / FETCH_MAX_DEFAULT),
                                CLIENT_IO_PERCENT), Map.of(), clientParts),
                        Part.leaf("record-cache", recordCache, cacheReason, cacheConfig),
                        Part.leaf("input-buffers", inputBuffers, inputReason, inputConfig),
                        Part.leaf("application", application,
                                "the application's own objects: at least half of the heap", Map.of())));
        if (uncommitted.on()) {
            heapParts.add(heapParts.size() - 1, uncommitted.heapPart(facts));
        }
        Part heapPart = Part.of("heap", String.format(
                        "the JVM heap: client buffers, record cache, input buffers%s and the application; -Xms = -Xmx "
                                + "so the heap never grows into memory the other parts own%s",
                        uncommitted.on() ? ", uncommitted writes" : "",
                        overrides.heapBytes() != null ? " (fixed by the heap override)" : ""),
                Map.of("-Xmx", jvmSize(heap), "-Xms", jvmSize(heap)), List.copyOf(heapParts));

        List<Part> parts = new ArrayList<>();
        parts.add(Part.leaf("jvm-code-cache", codeCache * MiB, String.format(
                "1/%d of the pod within [%d, %d] MiB: JIT-compiled code", CODE_CACHE_DIVISOR, CODE_CACHE_MIN_MIB,
                CODE_CACHE_MAX_MIB), Map.of("-XX:ReservedCodeCacheSize", codeCache + "m")));
        parts.add(Part.leaf("jvm-metaspace", metaspace * MiB, String.format(
                "%,d loaded classes x %,d B + %s (Paketo memory calculator)", facts.loadedClasses(),
                METASPACE_BYTES_PER_CLASS, format(METASPACE_FIXED_BYTES)),
                Map.of("-XX:MaxMetaspaceSize", metaspace + "m")));
        parts.add(Part.leaf("jvm-thread-stacks", stacks * MiB, String.format(
                "%d JVM threads (%d base + %d per stream thread x %d%s) x %d MiB stack", topology.jvmThreads(),
                BASE_JVM_THREADS, JVM_THREADS_PER_STREAM_THREAD, facts.streamThreadsPerPod(),
                facts.globalStores() > 0 ? " + global threads" : "", THREAD_STACK_MIB),
                Map.of("-Xss", THREAD_STACK_MIB + "m")));
        parts.add(Part.leaf("jvm-direct-memory", directMemory, String.format(
                "%s base + %d socket-reading threads x %s: the JDK copies each fetch response through a direct "
                        + "buffer; buffers over %s are not cached per thread%s", format(DIRECT_MEMORY_BASE),
                topology.socketReaders(), format(fetchMax), format(MAX_CACHED_DIRECT_BUFFER), extraDirect > 0
                        ? "; + " + format(extraDirect * MiB) + " the application's own libraries use" : ""),
                Map.of("-XX:MaxDirectMemorySize", jvmSize(directMemory),
                        "-Djdk.nio.maxCachedBufferSize", Long.toString(MAX_CACHED_DIRECT_BUFFER))));
        parts.add(Part.leaf("headroom", (headroom + spareHeadroom) * MiB + subMiB, String.format(
                "%d%% of the pod after code cache, at least %d MiB, left unbounded for GC and JIT structures, malloc "
                        + "fragmentation and blocks RocksDB pins while reading%s", HEADROOM_PERCENT, HEADROOM_MIN_MIB,
                spareHeadroom > 0 ? "; holds what the fixed heap leaves unused" : ""), Map.of()));
        parts.add(heapPart);
        parts.add(rocksPart);
        if (uncommitted.on()) {
            parts.add(uncommitted.nativePart());
        }

        List<String> jvmOptions = List.of("-Xms" + jvmSize(heap), "-Xmx" + jvmSize(heap),
                "-XX:MaxMetaspaceSize=" + metaspace + "m", "-XX:ReservedCodeCacheSize=" + codeCache + "m",
                "-XX:MaxDirectMemorySize=" + jvmSize(directMemory), "-Xss" + THREAD_STACK_MIB + "m",
                "-Djdk.nio.maxCachedBufferSize=" + MAX_CACHED_DIRECT_BUFFER);
        // Kafka's defaults for the pod as it runs now: the baseline explains today's risk and is never applied.
        DefaultsBaseline baseline = DefaultsBaseline.of(facts, topology, metaspace * MiB);
        String hash = AllocationHash.of(jvmOptions, streamsConfig, rocksSettings);
        String restartHash = AllocationHash.of(jvmOptions, Map.of(), rocksSettings);
        return new Outcome(new Allocation(memory, facts, topology, planned, List.copyOf(parts), jvmOptions,
                java.util.Collections.unmodifiableMap(streamsConfig), rocksSettings, baseline, hash, restartHash),
                null);
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
        return java.math.BigInteger.valueOf(defaultValue).multiply(java.math.BigInteger.valueOf(budget))
                .divide(java.math.BigInteger.valueOf(demand)).longValue() / KiB * KiB;
    }

    private static List<Part> clientParts(WorkloadFacts facts, Topology topology, long producerBuffer, long fetchMax,
                                          Map<String, String> streamsConfig) {
        long threads = facts.streamThreadsPerPod();
        long partitionFetch = Math.min(PARTITION_FETCH_DEFAULT, fetchMax);
        long batch = Math.min(PRODUCER_BATCH_DEFAULT, producerBuffer);
        Map<String, String> producer = new LinkedHashMap<>();
        producer.put(StreamsConfigKeys.PRODUCER_BUFFER_MEMORY, Long.toString(producerBuffer));
        producer.put(StreamsConfigKeys.PRODUCER_BATCH_SIZE, Long.toString(batch));
        streamsConfig.putAll(producer);
        List<Part> parts = new ArrayList<>();
        parts.add(Part.leaf("producer-buffers", threads * producerBuffer, String.format(
                "%d producers (one per stream thread) x %s buffer.memory", threads, format(producerBuffer)), producer));
        String[][] consumers = {{"main", "consumer-fetch-buffers", "main consumers (one per stream thread)"},
                {"restore", "restore-consumer-fetch-buffers", "restore consumers (one per stream thread)"},
                {"global", "global-consumer-fetch-buffers", "global consumers (one per KafkaStreams instance)"}};
        for (String[] consumer : consumers) {
            long count = consumer[0].equals("global") ? topology.consumers() - 2 * threads : threads;
            if (count == 0) {
                continue;
            }
            Map<String, String> config = new LinkedHashMap<>();
            config.put(StreamsConfigKeys.consumer(consumer[0], StreamsConfigKeys.FETCH_MAX_BYTES), Long.toString(fetchMax));
            config.put(StreamsConfigKeys.consumer(consumer[0], StreamsConfigKeys.MAX_PARTITION_FETCH_BYTES), Long.toString(partitionFetch));
            config.put(StreamsConfigKeys.consumer(consumer[0], StreamsConfigKeys.RECEIVE_BUFFER_BYTES), Long.toString(RECEIVE_BUFFER_DEFAULT));
            streamsConfig.putAll(config);
            parts.add(Part.leaf(consumer[1], count * fetchMax, String.format("%d %s x %s fetch.max.bytes "
                    + "(one fetch response held in the heap)", count, consumer[2], format(fetchMax)), config));
        }
        return parts;
    }

    private static RocksDbSettings rocksDbSettings(long capacity, Overrides overrides, long instances) {
        double ratio = overrides.highPriorityPoolRatio() != null ? overrides.highPriorityPoolRatio()
                : HIGH_PRIORITY_POOL_RATIO;
        boolean strict = Boolean.TRUE.equals(overrides.strictCacheLimit());
        long writeBuffers = capacity / WRITE_BUFFER_DIVISOR;
        long writeBufferSize = ByteSize.clamp(writeBuffers / MEMTABLES_PER_BUDGET / KiB * KiB, WRITE_BUFFER_SIZE_MIN,
                WRITE_BUFFER_SIZE_MAX);
        long memtables = instances * MAX_WRITE_BUFFER_NUMBER;
        long arenaBlock = ByteSize.clamp(writeBuffers / 2 / memtables / ARENA_BLOCK_STEP * ARENA_BLOCK_STEP,
                ARENA_BLOCK_MIN, Math.min(ARENA_BLOCK_MAX, writeBufferSize / 8));
        return new RocksDbSettings(capacity, writeBuffers, writeBufferSize, MAX_WRITE_BUFFER_NUMBER, ratio, strict,
                arenaBlock);
    }

    private static Part rocksDbPart(WorkloadFacts facts, Topology planned, RocksDbSettings s, long nativeOverhead) {
        long capacity = s.blockCacheCapacityBytes();
        long indexFilter = (long) Math.floor(capacity * s.highPriorityPoolRatio());
        long dataBlocks = capacity - s.writeBufferManagerBytes() - indexFilter;
        Map<String, String> cacheConfig = new LinkedHashMap<>();
        cacheConfig.put("block_cache.capacity", Long.toString(capacity));
        cacheConfig.put("block_cache.strict_capacity_limit", Boolean.toString(s.strictCapacityLimit()));
        Map<String, String> writeConfig = new LinkedHashMap<>();
        writeConfig.put("write_buffer_manager.buffer_size", Long.toString(s.writeBufferManagerBytes()));
        writeConfig.put("write_buffer_size", Long.toString(s.writeBufferSizeBytes()));
        writeConfig.put("max_write_buffer_number", Integer.toString(s.maxWriteBufferNumber()));
        writeConfig.put("arena_block_size", Long.toString(s.arenaBlockSizeBytes()));
        Part cache = Part.of("rocksdb-block-cache", String.format(
                "one LRU cache shared by all %d RocksDB instances of the JVM; %s",
                planned.rocksDbInstances(), s.strictCapacityLimit()
                        ? "strict limit: inserts fail rather than overshoot"
                        : "not strict: a full shard overshoots briefly instead of failing reads (kept in headroom)"),
                cacheConfig, List.of(
                        Part.leaf("rocksdb-write-buffers", s.writeBufferManagerBytes(), String.format(
                                "1/%d of the cache: one WriteBufferManager charged to it flushes the largest memtable "
                                        + "when all memtables reach it; memtables of %s, %d per store, arena blocks "
                                        + "of %s so all %d instances' memtables fit in half of it",
                                WRITE_BUFFER_DIVISOR, format(s.writeBufferSizeBytes()), s.maxWriteBufferNumber(),
                                format(s.arenaBlockSizeBytes()), planned.rocksDbInstances()),
                                writeConfig),
                        Part.leaf("rocksdb-index-filter-blocks", indexFilter, String.format(
                                "%.0f%% high-priority pool: index and filter blocks cached, pinned at the top level, "
                                        + "so data blocks cannot evict them", s.highPriorityPoolRatio() * 100),
                                Map.of("block_cache.high_pri_pool_ratio", Double.toString(s.highPriorityPoolRatio()))),
                        Part.leaf("rocksdb-data-blocks", dataBlocks, "the rest of the cache: data blocks of all stores",
                                Map.of())));
        Part overhead = Part.leaf("rocksdb-native-overhead", nativeOverhead, String.format(
                "%d instances x %s that no cache bound catches (table readers, memtable arena slack)",
                planned.rocksDbInstances(), format(ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE)), Map.of());
        return Part.of("rocksdb", String.format("RocksDB of %d instances (%s)", planned.rocksDbInstances(),
                instancesExplained(facts, planned)), Map.of(), List.of(cache, overhead));
    }

    /** How the planned pod's instances add up, and which replica counts it is the busiest of. */
    private static String instancesExplained(WorkloadFacts facts, Topology planned) {
        String text = String.format("%d active + %d standby tasks x %d per task", planned.activeTasksPerPod(),
                planned.standbyTasksPerPod(), facts.stores().rocksDbInstancesPerTask());
        text = facts.globalStores() > 0 ? text + " + " + facts.globalStores() + " global" : text;
        ReplicaRange range = facts.replicaRange();
        return range == null ? text : String.format("%s: the busiest pod at %d to %d replicas, the replica range "
                + "[%d, %d] with one pod of the fewest restarting", text, Math.max(1, range.min() - 1), range.max(),
                range.min(), range.max());
    }

    /** A JVM size flag value: whole MiB as {@code m}, otherwise KiB. Every size here is a whole KiB. */
    static String jvmSize(long bytes) {
        return bytes % MiB == 0 ? bytes / MiB + "m" : bytes / KiB + "k";
    }
}
