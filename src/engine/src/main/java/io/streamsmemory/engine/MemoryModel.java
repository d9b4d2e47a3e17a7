package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.KiB;
import static io.streamsmemory.engine.ByteSize.MiB;

/**
 * Every constant of the allocation formula, with where it comes from. Change a number here and the
 * unit tests that pin the formula say what moved.
 */
public final class MemoryModel {
    private MemoryModel() {}

    // ---- JVM non-heap -------------------------------------------------------------------------

    /** Code cache is 1/16 of the pod, within [48 MiB, 240 MiB]. 240 MiB is the JVM's reserved size with
     *  tiered compilation (and what the Paketo memory calculator assumes); 48 MiB holds C1+C2 code of a
     *  typical streams service, so small pods do not pay for the full reservation. */
    public static final long CODE_CACHE_DIVISOR = 16;

    public static final long CODE_CACHE_MIN_MIB = 48;
    public static final long CODE_CACHE_MAX_MIB = 240;

    /** Metaspace per loaded class and its fixed part (Paketo memory calculator: 5,800 B/class + 14,000,000 B). */
    public static final long METASPACE_BYTES_PER_CLASS = 5_800;

    public static final long METASPACE_FIXED_BYTES = 14_000_000;
    /** A Kafka Streams service with logging, metrics and a web endpoint loads about this many classes: only the default
     *  when the user does not say (a Spring Boot service loads 25,000 and more; {@code spec.jvm.loadedClasses}, the
     *  plan's {@code --loaded-classes}, read from {@code jcmd <pid> VM.metaspace} or the agent's report). */
    public static final int DEFAULT_LOADED_CLASSES = 15_000;
    /** The class counts a policy may state: a Kafka Streams application with nothing else loads a few thousand (the
     *  agent's README shows 6,339); 1,000,000 classes would be a 5.4 GiB metaspace, a typo rather than an application. */
    public static final int MIN_LOADED_CLASSES = 1_000;

    public static final int MAX_LOADED_CLASSES = 1_000_000;

    /** {@code -Xss}: the JVM default on x86-64 Linux, the deepest a thread's stack may grow (set, not changed). */
    public static final long THREAD_STACK_MIB = 1;
    /**
     * What one JVM thread's stack holds resident, the figure budgeted per thread. {@code -Xss} only reserves address
     * space: a stack page is resident once a call has reached it (and stays so), so a pod pays for how deep each
     * thread has been, not for {@code -Xss} (Paketo's calculator budgets the whole reservation: 52 MiB for 52
     * threads, of which this JVM used 3.5). Measured by {@code make bench-memory BUDGETS=512Mi NMT=true}
     * ({@code bench.nmt}: the agent's run with native memory tracking, whose thread-stack "committed" counts the
     * touched pages), on 2026-12-01 on the project's machine, at the end of a 120 s run of the benchmark's 4-thread,
     * 80-instance application: JDK 17, 42 threads, 3,516 KiB resident (83 KiB each); JDK 25, 40 threads, 3,564 KiB
     * (89 KiB each). Three times that, rounded to 256 KiB, for deeper call chains than this application's (the
     * application's own frameworks, exception handling); a thread that goes deeper takes the rest from the headroom.
     */
    public static final long THREAD_STACK_RESIDENT = 256 * KiB;
    /** JVM threads that exist whatever the topology: GC, JIT, admin client, metrics, the application's own. */
    public static final long BASE_JVM_THREADS = 40;
    /** Per stream thread: the stream thread, its producer's sender thread and its consumer's heartbeat thread. */
    public static final long JVM_THREADS_PER_STREAM_THREAD = 3;

    // ---- JVM caps learned from observed use (spec.jvm.sizing: Observed) -------------------------

