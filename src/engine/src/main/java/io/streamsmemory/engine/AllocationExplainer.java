package io.streamsmemory.engine;

import static io.streamsmemory.engine.AllocationEngine.jvmSize;
import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.engine.MemoryModel.*;

import io.streamsmemory.protocol.AllocationFormat;
import io.streamsmemory.protocol.RocksDbSettings;
import io.streamsmemory.protocol.StreamsConfigKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The explaining step: turns a {@link Sizing} (every floor held) into the {@link Allocation}, each number a
 * {@link Part} with the reason for its size and the settings it becomes. It sizes nothing itself, so the explained
 * parts are exactly the sized numbers. Methods follow the step table of docs/model.md.
 */
final class AllocationExplainer {
    private AllocationExplainer() {}

    static Allocation explain(Sizing s) {
        WorkloadFacts facts = s.facts();
        // Insertion order is the published document's order: producer, consumers, record cache, input buffers,
        // uncommitted writes (heapPart adds them in that order).
        Map<String, String> streamsConfig = new LinkedHashMap<>();
        Part metaspace = metaspacePart(s);
        Part direct = directMemoryPart(s);
        List<Part> parts = new ArrayList<>();
        parts.add(codeCachePart(s));
        if (facts.capped(JvmCap.METASPACE)) {
            parts.add(metaspace);
        }
        parts.add(threadStacksPart(s));
        if (facts.capped(JvmCap.DIRECT_MEMORY)) {
            parts.add(direct);
        }
        parts.add(headroomPart(s, metaspace, direct));
        parts.add(heapPart(s, streamsConfig));
        parts.add(rocksDbPart(s));
        if (s.uncommitted().on()) {
            parts.add(s.uncommitted().nativePart());
        }
        List<String> jvmOptions = jvmOptions(s);
        // Kafka's defaults for the pod as it runs now: the baseline explains today's risk and is never applied.
        DefaultsBaseline baseline =
                DefaultsBaseline.of(facts, s.topology(), s.jvm().metaspaceMiB() * MiB);
        String hash = AllocationHash.of(jvmOptions, streamsConfig, s.rocksDb());
        String restartHash = AllocationHash.restart(jvmOptions, s.rocksDb());
        return new Allocation(
                facts.memoryBytes(),
                facts,
                s.topology(),
                s.planned(),
                List.copyOf(parts),
                jvmOptions,
                java.util.Collections.unmodifiableMap(streamsConfig),
                s.rocksDb(),
                baseline,
                hash,
                restartHash);
    }

    /** The JVM flags, without those of the caps the facts leave unset ({@link WorkloadFacts#uncappedJvmCaps()}). */
    private static List<String> jvmOptions(Sizing s) {
        String heap = jvmSize(s.split().heapBytes());
        List<String> options = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap));
        if (s.facts().capped(JvmCap.METASPACE)) {
            options.add(JvmCap.METASPACE.flag() + "=" + s.jvm().metaspaceMiB() + "m");
        }
        options.add("-XX:ReservedCodeCacheSize=" + s.jvm().codeCacheMiB() + "m");
        if (s.facts().capped(JvmCap.DIRECT_MEMORY)) {
            options.add(JvmCap.DIRECT_MEMORY.flag() + "=" + jvmSize(s.directMemoryBytes()));
        }
        options.add("-Xss" + THREAD_STACK_MIB + "m");
        options.add("-Djdk.nio.maxCachedBufferSize=" + MAX_CACHED_DIRECT_BUFFER);
        return List.copyOf(options);
    }

    /** 1. Code cache. */
    private static Part codeCachePart(Sizing s) {
        long codeCache = s.jvm().codeCacheMiB();
        return Part.leaf(
                "jvm-code-cache",
                codeCache * MiB,
                s.jvm().learned() == null
                        ? String.format(
                                "1/%d of the pod within [%d, %d] MiB: JIT-compiled code",
                                CODE_CACHE_DIVISOR, CODE_CACHE_MIN_MIB, CODE_CACHE_MAX_MIB)
                        : learned(
                                "code cache",
                                s.facts().observedJvm().codeCacheBytes(),
                                LEARNED_CODE_CACHE_MARGIN_PERCENT,
                                LEARNED_CODE_CACHE_MIN_MIB,
                                s.jvm().learned().codeCacheMiB()),
                Map.of("-XX:ReservedCodeCacheSize", codeCache + "m"));
    }

    /**
     * 2. Headroom, which also holds the sub-MiB rest of the pod and what a fixed heap leaves unused (step 5); and, for
     * each cap the facts leave unset, the room step 3 sized for it, which no flag bounds until the pods report.
     */
    private static Part headroomPart(Sizing s, Part metaspace, Part direct) {
        long spare = s.split().spareHeadroomMiB();
        Part margin = Part.leaf(
                "headroom",
                (s.jvm().headroomMiB() + spare) * MiB + s.facts().memoryBytes() % MiB,
                headroomReason(s) + (spare > 0 ? "; holds what the fixed heap leaves unused" : ""),
                Map.of());
        List<Part> uncapped = new ArrayList<>();
        if (!s.facts().capped(JvmCap.METASPACE)) {
            uncapped.add(metaspace);
        }
        if (!s.facts().capped(JvmCap.DIRECT_MEMORY)) {
            uncapped.add(direct);
        }
        if (uncapped.isEmpty()) {
            return margin;
        }
        List<Part> parts =
                new ArrayList<>(List.of(Part.leaf("headroom-margin", margin.bytes(), margin.reason(), Map.of())));
        parts.addAll(uncapped);
        return Part.of(
                "headroom",
                "unbounded: the margin, and the room of the JVM caps this plan leaves unset ("
                        + String.join(
                                ", ",
                                s.facts().uncappedJvmCaps().stream()
                                        .map(JvmCap::flag)
                                        .toList())
                        + ")",
                Map.of(),
                parts);
    }

    private static String headroomReason(Sizing s) {
        String model = String.format(
                "%d%% of the pod after code cache, at least %d MiB, left unbounded for GC and JIT structures, malloc "
                        + "fragmentation and blocks RocksDB pins while reading",
                HEADROOM_PERCENT, HEADROOM_MIN_MIB);
        Sizing.DeclaredCaps declared = s.jvm().learned();
        if (declared == null || s.jvm().headroomMiB() >= declared.headroomMiB()) {
            return model;
        }
        return String.format(
                "learned: the most resident memory a pod held beyond the bounded parts, %s, + %d%%, within [%d MiB, "
                        + "the model's %d MiB (%s)]; what it frees joins the pool (RocksDB's share of it as write "
                        + "buffers), and a pod using %d%% of it restores the model's",
                format(s.facts().observedJvm().headroomBytes()),
                LEARNED_HEADROOM_MARGIN_PERCENT,
                LEARNED_HEADROOM_MIN_MIB,
                declared.headroomMiB(),
                model,
                LEARNED_CAP_PRESSURE_PERCENT);
    }

    /**
     * A part whose cap the facts leave unset: the same room, no flag, and why. The JVM's own default applies (no
     * metaspace limit; direct memory up to the heap's size), so a JVM that needs more than the model's guess runs.
     */
    private static Part uncapped(Part capped, JvmCap cap) {
        return Part.leaf(
                capped.name(),
                capped.bytes(),
                "not capped (no " + cap.flag() + "): the room of " + capped.reason()
                        + ", held as headroom while the facts leave the cap unset",
                Map.of());
    }

    /** 3. Metaspace. */
    private static Part metaspacePart(Sizing s) {
        Part part = cappedMetaspacePart(s);
        return s.facts().capped(JvmCap.METASPACE) ? part : uncapped(part, JvmCap.METASPACE);
    }

    private static Part cappedMetaspacePart(Sizing s) {
        long metaspace = s.jvm().metaspaceMiB();
        return Part.leaf(
                AllocationFormat.METASPACE_PART,
                metaspace * MiB,
                s.jvm().learned() == null
                        ? String.format(
                                "%,d loaded classes x %,d B + %s (Paketo memory calculator)",
                                s.facts().loadedClasses(), METASPACE_BYTES_PER_CLASS, format(METASPACE_FIXED_BYTES))
                        : learned(
                                "metaspace",
                                s.facts().observedJvm().metaspaceBytes(),
                                LEARNED_METASPACE_MARGIN_PERCENT,
                                LEARNED_METASPACE_MIN_MIB,
                                s.jvm().learned().metaspaceMiB()),
                Map.of("-XX:MaxMetaspaceSize", metaspace + "m"));
    }

    /** Why a cap learned from observed use has its size ({@code spec.jvm.sizing: Observed}). */
    private static String learned(String cap, long peakBytes, long marginPercent, long floorMiB, long declaredMiB) {
        return String.format(
                "learned: the observed %s peak %s + %d%%, within [%d MiB, the model's %d MiB]; what it frees joins the "
                        + "pool (RocksDB's share of it as write buffers), and a pod using %d%% of it restores the model's",
                cap, format(peakBytes), marginPercent, floorMiB, declaredMiB, LEARNED_CAP_PRESSURE_PERCENT);
    }

    /** 3. Thread stacks. */
    private static Part threadStacksPart(Sizing s) {
        if (s.jvm().learned() != null) {
            long threads = s.facts().observedJvm().threads();
            return Part.leaf(
                    "jvm-thread-stacks",
                    s.jvm().stacksMiB() * MiB,
                    String.format(
                            "learned: the observed peak of %d live threads + %d%% x %s of stack resident, at most the "
                                    + "model's %d MiB",
                            threads,
                            LEARNED_THREADS_MARGIN_PERCENT,
                            format(THREAD_STACK_RESIDENT),
                            s.jvm().learned().stacksMiB()),
                    Map.of("-Xss", THREAD_STACK_MIB + "m"));
        }
        return Part.leaf(
                "jvm-thread-stacks",
                s.jvm().stacksMiB() * MiB,
                String.format(
                        "%d JVM threads (%d base + %d per stream thread x %d%s) x %s of stack resident "
                                + "(measured: a thread touches ~90 KiB of the %d MiB -Xss reserves)",
                        s.topology().jvmThreads(),
                        BASE_JVM_THREADS,
                        JVM_THREADS_PER_STREAM_THREAD,
                        s.facts().streamThreadsPerPod(),
                        s.facts().globalStores() > 0 ? " + global threads" : "",
                        format(THREAD_STACK_RESIDENT),
                        THREAD_STACK_MIB),
                Map.of("-Xss", THREAD_STACK_MIB + "m"));
    }

    /** 3 and 4. Direct memory: the application's own (step 3) and the clients' read copies (step 4). */
    private static Part directMemoryPart(Sizing s) {
        Part part = cappedDirectMemoryPart(s);
        return s.facts().capped(JvmCap.DIRECT_MEMORY) ? part : uncapped(part, JvmCap.DIRECT_MEMORY);
    }

    private static Part cappedDirectMemoryPart(Sizing s) {
        long extraDirect = s.jvm().extraDirectMiB();
        long directMemory = s.directMemoryBytes();
        return Part.leaf(
                AllocationFormat.DIRECT_MEMORY_PART,
                directMemory,
                String.format(
                        "%s base + %d socket-reading threads x %s: the JDK copies each fetch response through a direct "
                                + "buffer; buffers over %s are not cached per thread%s",
                        format(DIRECT_MEMORY_BASE),
                        s.topology().socketReaders(),
                        format(s.clients().fetchMax()),
                        format(MAX_CACHED_DIRECT_BUFFER),
                        !s.jvm().directLearned()
                                ? extraDirect > 0
                                        ? "; + " + format(extraDirect * MiB) + " the application's own libraries use"
                                        : ""
                                : String.format(
                                        "; + %s learned: the pods' direct memory peak %s + %d%%, less the clients' "
                                                + "read copies, and a pod using %d%% of the cap has it lifted",
                                        format(extraDirect * MiB),
                                        format(s.facts().observedDirectMemoryBytes()),
                                        LEARNED_DIRECT_MARGIN_PERCENT,
                                        LEARNED_CAP_PRESSURE_PERCENT)),
                Map.of(
                        "-XX:MaxDirectMemorySize",
                        jvmSize(directMemory),
                        "-Djdk.nio.maxCachedBufferSize",
                        Long.toString(MAX_CACHED_DIRECT_BUFFER)));
    }

    /** 4. The clients' heap buffers; their settings go into {@code streamsConfig}. */
    private static Part clientBuffersPart(Sizing s, Map<String, String> streamsConfig) {
        long producerBuffer = s.clients().producerBuffer();
        long fetchMax = s.clients().fetchMax();
        return Part.of(
                "client-buffers",
                String.format(
                        "%d producers and %d consumers, %s (all clients of a pod share %d%% of the pool with "
                                + "their direct read copies)",
                        s.topology().producers(),
                        s.topology().consumers(),
                        producerBuffer > CLIENT_BUFFER_MIN || fetchMax <= CLIENT_BUFFER_MIN
                                ? String.format(
                                        "each given %.0f%% of Kafka's default buffers",
                                        100.0 * fetchMax / FETCH_MAX_DEFAULT)
                                : String.format(
                                        "producer buffers at their %s floor, fetch buffers given "
                                                + "%.1f%% of Kafka's default",
                                        format(CLIENT_BUFFER_MIN), 100.0 * fetchMax / FETCH_MAX_DEFAULT),
                        CLIENT_IO_PERCENT),
                Map.of(),
                clientParts(s, streamsConfig));
    }

    private static List<Part> clientParts(Sizing s, Map<String, String> streamsConfig) {
        long threads = s.facts().streamThreadsPerPod();
        long producerBuffer = s.clients().producerBuffer();
        long fetchMax = s.clients().fetchMax();
        long partitionFetch = Math.min(PARTITION_FETCH_DEFAULT, fetchMax);
        long batch = Math.min(PRODUCER_BATCH_DEFAULT, producerBuffer);
        Map<String, String> producer = new LinkedHashMap<>();
        producer.put(StreamsConfigKeys.PRODUCER_BUFFER_MEMORY, Long.toString(producerBuffer));
        producer.put(StreamsConfigKeys.PRODUCER_BATCH_SIZE, Long.toString(batch));
        streamsConfig.putAll(producer);
        List<Part> parts = new ArrayList<>();
        parts.add(Part.leaf(
                "producer-buffers",
                threads * producerBuffer,
                String.format(
                        "%d producers (one per stream thread) x %s buffer.memory", threads, format(producerBuffer)),
                producer));
        String[][] consumers = {
            {"main", "consumer-fetch-buffers", "main consumers (one per stream thread)"},
            {"restore", "restore-consumer-fetch-buffers", "restore consumers (one per stream thread)"},
            {"global", "global-consumer-fetch-buffers", "global consumers (one per KafkaStreams instance)"}
        };
        for (String[] consumer : consumers) {
            long count = consumer[0].equals("global") ? s.topology().consumers() - 2 * threads : threads;
            if (count == 0) {
                continue;
            }
            Map<String, String> config = new LinkedHashMap<>();
            config.put(
                    StreamsConfigKeys.consumer(consumer[0], StreamsConfigKeys.FETCH_MAX_BYTES),
                    Long.toString(fetchMax));
            config.put(
                    StreamsConfigKeys.consumer(consumer[0], StreamsConfigKeys.MAX_PARTITION_FETCH_BYTES),
                    Long.toString(partitionFetch));
            config.put(
                    StreamsConfigKeys.consumer(consumer[0], StreamsConfigKeys.RECEIVE_BUFFER_BYTES),
                    Long.toString(RECEIVE_BUFFER_DEFAULT));
            streamsConfig.putAll(config);
            parts.add(Part.leaf(
                    consumer[1],
                    count * fetchMax,
                    String.format(
                            "%d %s x %s " + StreamsConfigKeys.FETCH_MAX_BYTES
                                    + " (one fetch response held in the heap)",
                            count,
                            consumer[2],
                            format(fetchMax)),
                    config));
        }
        return parts;
    }

    /** 5. The heap: client buffers (4), uncommitted writes (4b) and the data part (7). */
    private static Part heapPart(Sizing s, Map<String, String> streamsConfig) {
        List<Part> heapParts = new ArrayList<>(List.of(
                clientBuffersPart(s, streamsConfig),
                recordCachePart(s, streamsConfig),
                recordCacheOverheadPart(s),
                inputBuffersPart(s, streamsConfig),
                applicationPart(s)));
        if (s.uncommitted().on()) {
            streamsConfig.putAll(s.uncommitted().config());
            heapParts.add(heapParts.size() - 1, s.uncommitted().heapPart(s.facts()));
        }
        long state = s.split().inMemoryStateMiB() * MiB;
        if (state > 0) {
            heapParts.add(
                    heapParts.size() - 1,
                    Part.leaf(
                            "in-memory-state",
                            state,
                            String.format(
                                    "in-memory state stores and suppression buffers: %s of one pod's state held on the "
                                            + "heap (spec.streams.inMemoryState, or the most its pods were seen to "
                                            + "hold), set aside before RocksDB and the rest of the heap share the pool",
                                    format(s.facts().inMemoryStateBytes())),
                            Map.of()));
        }
        String heap = jvmSize(s.split().heapBytes());
        return Part.of(
                AllocationFormat.HEAP_PART,
                String.format(
                        "the JVM heap: client buffers, record cache, input buffers%s%s and the application; -Xms = -Xmx "
                                + "so the heap never grows into memory the other parts own%s",
                        s.uncommitted().on() ? ", uncommitted writes" : "",
                        state > 0 ? ", in-memory state" : "",
                        s.overrides().heapBytes() != null ? " (fixed by the heap override)" : ""),
                Map.of("-Xmx", heap, "-Xms", heap),
                List.copyOf(heapParts));
    }

    /** 6. RocksDB: the shared block cache and the native overhead outside it. */
    private static Part rocksDbPart(Sizing s) {
        if (!s.persistent()) {
            return Part.leaf("rocksdb", 0, "no persistent state stores: nothing for RocksDB", Map.of());
        }
        Topology planned = s.planned();
        Part overhead = Part.leaf(
                "rocksdb-native-overhead",
                s.nativeOverheadBytes(),
                String.format(
                        "%d instances x %s that no cache bound catches (table readers, memtable arena slack)",
                        planned.rocksDbInstances(), format(ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE)),
                Map.of());
        int flushThreads = s.rocksDb().backgroundFlushThreads();
        return Part.of(
                "rocksdb",
                String.format(
                        "RocksDB of %d instances (%s); %d flush thread%s, one per stream thread up to %d (Kafka Streams "
                                + "leaves one for the JVM, and writes wait on it when many stores share the manager)%s%s",
                        planned.rocksDbInstances(),
                        Sizing.instancesExplained(s.facts(), planned),
                        flushThreads,
                        flushThreads == 1 ? "" : "s",
                        ROCKSDB_FLUSH_THREADS_MAX,
                        s.rocksDb().lastLevelFilters()
                                ? "; Bloom filters on the last sorted run too (Kafka Streams 4.2+ drops them, and a "
                                        + "lookup of a new key then reads a data block), unless the application's "
                                        + "setter chose"
                                : "",
                        tuned(s)
                                + (s.split().applicationCacheReleasedMiB() > 0
                                        ? String.format(
                                                "; with the %d MiB of heap the application's own smaller record cache "
                                                        + "does not take",
                                                s.split().applicationCacheReleasedMiB())
                                        : "")),
                s.rocksDb().lastLevelFilters()
                        ? Map.of(
                                "env.background_threads.high",
                                Integer.toString(flushThreads),
                                "optimize_filters_for_hits",
                                "false")
                        : Map.of("env.background_threads.high", Integer.toString(flushThreads)),
                List.of(blockCachePart(s), overhead));
    }

    private static Part blockCachePart(Sizing s) {
        RocksDbSettings r = s.rocksDb();
        long capacity = r.blockCacheCapacityBytes();
        long indexFilter = (long) Math.floor(capacity * r.highPriorityPoolRatio());
        long dataBlocks = capacity - r.writeBufferManagerBytes() - indexFilter;
        Map<String, String> cacheConfig = new LinkedHashMap<>();
        cacheConfig.put("block_cache.capacity", Long.toString(capacity));
        cacheConfig.put("block_cache.strict_capacity_limit", Boolean.toString(r.strictCapacityLimit()));
        Map<String, String> writeConfig = new LinkedHashMap<>();
        writeConfig.put("write_buffer_manager.buffer_size", Long.toString(r.writeBufferManagerBytes()));
        writeConfig.put("write_buffer_size", Long.toString(r.writeBufferSizeBytes()));
        writeConfig.put("max_write_buffer_number", Integer.toString(r.maxWriteBufferNumber()));
        writeConfig.put("arena_block_size", Long.toString(r.arenaBlockSizeBytes()));
        long instances = s.planned().rocksDbInstances();
        return Part.of(
                "rocksdb-block-cache",
                String.format(
                        "one LRU cache shared by all %d RocksDB instances of the JVM; %s",
                        instances,
                        r.strictCapacityLimit()
                                ? "strict limit: inserts fail rather than overshoot"
                                : "not strict: a full shard overshoots briefly instead of failing reads (kept in headroom)"),
                cacheConfig,
                List.of(
                        Part.leaf(
                                "rocksdb-write-buffers",
                                r.writeBufferManagerBytes(),
                                String.format(
                                        "%s of the cache%s: one WriteBufferManager charged to it; while it is full, a write "
                                                + "flushes its own store's memtable; memtables of %s, %d per store, arena blocks "
                                                + "of %s so a block for each memtable of all %d instances' %d column families fits in 1/%d of it",
                                        writeBufferShare(s),
                                        s.split().learnedWriteBuffersMiB() > 0
                                                ? String.format(
                                                        " RocksDB had with the model's JVM caps, + the %d MiB the "
                                                                + "learned caps gave RocksDB less the high-priority "
                                                                + "pool's share of it",
                                                        s.split().learnedWriteBuffersMiB())
                                                : "",
                                        format(r.writeBufferSizeBytes()),
                                        r.maxWriteBufferNumber(),
                                        format(r.arenaBlockSizeBytes()),
                                        instances,
                                        MEMTABLE_COLUMN_FAMILIES,
                                        ARENA_BLOCKS_DIVISOR),
                                writeConfig),
                        Part.leaf(
                                "rocksdb-index-filter-blocks",
                                indexFilter,
                                String.format(
                                        "%.0f%% high-priority pool: index and filter blocks cached, pinned at the top level, "
                                                + "so data blocks cannot evict them",
                                        r.highPriorityPoolRatio() * 100),
                                Map.of("block_cache.high_pri_pool_ratio", Double.toString(r.highPriorityPoolRatio()))),
                        Part.leaf(
                                "rocksdb-data-blocks",
                                dataBlocks,
                                "the rest of the cache: data blocks of all stores",
                                Map.of())));
    }

    /** The memtables' share of the cache as the model, the user or the tuning set it. */
    private static String writeBufferShare(Sizing s) {
        Double fraction = Sizing.writeBufferFraction(s.facts(), s.overrides());
        if (fraction == null) {
            return "1/" + WRITE_BUFFER_DIVISOR;
        }
        return String.format(
                "%.1f%%%s",
                fraction * 100, s.overrides().writeBufferFraction() != null ? " (the override)" : " (tuned)");
    }

    /** Why the split is not the model's, when the operator tuned it from the pods' reports. */
    private static String tuned(Sizing s) {
        TunedSplit tuned = s.facts().tunedSplit();
        return tuned == null ? "" : "; the split tuned from the pods' reports: " + tuned.reason();
    }

    /** 7. Record cache, one key per KafkaStreams instance. */
    private static Part recordCachePart(Sizing s, Map<String, String> streamsConfig) {
        WorkloadFacts facts = s.facts();
        Sizing.HeapShares shares = s.heapShares();
        String key = KafkaStreamsVersion.parse(facts.kafkaStreamsVersion()).recordCacheKey();
        Map<String, String> config = Map.of(key, Long.toString(shares.recordCachePerInstance()));
        streamsConfig.putAll(config);
        return Part.leaf("record-cache", shares.recordCache(), recordCacheReason(s), config);
    }

    /** Why the record cache has its size: no stores, the application's own, the cap, or the model's share. */
    private static String recordCacheReason(Sizing s) {
        WorkloadFacts facts = s.facts();
        Sizing.HeapShares shares = s.heapShares();
        long instances = facts.instancesPerPod();
        if (!Sizing.hasStores(facts)) {
            return "no state stores: the record cache would hold nothing";
        }
        if (s.split().applicationCacheReleasedMiB() > 0) {
            return String.format(
                    "the application's own %s per instance, which the agent keeps: the %d MiB of heap the plan's "
                            + "would have taken beyond it went to RocksDB",
                    format(shares.recordCachePerInstance()), s.split().applicationCacheReleasedMiB());
        }
        if (shares.capped()) {
            return String.format(
                    "capped at %s per stream thread (at least Kafka's %s per instance): a larger cache saves writes "
                            + "only for keys updated again within a commit interval, and its entries cost the "
                            + "collector (measured at 4 GiB); %s for each of %d instance(s), split over %d stream "
                            + "threads (spec.streams.recordCache: 0 turns it off, faster where keys are rarely "
                            + "updated twice within a commit, but every update of a table then goes downstream)",
                    format(RECORD_CACHE_MAX_PER_THREAD),
                    format(RECORD_CACHE_DEFAULT),
                    format(shares.recordCachePerInstance()),
                    instances,
                    facts.streamThreads());
        }
        return instances == 1
                ? String.format(
                        "what Kafka Streams counts of the %.0f%% of the heap after client buffers its entries take "
                                + "(1/%d); it splits it over the %d stream threads (%s each)",
                        shares.cacheFraction() * 100,
                        RECORD_CACHE_HEAP_PER_COUNTED_BYTE,
                        facts.streamThreads(),
                        format(shares.recordCache() / facts.streamThreads()))
                : String.format(
                        "what Kafka Streams counts of the %.0f%% of the heap after client buffers its entries take "
                                + "(1/%d), divided among %d KafkaStreams instances (%s each, which Kafka Streams "
                                + "splits over its %d stream threads)",
                        shares.cacheFraction() * 100,
                        RECORD_CACHE_HEAP_PER_COUNTED_BYTE,
                        instances,
                        format(shares.recordCachePerInstance()),
                        facts.streamThreads());
    }

    /** 7. What the record cache's entries take in the heap beyond what Kafka Streams counts. */
    private static Part recordCacheOverheadPart(Sizing s) {
        if (!Sizing.hasStores(s.facts())) {
            return Part.leaf("record-cache-overhead", 0, "no state stores: no record cache entries", Map.of());
        }
        return Part.leaf(
                "record-cache-overhead",
                s.heapShares().recordCacheOverhead(),
                String.format(
                        "what the record cache's entries take in the heap beyond Kafka Streams' count (%dx it in "
                                + "all): the map and list nodes, wrappers and headers around each entry and, in "
                                + "Kafka Streams 4.x, the source record each keeps (measured: make bench-record-cache)",
                        RECORD_CACHE_HEAP_PER_COUNTED_BYTE),
                Map.of());
    }

    /** 7. Input buffers. */
    private static Part inputBuffersPart(Sizing s, Map<String, String> streamsConfig) {
        long bufferedRecords = s.heapShares().bufferedRecords();
        Map<String, String> config =
                Map.of(StreamsConfigKeys.BUFFERED_RECORDS_PER_PARTITION, Long.toString(bufferedRecords));
        streamsConfig.putAll(config);
        return Part.leaf(
                "input-buffers",
                s.heapShares().inputBuffers(),
                String.format(
                        "1/%d of the heap left after the record cache, up to Kafka's default: %d records x %d partitions x %s "
                                + "per record%s",
                        INPUT_BUFFER_DIVISOR,
                        bufferedRecords,
                        s.topology().activeTasksPerPod(),
                        format(s.facts().recordBytes()),
                        bufferedRecords == BUFFERED_RECORDS_DEFAULT ? " (Kafka's default count fits)" : ""),
                config);
    }

    /** 7. Application: the rest of the heap. */
    private static Part applicationPart(Sizing s) {
        return Part.leaf(
                "application",
                s.heapShares().application(),
                "the application's own objects: at least half of what the client buffers leave in the heap",
                Map.of());
    }
}