    /**
     * Margin over the observed metaspace peak: the same quarter the learned class count adds for classes loaded late
     * (a code path first taken after the window, a rebalance's assignor, a JMX client attaching).
     */
    public static final long LEARNED_METASPACE_MARGIN_PERCENT = 25;
    /**
     * Margin over the observed code cache peak. The JIT keeps compiling long after start (tiered recompilation of hot
     * methods at C2), so the window's peak is an undercount for longer: half again, where metaspace has a quarter.
     */
    public static final long LEARNED_CODE_CACHE_MARGIN_PERCENT = 50;
    /** Margin over the observed live threads: a rebalance or a restarted stream thread adds threads for a while. */
    public static final long LEARNED_THREADS_MARGIN_PERCENT = 25;
    /**
     * The lowest learned metaspace cap: a JVM that runs the Kafka clients and Kafka Streams loads about 5,000 classes
     * (about 32 MB of metaspace by the per-class figure above) before the application adds any of its own.
     */
    public static final long LEARNED_METASPACE_MIN_MIB = 32;
    /**
     * The lowest learned code cache: below about 32 MiB HotSpot's tiered compilation (C1 and C2 code, and the
     * non-method code of the interpreter and stubs) fills it and the JVM disables its compiler ("CodeCache is full").
     */
    public static final long LEARNED_CODE_CACHE_MIN_MIB = 32;
    /**
     * Margin over the most resident memory a pod held beyond the bounded parts, for the learned headroom: the same
     * quarter as metaspace. The figure is a peak of reports taken every few seconds, and a compaction's buffers or a
     * rebalance's restore come and go between two of them.
     */
    public static final long LEARNED_HEADROOM_MARGIN_PERCENT = 25;
    /**
     * The lowest learned headroom: half the model's least ({@link #HEADROOM_MIN_MIB}). Learning takes at most half of
     * the model's room away from a small pod, and it keeps room for what no report saw: the allocator's arenas
     * ({@link #MALLOC_ARENA_MAX} of them, each growing in 64 MiB reservations) and a burst between two reports.
     */
    public static final long LEARNED_HEADROOM_MIN_MIB = 64;
    /** A learned cap this full (used / cap, in percent) raises MemoryPressure and the next plan restores the cap. */
    public static final long LEARNED_CAP_PRESSURE_PERCENT = 90;

    /**
     * Margin over the most direct memory a workload's pods were seen to hold, for the direct memory cap planned once
     * they report it: a buffer pool grows in steps (Netty's chunks are 4 to 16 MiB), and a busier hour than the
     * observed one reads more at once. The same quarter as metaspace; a pod that uses
     * {@link #LEARNED_CAP_PRESSURE_PERCENT}% of the learned cap has it lifted.
     */
    public static final long LEARNED_DIRECT_MARGIN_PERCENT = 25;

    /** Direct memory beyond the client read buffers: NIO, TLS and JMX use a little. */
    public static final long DIRECT_MEMORY_BASE = 16 * MiB;
    /** Temporary direct buffers larger than this are freed after each read instead of being cached per thread
     *  (the JDK's {@code jdk.nio.maxCachedBufferSize}; unlimited by default, so each client thread would keep
     *  its largest fetch response off-heap for ever). */
    public static final long MAX_CACHED_DIRECT_BUFFER = 256 * KiB;

    // ---- headroom ----------------------------------------------------------------------------

    /** Kept free of any bound: GC and JIT native structures, malloc fragmentation, blocks RocksDB pins outside its
     *  cache while reading. 10% of what the code cache leaves, at least 128 MiB (Paketo keeps 10%; the design note
     *  started from max(10%, 192 MiB), lowered so 512 MiB pods with few threads stay possible). */
    public static final long HEADROOM_PERCENT = 10;

    public static final long HEADROOM_MIN_MIB = 128;

    /**
     * glibc's {@code MALLOC_ARENA_MAX} the webhook sets in every injected pod that does not set its own, and the one
     * {@code make bench-memory} checks the headroom above with. glibc's default (8 arenas per core) lets each of
     * RocksDB's and the JVM's native threads grow an arena of its own: at 1 GiB ({@code make bench-memory
     * ALL_VARIANTS=true}, 2026-12-02) the RSS none of the bounds explain was 223-262 MiB with the default, 144-159 MiB
     * with 2 arenas, at the same throughput. A string because it is an environment variable's value and the
     * operator's {@code streamsmemory.webhook.malloc-arena-max} default.
     */
    public static final String MALLOC_ARENA_MAX = "2";

    // ---- client buffers (Kafka defaults, the most they are ever given) ------------------------

    /** Producer {@code buffer.memory} default. */
    public static final long PRODUCER_BUFFER_DEFAULT = 32 * MiB;
    /** Producer {@code batch.size} default. */
    public static final long PRODUCER_BATCH_DEFAULT = 16 * KiB;
    /** Consumer {@code fetch.max.bytes} default: the largest response one fetch can hold in the heap. */
    public static final long FETCH_MAX_DEFAULT = 50 * MiB;
    /** Consumer {@code max.partition.fetch.bytes} default. */
    public static final long PARTITION_FETCH_DEFAULT = 1 * MiB;
    /** Consumer {@code receive.buffer.bytes} default: a kernel socket buffer, held in the headroom. */
    public static final long RECEIVE_BUFFER_DEFAULT = 64 * KiB;
    /** Smallest producer buffer and fetch size the engine sets; below this a client stalls rather than saves. */
    public static final long CLIENT_BUFFER_MIN = 1 * MiB;
    /** Share of the pool (what JVM overhead and headroom leave) for client I/O: heap buffers plus the direct
     *  copies the JDK makes of every socket read. */
    public static final long CLIENT_IO_PERCENT = 20;

    // ---- heap shares --------------------------------------------------------------------------

    /**
     * The most KafkaStreams instances one pod is planned for: each gets 1/n of the record cache and its own clients,
     * so beyond a few dozen the shares stop being useful (the agent refuses documents above it too).
     */
    public static final int MAX_INSTANCES_PER_POD = 64;

    /**
     * Record cache: share of the heap left after client buffers (Kafka's default is a flat 10 MiB) that the cache's
     * entries take in the heap, of which Kafka Streams counts 1/{@link #RECORD_CACHE_HEAP_PER_COUNTED_BYTE}.
     */
    public static final double RECORD_CACHE_FRACTION = 0.20;
    /**
     * Heap the record cache's entries take per byte Kafka Streams counts against {@code statestore.cache.max.bytes}.
     * Kafka Streams counts an entry's key, value and record context; not the ~284 B of map and list nodes, wrappers
     * and headers around each entry, nor (in 4.4.0; KAFKA-16505) the source record's raw key and value each entry
     * keeps. Measured with {@code make bench-record-cache} on Kafka Streams 4.4.0 (2026-12-04): 4.38 for a 16-byte
     * count, 2.27 for a 158-byte value, 1.26 for 1 KiB; 6.77, 3.15 and 2.23 with the source record's raw bytes
     * (150 B, 150 B, 1 KiB). 4 prices aggregates of small values, the common case; larger values are overpriced,
     * which costs a smaller cache, never a thrashing heap. Measured at 512 MiB ({@code make bench-throughput
     * CANDIDATES=true}): the plan's 25.6 MiB cache by Kafka's count held most of a 150 MiB heap that then spent half
     * its run in full collections (5,574 records/s); a cache of a quarter of that ran at 10,063 with 17.8 s of GC.
     */
    public static final long RECORD_CACHE_HEAP_PER_COUNTED_BYTE = 4;
    /**
     * The most record cache the model plans for one stream thread, by Kafka Streams' count, unless the user forces the
     * record cache's share ({@code spec.overrides.recordCacheFraction}); never less than Kafka's own default
     * ({@link #RECORD_CACHE_DEFAULT}) for an instance. The cache saves a RocksDB write and a downstream record only for
     * a key updated again before the next commit, and its entries are long-lived heap objects the collector copies and
     * scans. At 4 GiB the plan with the model's 20% uncapped (an 81.6 MiB cache for 4 threads) ran at 0.688 of the rate
     * of the plan with this cap (16 MiB), its GC pauses 15% of the run against 6.8% ({@code make bench-throughput
     * BUDGETS=4Gi CANDIDATES=true}, {@code agent+record-cache-20}, medians of three repeats, 2026-12-07). For 4 stream
     * threads the cap binds from about 1 GiB up.
     */
    public static final long RECORD_CACHE_MAX_PER_THREAD = 4 * MiB;
    /** Input buffers get at most 1/6 of what record cache and clients leave, so the application keeps at least half. */
    public static final long INPUT_BUFFER_DIVISOR = 6;
    /** {@code buffered.records.per.partition} default, the most the engine sets. */
    public static final long BUFFERED_RECORDS_DEFAULT = 1000;
    /** Fewer buffered records per partition than this starve the stream thread between fetches. */
    public static final long BUFFERED_RECORDS_MIN = 10;
    /** Assumed in-memory size of one deserialized buffered record when the user does not say. */
    public static final long DEFAULT_RECORD_BYTES = KiB;
    /** The JVM heap never drops below this. */
    public static final long HEAP_MIN_MIB = 64;

    // ---- RocksDB ------------------------------------------------------------------------------

    /** Live segments of a window or session store (segment interval = retention / 2, so ~3 are open). */
    public static final int SEGMENTS_PER_SEGMENTED_STORE = 3;
    /** Share of the pool for RocksDB when the topology has persistent stores (design note: ~0.4). */
    public static final double ROCKSDB_FRACTION = 0.40;
    /**
     * Native memory of one RocksDB instance that no cache bound catches: DB and column-family structures, table
     * readers, memtable arena slack, the instance's info log. Measured, not estimated, by {@code make
     * bench-rocksdb-overhead} ({@code RocksDbOverheadBenchmark} in the agent's tests): for each instance count a fresh
     * JVM opens that many RocksDB 10.1.3 instances configured as Kafka Streams' RocksDBStore configures them and bounded
     * as the agent bounds them (one shared LRU cache, a WriteBufferManager charged to it, 1 MiB memtables, 64 KiB arena
     * blocks), writes 2,000 keys of 100 B to each and flushes them to an SST file, writes 500 more into the memtable
     * and reads keys back. The growth of RSS that neither the JVM's own committed memory (native memory tracking) nor
     * the shared cache's usage (blocks, and the memtables charged to it) explains, median of 3 JVMs per count, measured
     * on 2026-11-30 on the project's 2-core machine:
     * <pre>
     * instances   unexplained (B), 1 SST file each   3 SST files each (FLUSHES=3)
     *         8        11,472,416                        11,965,408
     *        16        13,976,928                        14,577,056
     *        32        19,482,712                        20,791,272
     *        64        27,556,280                        30,899,608
     *       128        47,266,888                        50,215,928
     * </pre>
     * Least-squares lines: 9,301,246 B + 295,359 B per instance (R² 0.9988) with one SST file, 9,916,903 B +
     * 318,003 B per instance (R² 0.9985) with three. The intercept does not grow with the instances (the shared
     * environment's threads and their allocator arenas: headroom). The larger slope, 311 KiB, rounded up to the next
     * 64 KiB: 320 KiB (it was a 512 KiB estimate before). With the 8 KiB arena blocks the engine plans at 512 MiB
     * ({@code make bench-rocksdb-overhead ARENA=8192}, 2026-12-01): 8,733,099 B + 301,994 B per instance (R² 0.9975),
     * so the arena block does not move the figure. Both were measured while the agent still partitioned index and
     * filters; with whole-file index and filters, as the agent leaves them since 2026-12-02 ({@code make
     * bench-rocksdb-overhead}, 2026-12-02): 8,357,918 B + 306,772 B per instance (R² 0.9965), under the constant
     * as well. Instances with many more SST files hold more table readers (their index and filter blocks are in the
     * cache, the reader objects are not); {@code make bench-memory} checks the whole pod.
     */
    public static final long ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE = 320 * KiB;
    /** The shared block cache never drops below this: with 64 shards each gets 256 KiB. */
    public static final long BLOCK_CACHE_MIN = 16 * MiB;
    /** Write buffers charged to the cache: a third of its capacity (Kafka docs' bounded-memory example). */
    public static final long WRITE_BUFFER_DIVISOR = 3;
    /** Share of the cache kept for index and filter blocks (high-priority pool). Pass it explicitly: the
     *  one-argument {@code LRUCache(capacity)} uses 0.0 in Java. */
    public static final double HIGH_PRIORITY_POOL_RATIO = 0.10;
    /** {@code write_buffer_size}: a quarter of the write buffer budget, at most RocksDB's default 16 MiB. */
    public static final long MEMTABLES_PER_BUDGET = 4;

    public static final long WRITE_BUFFER_SIZE_MAX = 16 * MiB;
    public static final long WRITE_BUFFER_SIZE_MIN = 1 * MiB;
    /**
     * {@code arena_block_size}: every memtable that holds data is charged at least one arena block to the
     * WriteBufferManager, and the manager flushes whichever memtable the next write touches for as long as it is
     * full and half of it is still in memtables taking writes. If the memtables' blocks alone fill that half, it
     * never stops: the agent at 512 MiB (80 instances, a 20 MiB manager, 64 KiB blocks; bench-memory's application,
     * 40 s runs with RocksDB's LOG turned on by a throwaway patch) logged
     * 1,300 flushes a second of memtables averaging under 1 KiB and 1,200 "Stopping writes" a second for the first
     * 25 s, at 3,000-7,000 records/s. The block is sized so one block for each memtable
     * of every column family of every instance ({@link #MEMTABLE_COLUMN_FAMILIES} x {@link #MAX_WRITE_BUFFER_NUMBER})
     * fits in 1/{@link #ARENA_BLOCKS_DIVISOR} of the budget, in 4 KiB steps, within [4 KiB, RocksDB's default of
     * min(1 MiB, write_buffer_size/8)]. In such runs, 16 KiB blocks flushed 30-60 memtables of ~200 KiB a
     * second at 30,893 records/s, 20 KiB blocks still stormed for 4 s, and 8 KiB (this rule's) dipped for 2-4 s in
     * each of three. Not proven in full: a make bench-memory run of this rule stalled at 512 MiB for 24 s, cause unknown.
     */
    public static final long ARENA_BLOCK_MIN = 4 * KiB;

    /** One arena block per planned memtable takes at most this part of the WriteBufferManager's budget. */
    public static final long ARENA_BLOCKS_DIVISOR = 4;

    public static final long ARENA_BLOCK_MAX = 1 * MiB;
    public static final long ARENA_BLOCK_STEP = 4 * KiB;
    /**
     * Column families of one Kafka Streams store, each with memtables of its own: a timestamped store writes its
     * {@code keyValueWithTimestamp} family and keeps the {@code default} one, and Kafka Streams 4 commits each
     * store's changelog offsets to an {@code offsets} family of the same instance (seen in RocksDB's LOG).
     */
    public static final int MEMTABLE_COLUMN_FAMILIES = 3;

    /** One active memtable and one being flushed; Kafka Streams' default of 3 only adds memory. */
    public static final int MAX_WRITE_BUFFER_NUMBER = 2;

    /**
     * RocksDB's flush threads (the HIGH-priority pool of the JVM's one RocksDB environment): one per stream thread,
     * at most this many. Kafka Streams' RocksDBStore leaves the pool at one thread for the whole JVM (its
     * {@code setIncreaseParallelism} raises only the compaction threads), and with one WriteBufferManager shared by
     * many instances every stream thread's writes wait on that one thread's queue of flushes: {@code make
     * bench-memory} at 512 MiB (4 stream threads, 80 instances, a 20 MiB manager) showed the four stream threads in
     * {@code RocksDB.put} behind the busy flush thread, at 1,000-2,000 records/s from 6 s to 20-40 s against the
     * defaults' 30,000. A thread per stream thread shortened that stall; the manager flushing near-empty memtables
     * without end, its main cause, is what the arena blocks' rule ({@link #ARENA_BLOCK_MIN}) addresses. At 4 GiB, where flushes
     * are few and large, 4 threads ran 17,382 records/s over 300 s against 16,201 with one. At most four: more flush at
     * once than a pod's few cores can run. A flush thread's stack holds a few
     * pages and its work is the memtable it writes out (already in the manager's budget), so the threads take no
     * part of their own: the 52 threads the stacks part budgets for 4 stream threads cover the 42 the JVM ran.
     */
    public static final int ROCKSDB_FLUSH_THREADS_MAX = 4;

    /**
     * Bloom filters on the last sorted run of every store ({@code optimize_filters_for_hits=false}). Kafka Streams 4.2
     * and later really set {@code optimize_filters_for_hits=true} (apache/kafka PR 19837 fixed a typo that had made the
     * call a no-op): RocksDB then builds no filter for the last run, which holds most keys, so every {@code get} of a
     * key not yet in a store (each first record of a key, in every aggregation) reads and searches a data block, from
     * storage when the cache does not hold it. The filters take about 10 bits a key, charged to the shared cache at
     * high priority with the other filter blocks, so they stay inside the bound. The agent sets it only where the
     * application's own setter left Kafka Streams' value. Measured by {@code make bench-throughput}'s
     * {@code agent+kafka-filters} candidate (docs/benchmarks.md).
     */
    public static final boolean LAST_LEVEL_FILTERS = true;

    // ---- transactional state stores (KIP-892, Kafka Streams 4.4) -----------------------------------

    /**
     * {@code statestore.uncommitted.max.bytes} default (Kafka Streams 4.4 {@code StreamsConfig}): per KafkaStreams
     * instance, divided by Kafka Streams among its stream threads (+1 with a global topology); a thread commits early
     * when its tasks' uncommitted writes pass its share (checked after each processing round, so a round's writes may
     * overshoot it). Only with {@code enable.transactional.statestores=true}.
     */
    public static final long UNCOMMITTED_MAX_BYTES_DEFAULT = 64 * MiB;
    /** Share of what client I/O leaves for the uncommitted writes (all their copies), up to what Kafka's default
     *  would use; a smaller bound only commits earlier. */
    public static final long UNCOMMITTED_PERCENT = 10;
    /** Less than this per stream thread commits after almost every processing round: a budget that small is an error. */
    public static final long UNCOMMITTED_MIN_PER_THREAD = 1 * MiB;
    /**
     * Heap per uncommitted write beyond the key and value bytes Kafka counts: Kafka Streams 4.4's
     * {@code AbstractTransactionBuffer} keeps every write in a {@code TreeMap<Bytes, Optional<byte[]>>} until the
     * commit: a TreeMap.Entry (40 B), an Optional (16 B), a Bytes (24 B) and two array headers (2 x 16 B), with
     * compressed oops on 64-bit HotSpot.
     */
    public static final long UNCOMMITTED_ENTRY_HEAP_OVERHEAD = 112;
    /**
     * Native memory per uncommitted byte: the RocksDB store's {@code RocksDBTransactionBuffer} also stages every write
     * in a {@code WriteBatch} (native, outside the block cache and the WriteBufferManager until the commit writes it to
     * the memtables). Its buffer is a std::string that doubles as it grows, so up to twice the bytes it holds.
     */
    public static final long UNCOMMITTED_NATIVE_FACTOR = 2;
    /** WriteBatch bytes per write beyond key and value: a type tag, the column family and two varint lengths. */
    public static final long UNCOMMITTED_ENTRY_NATIVE_OVERHEAD = 12;

    // ---- Kafka Streams defaults, for the baseline -----------------------------------------------

    /** {@code statestore.cache.max.bytes} default. */
    public static final long RECORD_CACHE_DEFAULT = 10 * MiB;
    /** Kafka Streams' RocksDBStore: private 50 MiB LRU block cache per instance. */
    public static final long ROCKSDB_BLOCK_CACHE_DEFAULT = 50 * MiB;
    /** Kafka Streams' RocksDBStore: 16 MiB write buffers, 3 of them. */
    public static final long ROCKSDB_WRITE_BUFFER_DEFAULT = 16 * MiB;

    public static final int ROCKSDB_MAX_WRITE_BUFFERS_DEFAULT = 3;
    /** JVM default heap in a container: {@code MaxRAMPercentage=25}. */
    public static final long JVM_DEFAULT_HEAP_PERCENT = 25;
}
