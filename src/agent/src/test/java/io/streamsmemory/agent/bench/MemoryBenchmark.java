package io.streamsmemory.agent.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamsmemory.agent.it.KafkaBroker;
import io.streamsmemory.agent.report.LocalHttp;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.Overrides;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code make bench-memory}: one state-heavy Kafka Streams application (two key-value stores and a windowed store
 * per task; at 4 stream threads and 16 partitions about 80 RocksDB instances) run against a real broker under each
 * memory budget, three ways: Kafka's defaults with -Xmx set to the engine's heap, the hand-written bound from Kafka's
 * memory-management docs, and the agent as the webhook injects it (its JVM flags and glibc's MALLOC_ARENA_MAX=2;
 * with {@code bench.allVariants=true} also the agent on glibc's default arenas and on jemalloc, when installed; with
 * {@code bench.rocksDbVariants=true} also the agent with 4x its write buffers or 4x its data blocks in the cache, past
 * the budget by design, to show what its throughput gap costs in RocksDB memory).
 * Each run lasts until its RSS has stopped rising (or, for the unbounded variants, has passed the budget), samples
 * the JVM's RSS from /proc and its throughput, and each budget ends with a table, a CSV, a PNG plot and its
 * {@code summary:} line. As root, each run lives in a memory cgroup limited to the budget ({@link MemoryCgroup}):
 * past it the kernel kills the run, as in a pod, and the budget is the kernel's to enforce, not the RSS samples'.
 * Every run writes its GC log, and a run that stalls gets thread dumps while it lasts ({@link StallWatch}).
 * <p>Where the application does not fit a budget, it is sized down for it (fewer stream threads, then fewer stores),
 * and the summary says so. The input is produced once, large enough to fill the largest budget's planned caches.
 * <p>System properties: bench.budgets (default 512Mi,1Gi,4Gi), bench.minSeconds (measured seconds before a plateau
 * counts, default 120), bench.plateauSeconds (the window in which RSS must not rise by more than 1%, default 60),
 * bench.maxSeconds (default 300 per GiB of budget, at least 300: 1,200 at 4 GiB), bench.records (input records,
 * default 12,000,000), bench.out, bench.agentJar, bench.loadedClasses (the policy's spec.jvm.loadedClasses the plan
 * is made with, default {@value #LOADED_CLASSES}),
 * bench.nmt (true: the agent variant runs with native memory tracking and prints what its thread stacks hold at the
 * end, the figure behind {@code MemoryModel.THREAD_STACK_RESIDENT}; NMT costs memory, so not for the headline runs),
 * bench.cgroup (default true; false: no memory cgroup, as where the machine allows none),
 * bench.variants (the variants to run, by name, comma-separated, default all: default, docs-bounded, agent, learned
 * and those the two flags above add; learned-kafka-cache, the learned plan with the application setting Kafka's
 * default record cache, runs only when named, with learned), bench.learnSeconds (the learning run's limit, default 120, at most the run's),
 * bench.learnSettleSeconds (how long the learning JVM runs before its reports count towards the learned headroom,
 * default 60).
 * <p>The {@code learned} variant (issue 32): before a budget's repeats, a learning run (the agent on the declared
 * plan, as the {@code agent} variant) polls the agent's {@code /report} every {@value #REPORT_POLL_SECONDS} s and keeps
 * each figure's peak ({@link ObservedPeaks}); the engine then plans as the operator does with
 * {@code spec.jvm.sizing: Observed} and a learned topology, and {@code learned} runs the agent on that plan in every
 * repeat. Its own {@code summary: variant=learned} line follows the budget's summary line.
 */
public final class MemoryBenchmark {
    private static final int MAX_THREADS = 4;
    /**
     * How long the learning run's JVM runs before its reports count towards the learned headroom: the operator's
     * {@code streamsmemory.observe.settle} (10 minutes) would outlast the run, so 60 s by default, once the memtables
     * have filled and flushes and compactions run ({@code bench.learnSettleSeconds}).
     */
    private static final long LEARN_SETTLE_MILLIS = Long.getLong("bench.learnSettleSeconds", 60) * 1000;
    /**
     * The class count the plan is made with: what a user following the policy's recommendation declares for this
     * application (it loads about 6,200 classes; the operator suggests 25% more, in thousands). The policy's default,
     * 15,000, holds back ~40 MiB of metaspace this application never uses: {@code bench.loadedClasses=15000}.
     */
    private static final int LOADED_CLASSES = 8_000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
    /** The agent report's figures printed after an agent run: where its RSS went. */
    private static final List<String> REPORTED = List.of(
            "rssBytes",
            "heapCommittedBytes",
            "heapUsedBytes",
            "metaspaceUsedBytes",
            "codeCacheUsedBytes",
            "directUsedBytes",
            "blockCacheUsageBytes",
            "unexplainedBytes");
    /** With {@code bench.nmt}, the agent run's flag: the run then ends with its thread stacks read by jcmd. */
    private static final String NATIVE_MEMORY_TRACKING = "-XX:NativeMemoryTracking=summary";
    /** Within this share of its earlier peak, RSS counts as no longer rising. */
    private static final double PLATEAU_GROWTH = 0.01;
    /** How often the learning run reads the agent's report. */
    private static final int REPORT_POLL_SECONDS = 5;
    /** The variant on the learned plan; the names a run can select with bench.variants follow. */
    private static final String LEARNED = "learned";
    /**
     * Diagnostic, only when bench.variants names it: the learned plan with the application setting the record cache
     * to Kafka's default (10 MiB), which the agent keeps (the smaller of the two), to tell the record cache's share of
     * the learned plan's GC time from the rest.
     */
    private static final String LEARNED_KAFKA_CACHE = "learned-kafka-cache";
    /** Kafka Streams' default {@code statestore.cache.max.bytes}. */
    private static final long KAFKA_DEFAULT_RECORD_CACHE = 10L * 1024 * 1024;

    /**
     * {@code make bench-throughput}'s anchor (issue 43): Kafka's defaults in a memory cgroup far above any budget, the
     * rate a user sees when memory is free. Not unlimited, so that a run cannot take the machine down with it.
     */
    private static final String UNBOUNDED = "unbounded";

    static final long UNBOUNDED_LIMIT_BYTES = 8 * ByteSize.GiB;
    /**
     * Kafka's defaults in a memory cgroup at the budget, with nothing set, not even the heap: the JVM sizes it from the
     * cgroup's limit, as in a pod (a quarter of it, and the Serial collector below 1,792 MiB).
     */
    private static final String KAFKA_DEFAULTS = ThroughputLine.DEFAULTS;
    /** The hand-tuned configs a user would otherwise write (issue 64, {@link #handTuned}). */
    private static final List<String> HAND_NAMES = List.of("hand-docs", "hand-responsive", "hand-flink");
    /** The variants {@code make bench-throughput} runs unless bench.variants names others. */
    private static final List<String> THROUGHPUT_VARIANTS = Stream.of(
                    List.of("agent", KAFKA_DEFAULTS), HAND_NAMES, List.of(UNBOUNDED))
            .flatMap(List::stream)
            .toList();

    /** {@link #candidates}: issue 43's candidates and diagnostics, run with bench.candidates=true. */
    private static final List<String> CANDIDATE_NAMES = List.of(
            "agent+g1",
            "agent+parallel-gc",
            "agent+compaction-trigger-8",
            "agent+direct-io",
            "agent+rocksdb-55",
            "agent+8g-cgroup",
            "unbounded+plan-heap",
            "agent+write-buffers-42",
            "agent+write-buffers-50",
            "agent+record-cache-5",
            "agent+record-cache-20",
            "agent+kafka-filters",
            "agent+rocksdb-65",
            "agent+app-cache-0",
            "agent+app-cache-0-planned",
            "agent+app-cache-10m-planned",
            "agent+young-half");

    private static final List<String> VARIANT_NAMES = Stream.of(
                    List.of(UNBOUNDED, KAFKA_DEFAULTS),
                    HAND_NAMES,
                    CANDIDATE_NAMES,
                    List.of(
                            "default",
                            "docs-bounded",
                            "agent",
                            LEARNED,
                            LEARNED_KAFKA_CACHE,
                            "agent+4x-write-buffers",
                            "agent+4x-data-blocks",
                            "agent+glibc-default-arenas",
                            "agent+jemalloc"))
            .flatMap(List::stream)
            .toList();
    /** The goal issue 32 sets the learned plan: its peak RSS within this share of the budget ... */
    static final double GOAL_MIN_RSS_RATIO = 0.85;

    static final double GOAL_MAX_RSS_RATIO = 1.00;
    /** ... at no less than this share of the defaults' throughput over the same first seconds. */
    static final double GOAL_MIN_THROUGHPUT_RATIO = 0.9;

    /** A way to run the application; {@code limitBytes} is its memory cgroup's limit, 0 for the budget. */
    private record Variant(
            String name,
            List<String> jvmOptions,
            Map<String, String> env,
            boolean agent,
            boolean docs,
            long limitBytes) {
        Variant(String name, List<String> jvmOptions, Map<String, String> env, boolean agent, boolean docs) {
            this(name, jvmOptions, env, agent, docs, 0);
        }

        long limit(long budget) {
            return limitBytes > 0 ? limitBytes : budget;
        }
    }

    /**
     * An application shape: its input topic and partitions. {@code default}: 16 partitions, 80 RocksDB instances at
     * two key-value stores and a window store per task; {@code wide}: 32 partitions, 160 instances, as RealLimitTest.
     */
    record Shape(String name, int partitions, String topic, boolean zipf) {
        static final Shape DEFAULT = new Shape("default", 16, "bench-input", false);
        static final Shape WIDE = new Shape("wide", 32, "bench-input-wide", false);
        /** {@code default}'s topology, its keys drawn from a Zipf distribution ({@value #ZIPF_EXPONENT}). */
        static final Shape ZIPF = new Shape("zipf", 16, "bench-input-zipf", true);

        static Shape named(String name) {
            return switch (name.trim()) {
                case "default" -> DEFAULT;
                case "wide" -> WIDE;
                case "zipf" -> ZIPF;
                default ->
                    throw new IllegalArgumentException("bench.shapes: no shape " + name + " (default, wide, zipf)");
            };
        }
    }

    /** The zipf shape's exponent: near 1, as word and web-request frequencies and most keyed streams. */
    static final double ZIPF_EXPONENT = 0.99;
    /** The keys {@code make bench-throughput}'s input draws from, whatever its length. */
    static final long THROUGHPUT_KEYS = 15_000_000;
    /**
     * The input range every variant is rated over unless bench.range says otherwise: the first million records
     * fill the memtables and start flushes and compactions (and pass the 512 MiB plan's block cache); the next two
     * million are the work compared. Short enough that a budget's part stays under about 45 minutes.
     */
    static final String DEFAULT_RANGE = "1000000:3000000";

    private record Sample(double seconds, long rssBytes) {}

    /** Records processed so far, as the application printed it. */
    record Progress(long millis, long count) {}

    /**
     * How a run ended: "plateau", "over-budget" (an unbounded variant passed the budget, measured without a memory
     * cgroup), "max-time" or "killed" (by the kernel, {@code killedAfter} seconds after the run started; -1 when not).
     * Its throughput is over the whole run; variants are compared over the same first seconds
     * ({@link #throughputWithin}).
     */
    private record Result(
            Variant variant,
            long peakRss,
            List<Sample> samples,
            List<Progress> progress,
            List<CpuSample> cpu,
            int rocksDbInstances,
            String ending,
            boolean kernelLimited,
            long killedAfter,
            double gcPauseSeconds,
            RocksDbLogs rocksDb,
            List<RocksDbTickers> tickers,
            List<IoSample> io,
            JfrFigures jfr,
            SteadyRate.Window window) {
        /** The ending as a run's row says it: "killed after N s" for a kill. */
        String ended() {
            return killedAfter < 0 ? ending : "killed after " + killedAfter + " s";
        }

        /** What the kernel's limit did, for the summary line: "killed@Ns", "survived" or "no-cgroup". */
        String kernel() {
            return !kernelLimited ? "no-cgroup" : killedAfter < 0 ? "survived" : "killed@" + killedAfter + "s";
        }

        /**
         * Records/s over the measured window: the input range in {@code make bench-throughput} ({@link InputRange}),
         * else the run's last {@value SteadyRate#STEADY_SECONDS} s ({@link SteadyRate}); NaN when not measured.
         */
        double steadyRate() {
            return window == null
                    ? Double.NaN
                    : (window.to().count() - window.from().count())
                            / ((window.toMillis() - window.fromMillis()) / 1000.0);
        }

        /** The run as the throughput lines read it, its costs over the measured window. */
        ThroughputLine.Run line(long budget) {
            double wallSeconds =
                    samples.isEmpty() ? 0 : samples.get(samples.size() - 1).seconds();
            return new ThroughputLine.Run(
                    steadyRate(),
                    kernel(),
                    window == null ? Double.NaN : CpuSample.microsPerRecord(cpu, window),
                    window == null ? Double.NaN : IoSample.readBytesPerRecord(io, window),
                    wallSeconds > 0 ? gcPauseSeconds / wallSeconds : Double.NaN,
                    peakRss / (double) budget);
        }

        double measuredSeconds() {
            return progress.size() < 2
                    ? 0
                    : (progress.get(progress.size() - 1).millis()
                                    - progress.get(0).millis())
                            / 1000.0;
        }

        double throughput() {
            return throughputWithin(measuredSeconds());
        }

        /** Records/s over the first {@code seconds} after the first record: runs ending at different times compare. */
        double throughputWithin(double seconds) {
            if (progress.size() < 2 || seconds <= 0) {
                return 0;
            }
            Progress first = progress.get(0);
            Progress last = lastWithin(seconds);
            double span = (last.millis() - first.millis()) / 1000.0;
            return span > 0 ? (last.count() - first.count()) / span : 0;
        }

        /**
         * CPU microseconds the JVM spent per record over the same first seconds: what the variant's settings cost,
         * whatever share of the machine the hypervisor left it; 0 when not measured.
         */
        double cpuMicrosPerRecordWithin(double seconds) {
            if (progress.size() < 2 || cpu.isEmpty() || seconds <= 0) {
                return 0;
            }
            Progress first = progress.get(0);
            Progress last = lastWithin(seconds);
            long records = last.count() - first.count();
            double cpuSeconds = cpuAt(last).processSecondsSince(cpuAt(first));
            return records > 0 ? cpuSeconds * 1e6 / records : 0;
        }

        /** The share of the machine's CPU the hypervisor took over the same first seconds (0 to 1). */
        double stealShareWithin(double seconds) {
            if (progress.isEmpty() || cpu.isEmpty()) {
                return 0;
            }
            return cpuAt(lastWithin(seconds)).stealShareSince(cpuAt(progress.get(0)));
        }

        private CpuSample cpuAt(Progress p) {
            return CpuSample.at(cpu, p.millis());
        }

        private Progress lastWithin(double seconds) {
            Progress first = progress.get(0);
            Progress last = first;
            for (Progress p : progress) {
                if (p.millis() - first.millis() <= seconds * 1000) {
                    last = p;
                }
            }
            return last;
        }
    }

    /** The application as sized for one budget, and the engine's allocation for it. */
    private record Sizing(
            long budget,
            Shape shape,
            long records,
            int threads,
            StoreCounts stores,
            AllocationDocument allocation,
            String json) {
        String label() {
            return String.format(
                    Locale.ROOT,
                    "threads=%d partitions=%d stores=kv:%d+window:%d loaded_classes=%d",
                    threads,
                    shape.partitions(),
                    stores.keyValue(),
                    stores.window(),
                    allocation.inputs().loadedClasses());
        }

        boolean sizedDown() {
            return threads < MAX_THREADS || !stores.equals(new StoreCounts(2, 1, 0));
        }
    }

    /**
     * How long a run lasts. With a {@code range} (bench-throughput): until it has processed the range
     * ({@link InputRange}); otherwise from minSeconds on until its RSS has stopped rising (plateauSeconds). Either way
     * at most maxSeconds.
     */
    private record Timing(int minSeconds, int plateauSeconds, int maxSeconds, InputRange range) {
        /**
         * Without bench.maxSeconds, {@value #MAX_SECONDS_PER_GIB} s per GiB of budget (at least that): a larger
         * budget's caches take longer to fill, and 300 s stopped every 4 GiB variant while its RSS still rose. A
         * throughput run ends at the range's end, or after {@value #RANGE_MAX_SECONDS} s (it then has no rate).
         */
        static Timing of(long budget, InputRange range) {
            int perBudget = (int) (MAX_SECONDS_PER_GIB * Math.max(1, budget / ByteSize.GiB));
            return new Timing(
                    Integer.getInteger("bench.minSeconds", range != null ? 0 : 120),
                    Integer.getInteger("bench.plateauSeconds", 60),
                    Integer.getInteger("bench.maxSeconds", range != null ? RANGE_MAX_SECONDS : perBudget),
                    range);
        }

        boolean steady() {
            return range != null;
        }
    }

    private static final int RANGE_MAX_SECONDS = 1_500;

    private static final int MAX_SECONDS_PER_GIB = 300;

    /** What every budget's runs share: where they write, what they run, and which variants. */
    private record Setup(
            Path out,
            Path agentJar,
            String bootstrap,
            String appClasspath,
            MemoryCgroup.Parent cgroups,
            boolean allVariants,
            boolean rocksDbVariants,
            List<String> selected,
            boolean learn,
            InputRange range,
            int repeats) {
        boolean steady() {
            return range != null;
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        // bench.mode=throughput (make bench-throughput, issue 43): each run to its steady rate, against the unbounded
        // anchor, one throughput: line per budget and shape.
        boolean steady = "throughput".equals(System.getProperty("bench.mode", "memory"));
        List<Long> budgets = Stream.of(System.getProperty("bench.budgets", steady ? "512Mi" : "512Mi,1Gi,4Gi")
                        .split(","))
                .map(String::trim)
                .map(ByteSize::parse)
                .toList();
        List<Shape> shapes = Stream.of(
                        System.getProperty("bench.shapes", "default").split(","))
                .map(Shape::named)
                .distinct()
                .toList();
        // bench.range: the input records every variant is rated over; the input outlasts it by a quarter.
        InputRange range = steady ? InputRange.parse(System.getProperty("bench.range", DEFAULT_RANGE)) : null;
        long records = Long.getLong("bench.records", steady ? range.to() + range.to() / 4 : 12_000_000L);
        long keys = steady ? THROUGHPUT_KEYS : records / 2;
        // bench.variants: the variants to run (default all; for throughput, THROUGHPUT_VARIANTS); the learning run
        // happens whenever "learned" is one.
        List<String> selected = selectedVariants(System.getProperty("bench.variants", ""));
        if (selected.isEmpty() && steady) {
            selected = new ArrayList<>(THROUGHPUT_VARIANTS);
            if (Boolean.getBoolean("bench.candidates")) {
                selected.addAll(CANDIDATE_NAMES);
            }
        }
        // A name no variant has fails now, not after a budget's learning run.
        List<String> unknown =
                selected.stream().filter(n -> !VARIANT_NAMES.contains(n)).toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                    "bench.variants: no variant " + unknown + " (variants: " + String.join(",", VARIANT_NAMES) + ")");
        }
        Path out = Path.of(System.getProperty(
                        "bench.out", steady ? "src/agent/target/bench-throughput" : "src/agent/target/bench-memory"))
                .toAbsolutePath();
        Path agentJar = Path.of(System.getProperty("bench.agentJar", "src/agent/target/streams-memory-agent.jar"))
                .toAbsolutePath();
        if (!Files.exists(agentJar)) {
            throw new IllegalStateException("no agent jar at " + agentJar + " (run make agent)");
        }
        deleteTree(out);
        Files.createDirectories(out);
        String fullClasspath = System.getProperty("java.class.path");
        MemoryCgroup.Parent cgroups = Boolean.parseBoolean(System.getProperty("bench.cgroup", "true"))
                ? MemoryCgroup.parent()
                : MemoryCgroup.Parent.none("bench.cgroup=false");
        System.out.println(
                cgroups.available()
                        ? "bench-memory: each run in a memory cgroup limited to its budget, under " + cgroups.dir()
                                + (cgroups.v2() ? " (cgroup v2)" : " (cgroup v1)")
                        : "bench-memory: no memory cgroup (" + cgroups.unavailable()
                                + "); measuring without a kernel limit");
        List<String> summaries = new ArrayList<>();
        long started = System.nanoTime();
        try (KafkaBroker broker = KafkaBroker.start(out.resolve("broker"), fullClasspath)) {
            for (Shape shape : shapes) {
                broker.createTopics(shape.partitions(), shape.topic());
                produce(broker.bootstrap(), shape, records, keys);
            }
            System.out.printf(
                    Locale.ROOT,
                    "broker up and %d records (%d keys) produced for each shape after %.0f s%n",
                    records,
                    keys,
                    (System.nanoTime() - started) / 1e9);
            Setup setup = new Setup(
                    out,
                    agentJar,
                    broker.bootstrap(),
                    KafkaBroker.classpathWithout(
                            fullClasspath, "/agent/target/classes", "/engine/target/classes", "streams-memory-engine"),
                    cgroups,
                    Boolean.getBoolean("bench.allVariants"),
                    Boolean.getBoolean("bench.rocksDbVariants"),
                    selected,
                    selected.isEmpty() || selected.contains(LEARNED),
                    range,
                    Integer.getInteger("bench.repeats", 0));
            for (long budget : budgets) {
                for (Shape shape : shapes) {
                    summaries.addAll(bench(setup, size(budget, shape, records)));
                }
            }
        } finally {
            // A run leaves gigabytes of topic data and RocksDB state; the logs, reports, CSVs and plots stay.
            deleteTree(out.resolve("broker").resolve("data"));
        }
        System.out.printf(Locale.ROOT, "%nall budgets in %.0f s%n", (System.nanoTime() - started) / 1e9);
        summaries.forEach(System.out::println);
    }

    /**
     * Each repeat runs every variant once more, each repeat starting one variant later (inTurn); the summary line then
     * gives the medians over the repeats. Without bench.repeats: one, and three for throughput (issue 64: medians of
     * three interleaved repeats, so an hour's drift of the machine falls on every variant).
     */
    private static int repeats(Setup setup) {
        if (setup.repeats() > 0) {
            return setup.repeats();
        }
        return setup.steady() ? 3 : 1;
    }

    /** One budget and shape: the learning run, every repeat of every variant; returns its summary lines. */
    private static List<String> bench(Setup setup, Sizing sizing) throws Exception {
        long budget = sizing.budget();
        Path dir = setup.out()
                .resolve("budget-" + ByteSize.format(budget).replace(" ", "")
                        + (sizing.shape() == Shape.DEFAULT
                                ? ""
                                : "-" + sizing.shape().name()));
        Files.createDirectories(dir);
        Timing timing = Timing.of(budget, setup.range());
        List<Variant> all = variants(sizing, dir, setup.agentJar(), setup.allVariants(), setup.rocksDbVariants());
        System.out.printf(
                Locale.ROOT,
                "%nbudget %d bytes (%s), shape %s, application %s%s: engine heap %s; block cache %d, write buffers %d; "
                        + "runs of %d..%d s, %s%n",
                budget,
                ByteSize.format(budget),
                sizing.shape().name(),
                sizing.label(),
                sizing.sizedDown() ? " (sized down to fit)" : "",
                xmx(sizing.allocation()),
                sizing.allocation().rocksdb().blockCacheCapacityBytes(),
                sizing.allocation().rocksdb().writeBufferManagerBytes(),
                timing.minSeconds(),
                timing.maxSeconds(),
                timing.steady()
                        ? "each rated over input records " + timing.range().label()
                        : String.format(
                                Locale.ROOT,
                                "plateau when RSS rises under %.0f%% in %d s",
                                PLATEAU_GROWTH * 100,
                                timing.plateauSeconds()));
        List<String> summaries = new ArrayList<>();
        Learning learning = setup.learn()
                ? learn(sizing, dir, setup.agentJar(), setup.bootstrap(), setup.appClasspath(), timing, setup.cgroups())
                : null;
        if (learning != null) {
            summaries.add(learning.plansLine());
            if (learning.variant() != null) {
                // In the rotation right after the agent it learned from (before any diagnostic variant).
                all.add(indexOf(all, "agent") + 1, learning.variant());
                if (setup.selected().contains(LEARNED_KAFKA_CACHE)) {
                    all.add(indexOf(all, LEARNED) + 1, withKafkaRecordCache(learning.variant()));
                }
            }
        }
        List<Variant> variants = select(all, setup.selected());
        if (variants.isEmpty()) {
            System.out.println("no selected variant to run at this budget");
            return summaries;
        }
        int repeats = repeats(setup);
        List<Summary> repeated = new ArrayList<>();
        List<List<Result>> runs = new ArrayList<>();
        for (int repeat = 1; repeat <= repeats; repeat++) {
            Path repeatDir = repeats == 1 ? dir : dir.resolve("repeat-" + repeat);
            List<Result> results = new ArrayList<>();
            for (Variant variant : inTurn(variants, repeat)) {
                Result run = run(
                        variant,
                        sizing,
                        setup.bootstrap(),
                        setup.appClasspath(),
                        repeatDir,
                        repeat,
                        timing,
                        setup.cgroups(),
                        null);
                results.add(run);
                String measured = timing.steady()
                        ? "over input records " + timing.range().label()
                        : "over the last " + SteadyRate.STEADY_SECONDS + " s";
                System.out.printf(
                        Locale.ROOT,
                        "  %-26s peak RSS %7.1f MiB  records/s %9.0f whole run, %9.0f %s  "
                                + "RocksDB instances %d  ended: %s  stalled %.0f s  GC pauses %.1f s%n",
                        variant.name(),
                        run.peakRss() / 1048576.0,
                        run.throughput(),
                        run.steadyRate(),
                        measured,
                        run.rocksDbInstances(),
                        run.ended(),
                        StallWatch.stalledSeconds(run.progress()),
                        run.gcPauseSeconds());
                System.out.println("    " + run.rocksDb().line());
                System.out.println("    " + measured + ": " + RocksDbTickers.overWindow(run.tickers(), run.window())
                        + "; " + IoSample.overWindow(run.io(), run.window()) + "; " + cpuOver(run, run.window()));
                if (run.jfr() != null) {
                    System.out.println("    " + measured + ": " + run.jfr().line());
                }
            }
            // The table, CSV and plot list the variants in one order whatever order they ran in.
            results.sort(java.util.Comparator.comparingInt(r -> variants.indexOf(r.variant())));
            runs.add(results);
            if (setup.steady()) {
                // The throughput lines below judge the runs; the memory table's first-seconds ratios would not.
                writeCsv(repeatDir.resolve("rss.csv"), results);
                plot(repeatDir.resolve("rss.png"), results, sizing);
            } else {
                repeated.add(report(sizing, results, repeatDir));
            }
        }
        if (!setup.steady()) {
            summaries.add(repeats == 1 ? repeated.get(0).line() : medians(sizing, repeated));
        }
        if (learning != null && (learning.variant() == null || !setup.steady())) {
            String line = learning.variant() != null
                    ? learnedLine(budget, repeated)
                    : "summary: variant=learned budget=" + budget + " not-run (learning failed: " + learning.failure()
                            + ")";
            System.out.println(line);
            summaries.add(line);
        }
        if (setup.steady()) {
            List<Map<String, ThroughputLine.Run>> measured = rangeRuns(runs, budget);
            List<String> lines = new ArrayList<>();
            lines.add(ThroughputLine.of(budget, sizing.shape().name(), measured));
            for (Variant variant : variants) {
                lines.add(ThroughputLine.variant(budget, sizing.shape().name(), variant.name(), measured));
            }
            lines.forEach(System.out::println);
            summaries.addAll(lines);
        }
        return summaries;
    }

    /** Each repeat's runs as the throughput lines read them, by variant name. */
    private static List<Map<String, ThroughputLine.Run>> rangeRuns(List<List<Result>> runs, long budget) {
        List<Map<String, ThroughputLine.Run>> repeats = new ArrayList<>();
        for (List<Result> results : runs) {
            Map<String, ThroughputLine.Run> byName = new HashMap<>();
            for (Result r : results) {
                byName.put(r.variant().name(), r.line(budget));
            }
            repeats.add(byName);
        }
        return repeats;
    }

    /** The benchmark's application as large as the budget holds: 4 threads and all stores, else fewer. */
    private static Sizing size(long budget, Shape shape, long records) {
        List<StoreCounts> storeChoices =
                List.of(new StoreCounts(2, 1, 0), new StoreCounts(1, 1, 0), new StoreCounts(1, 0, 0));
        for (StoreCounts stores : storeChoices) {
            for (int threads = MAX_THREADS; threads >= 1; threads /= 2) {
                AllocationResult result = plan(budget, shape, threads, stores, Overrides.NONE);
                if (result.ok()) {
                    String json = AllocationJson.write(result.allocation());
                    return new Sizing(budget, shape, records, threads, stores, AllocationJson.read(json), json);
                }
            }
        }
        throw new IllegalStateException("no sizing of the benchmark's application fits " + ByteSize.format(budget));
    }

    /** The engine's plan for the benchmark's application, as a policy declaring its topology gets it. */
    private static AllocationResult plan(
            long budget, Shape shape, int threads, StoreCounts stores, Overrides overrides) {
        return new AllocationEngine()
                .allocate(facts(budget, shape, threads, stores, overrides).build());
    }

    private static WorkloadFacts.Builder facts(
            long budget, Shape shape, int threads, StoreCounts stores, Overrides overrides) {
        return WorkloadFacts.builder()
                .memoryBytes(budget)
                .streamThreads(threads)
                .partitions(shape.partitions())
                .stores(stores)
                .loadedClasses(Integer.getInteger("bench.loadedClasses", LOADED_CLASSES))
                .overrides(overrides);
    }

    private static String xmx(AllocationDocument allocation) {
        return allocation.jvmOptions().stream()
                .filter(o -> o.startsWith("-Xmx"))
                .findFirst()
                .orElseThrow();
    }

    /**
     * The variants in the order repeat {@code repeat} runs them: each repeat starts one later, so over as many repeats
     * as variants each runs once at each position, and neither a broker still warming up nor a slow stretch of a
     * shared machine falls on one variant alone.
     */
    static <T> List<T> inTurn(List<T> variants, int repeat) {
        List<T> rotated = new ArrayList<>(variants);
        Collections.rotate(rotated, -((repeat - 1) % variants.size()));
        return rotated;
    }

    private static List<Variant> variants(
            Sizing sizing, Path dir, Path agentJar, boolean allVariants, boolean rocksDbVariants) throws IOException {
        Path allocationFile = dir.resolve("alloc.json");
        Files.writeString(allocationFile, sizing.json());
        String xmx = xmx(sizing.allocation());
        List<Variant> variants = new ArrayList<>();
        // The anchor sets nothing at all: no -Xmx either, so its JVM takes its default heap, a quarter of the cgroup's
        // 8 GiB, as a pod with memory to spare would.
        variants.add(new Variant(UNBOUNDED, List.of(), Map.of(), false, false, UNBOUNDED_LIMIT_BYTES));
        variants.add(new Variant("default", List.of(xmx), Map.of(), false, false));
        variants.add(new Variant(
                "docs-bounded",
                List.of(
                        xmx,
                        "-D" + DocsBoundedRocksDBConfig.CACHE_PROPERTY + "="
                                + sizing.allocation().rocksdb().blockCacheCapacityBytes(),
                        "-D" + DocsBoundedRocksDBConfig.MEMTABLE_PROPERTY + "="
                                + sizing.allocation().rocksdb().writeBufferManagerBytes()),
                Map.of(),
                false,
                true));
        List<String> agentOptions = new ArrayList<>(sizing.allocation().jvmOptions());
        agentOptions.add("-javaagent:" + agentJar);
        if (Boolean.getBoolean("bench.nmt")) {
            agentOptions.add(NATIVE_MEMORY_TRACKING);
        }
        Map<String, String> agentEnv = Map.of("STREAMS_MEMORY_ALLOCATION", allocationFile.toString());
        // The agent as the webhook delivers it: its JVM flags, the allocation file and glibc's arenas capped.
        Map<String, String> injectedEnv = merge(agentEnv, Map.of("MALLOC_ARENA_MAX", MemoryModel.MALLOC_ARENA_MAX));
        variants.add(new Variant("agent", agentOptions, injectedEnv, true, false));
        variants.add(new Variant(KAFKA_DEFAULTS, List.of(), Map.of(), false, false));
        variants.addAll(handTuned(sizing.budget()));
        if (rocksDbVariants) {
            // Diagnostic, past the budget by design: what the agent's throughput gap costs in RocksDB memory. The
            // agent reads the same plan with one RocksDB figure raised; its JVM flags and every other part stay.
            long cache = sizing.allocation().rocksdb().blockCacheCapacityBytes();
            long writeBuffers = sizing.allocation().rocksdb().writeBufferManagerBytes();
            variants.add(agentWithRocksDb(
                    "agent+4x-write-buffers", dir, sizing, agentJar, cache + 3 * writeBuffers, 4 * writeBuffers));
            variants.add(agentWithRocksDb(
                    "agent+4x-data-blocks",
                    dir,
                    sizing,
                    agentJar,
                    writeBuffers + 4 * (cache - writeBuffers),
                    writeBuffers));
        }
        if (Boolean.getBoolean("bench.candidates")) {
            variants.addAll(candidates(sizing, dir, agentJar));
        }
        if (!allVariants) {
            return variants;
        }
        variants.add(new Variant("agent+glibc-default-arenas", agentOptions, agentEnv, true, false));
        if (Files.exists(Path.of(JEMALLOC))) {
            variants.add(new Variant(
                    "agent+jemalloc", agentOptions, merge(agentEnv, Map.of("LD_PRELOAD", JEMALLOC)), true, false));
        } else {
            System.out.println("jemalloc not installed (" + JEMALLOC + "; Debian package libjemalloc2): skipping "
                    + "that variant");
        }
        return variants;
    }

    /**
     * What a user would write by hand instead of opting in (issue 64), each from public advice, sized for the pod's
     * limit as such a user sizes it, on Kafka Streams' other defaults (record cache, client buffers) and the
     * application's own RocksDB setter ({@link DocsBoundedRocksDBConfig}, with 16 MiB x 3 memtables and 4 KiB blocks):
     * <ul>
     *   <li>{@code hand-docs}: Kafka docs' {@code BoundedMemoryRocksDBConfig}: one shared cache at 35% of the limit,
     *       a third of it for memtables, a 0.1 high-priority pool; the JVM's default heap (a quarter of the limit);
     *   <li>{@code hand-responsive}: Responsive's bounded-memory example: memtables half of the cache, a 0.25
     *       high-priority pool, 4 background threads; {@code -Xmx} at 40% of the limit, the cache at 25%;
     *   <li>{@code hand-flink}: Flink's managed-memory defaults: RocksDB at 0.4 of the process, write-buffer ratio
     *       0.5, high-priority pool 0.1; the JVM's default heap.
     * </ul>
     */
    private static List<Variant> handTuned(long limit) {
        return List.of(
                handTuned(HAND_NAMES.get(0), List.of(), limit * 35 / 100, 1.0 / 3, 0.1, 0),
                handTuned(HAND_NAMES.get(1), List.of("-Xmx" + limit * 40 / 100), limit / 4, 0.5, 0.25, 4),
                handTuned(HAND_NAMES.get(2), List.of(), limit * 40 / 100, 0.5, 0.1, 0));
    }

    private static Variant handTuned(
            String name,
            List<String> heap,
            long cacheBytes,
            double writeBufferShare,
            double highPriorityPoolRatio,
            int backgroundThreads) {
        List<String> options = new ArrayList<>(heap);
        options.add("-D" + DocsBoundedRocksDBConfig.CACHE_PROPERTY + "=" + cacheBytes);
        options.add("-D" + DocsBoundedRocksDBConfig.MEMTABLE_PROPERTY + "=" + (long) (cacheBytes * writeBufferShare));
        options.add("-D" + DocsBoundedRocksDBConfig.HIGH_PRIORITY_PROPERTY + "=" + highPriorityPoolRatio);
        if (backgroundThreads > 0) {
            options.add("-D" + DocsBoundedRocksDBConfig.BACKGROUND_THREADS_PROPERTY + "=" + backgroundThreads);
        }
        return new Variant(name, options, Map.of(), false, true);
    }

    /** The agent as the webhook delivers it: the plan's JVM flags, its allocation file and glibc's arenas capped. */
    private static Variant agentVariant(
            String name, AllocationDocument allocation, Path allocationFile, Path agentJar) {
        List<String> options = new ArrayList<>(allocation.jvmOptions());
        options.add("-javaagent:" + agentJar);
        return new Variant(
                name,
                options,
                Map.of(
                        "STREAMS_MEMORY_ALLOCATION",
                        allocationFile.toString(),
                        "MALLOC_ARENA_MAX",
                        MemoryModel.MALLOC_ARENA_MAX),
                true,
                false);
    }

    /**
     * Issue 43's candidates and diagnostics beside the declared plan ({@code agent}), each named for what it changes:
     * <ul>
     *   <li>{@code agent+g1}, {@code agent+parallel-gc}: the same plan under another collector. A JVM that sees under
     *       1,792 MiB is not a "server class machine" and runs the Serial collector, which collects the whole heap on
     *       one thread while the application waits.
     *   <li>{@code agent+compaction-trigger-8}: the same plan, the application's setter starting a compaction at 8
     *       sorted runs instead of 4. The plan's memtables flush small, and Kafka Streams' universal compaction then
     *       merges many small runs, again and again, into ever larger ones.
     *   <li>{@code agent+direct-io}: the same plan, the application's setter writing flushes and compactions past the
     *       page cache ({@code use_direct_io_for_flush_and_compaction}), so the little page cache a pod's limit leaves
     *       keeps the blocks reads need rather than files just written.
     *   <li>{@code agent+rocksdb-55}, {@code agent+rocksdb-65}: the plan with {@code spec.overrides.rocksDbFraction}
     *       0.55 or 0.65 instead of 0.40: a smaller heap, a larger block cache for data blocks (and its third for
     *       memtables); at 1 GiB Flink's split (RocksDB at 0.4 of the process, the JVM's default heap) ran ahead.
     *   <li>{@code agent+write-buffers-42}, {@code agent+write-buffers-50}: the plan with the write buffers' share of
     *       the block cache at the split tuner's first and second steps (41.7% and 50% instead of 1/3), the data blocks
     *       giving it: what the operator's tuning does to a pod whose flushes are small or whose writes stall.
     *   <li>{@code agent+record-cache-5}: the plan with the record cache's share of the heap at 0.05, the split
     *       tuner's floor, instead of the model's: at 4 GiB the declared plan spent 35 s of a 360 s run in GC pauses
     *       where Kafka docs' bounded config (Kafka's 10 MiB record cache) spent 15.
     *   <li>{@code agent+record-cache-20}: the plan with the record cache's share forced to the model's 20%, so no
     *       cap ({@code MemoryModel.RECORD_CACHE_MAX_PER_THREAD}): the plan before issue 64.
     *   <li>{@code agent+kafka-filters}: the same plan without Bloom filters on the last sorted run, as Kafka Streams
     *       4.2+ sets it ({@code optimize_filters_for_hits=true}; the plan's {@code lastLevelFilters} off): what the
     *       filters the plan keeps are worth.
     *   <li>{@code agent+app-cache-0}: the plan, the application turning its record cache off itself
     *       ({@code statestore.cache.max.bytes=0}, which the agent keeps) while the plan still holds heap for one; and
     *       {@code agent+app-cache-0-planned}: the same application on the plan that knows it
     *       ({@code WorkloadFacts.applicationRecordCacheBytes} 0), whose RocksDB gets that heap;
     *       {@code agent+app-cache-10m-planned}: the application setting Kafka's default 10 MiB itself, on the plan
     *       that knows it.
     *   <li>{@code agent+young-half}: the same plan with the young generation half the heap ({@code -XX:NewRatio=1}
     *       instead of the Serial and Parallel collectors' third), so the record cache's entries, evicted within a
     *       second or two, die young instead of being promoted and collected in full collections.
     *   <li>{@code agent+8g-cgroup} (diagnostic): the declared plan exactly, in the anchor's 8 GiB cgroup instead of
     *       one at the budget. The process is bounded as before; only the page cache, which a memory cgroup counts
     *       against its limit, now holds every SST file. The gap to {@code agent} is what the page cache the budget
     *       leaves is worth ({@link IoSample}).
     *   <li>{@code unbounded+plan-heap} (diagnostic, in the anchor's 8 GiB cgroup): Kafka's defaults, no agent, on the
     *       plan's JVM flags and the Serial collector the budget gets, so the gap to the anchor is what the plan's heap
     *       costs.
     * </ul>
     * The record cache's heap price and the split between record cache and memtables were candidates of commit 870b23c
     * ("Candidate splits at 512 MiB" in docs/benchmarks.md).
     */
    private static List<Variant> candidates(Sizing sizing, Path dir, Path agentJar) throws IOException {
        Variant agent = agentVariant("agent", sizing.allocation(), dir.resolve("alloc.json"), agentJar);
        List<Variant> candidates = new ArrayList<>();
        candidates.add(withOptions(agent, CANDIDATE_NAMES.get(0), List.of("-XX:+UseG1GC")));
        candidates.add(withOptions(agent, CANDIDATE_NAMES.get(1), List.of("-XX:+UseParallelGC")));
        candidates.add(withOptions(
                agent,
                CANDIDATE_NAMES.get(2),
                List.of("-D" + EventLogRocksDBConfig.COMPACTION_TRIGGER_PROPERTY + "=8")));
        candidates.add(withOptions(
                agent, CANDIDATE_NAMES.get(3), List.of("-D" + EventLogRocksDBConfig.DIRECT_IO_PROPERTY + "=true")));
        candidates.add(
                overridden(sizing, dir, agentJar, CANDIDATE_NAMES.get(4), Overrides.NONE.withRocksDbFraction(0.55)));
        candidates.add(new Variant(
                CANDIDATE_NAMES.get(5), agent.jvmOptions(), agent.env(), true, false, UNBOUNDED_LIMIT_BYTES));
        List<String> planHeap = new ArrayList<>(sizing.allocation().jvmOptions());
        planHeap.add("-XX:+UseSerialGC");
        candidates.add(new Variant(CANDIDATE_NAMES.get(6), planHeap, Map.of(), false, false, UNBOUNDED_LIMIT_BYTES));
        candidates.add(overridden(
                sizing, dir, agentJar, CANDIDATE_NAMES.get(7), Overrides.NONE.withWriteBufferFraction(0.417)));
        candidates.add(
                overridden(sizing, dir, agentJar, CANDIDATE_NAMES.get(8), Overrides.NONE.withWriteBufferFraction(0.5)));
        candidates.add(overridden(
                sizing, dir, agentJar, CANDIDATE_NAMES.get(9), Overrides.NONE.withRecordCacheFraction(0.05)));
        candidates.add(overridden(
                sizing, dir, agentJar, CANDIDATE_NAMES.get(10), Overrides.NONE.withRecordCacheFraction(0.20)));
        candidates.add(agentWithPlan(
                CANDIDATE_NAMES.get(11), dir, sizing, agentJar, rocksDb -> rocksDb.put("lastLevelFilters", false)));
        candidates.add(
                overridden(sizing, dir, agentJar, CANDIDATE_NAMES.get(12), Overrides.NONE.withRocksDbFraction(0.65)));
        List<String> cacheOff = List.of("-D" + BenchApp.RECORD_CACHE_PROPERTY + "=0");
        candidates.add(withOptions(agent, CANDIDATE_NAMES.get(13), cacheOff));
        candidates.add(appCachePlanned(sizing, dir, agentJar, CANDIDATE_NAMES.get(14), 0));
        candidates.add(
                appCachePlanned(sizing, dir, agentJar, CANDIDATE_NAMES.get(15), MemoryModel.RECORD_CACHE_DEFAULT));
        candidates.add(withOptions(agent, CANDIDATE_NAMES.get(16), List.of("-XX:NewRatio=1")));
        return candidates;
    }

    /** The application setting its record cache to {@code bytes} itself, on the plan that knows it. */
    private static Variant appCachePlanned(Sizing sizing, Path dir, Path agentJar, String name, long bytes)
            throws IOException {
        AllocationResult planned = new AllocationEngine()
                .allocate(facts(sizing.budget(), sizing.shape(), sizing.threads(), sizing.stores(), Overrides.NONE)
                        .applicationRecordCacheBytes(bytes)
                        .build());
        return withOptions(
                planVariant(planned, dir, agentJar, name),
                name,
                List.of("-D" + BenchApp.RECORD_CACHE_PROPERTY + "=" + bytes));
    }

    /** The agent on the plan with {@code overrides}, named {@code name}. */
    private static Variant overridden(Sizing sizing, Path dir, Path agentJar, String name, Overrides overrides)
            throws IOException {
        return planVariant(
                plan(sizing.budget(), sizing.shape(), sizing.threads(), sizing.stores(), overrides),
                dir,
                agentJar,
                name);
    }

    /** The agent on {@code result}'s plan, named {@code name}. */
    private static Variant planVariant(AllocationResult result, Path dir, Path agentJar, String name)
            throws IOException {
        if (!result.ok()) {
            throw new IllegalStateException(name + " does not fit: " + result.message());
        }
        String json = AllocationJson.write(result.allocation());
        Path file = dir.resolve("alloc-" + name.replace("agent+", "") + ".json");
        Files.writeString(file, json);
        AllocationDocument allocation = AllocationJson.read(json);
        System.out.println("    candidate " + name + ": " + planFigures(allocation));
        return agentVariant(name, allocation, file, agentJar);
    }

    /** {@code variant} under another name with more JVM options, in the same cgroup. */
    private static Variant withOptions(Variant variant, String name, List<String> extra) {
        List<String> options = new ArrayList<>(variant.jvmOptions());
        options.addAll(extra);
        return new Variant(name, options, variant.env(), variant.agent(), variant.docs(), variant.limitBytes());
    }

    /** {@code variant} with the application setting Kafka's default record cache itself ({@link BenchApp}). */
    private static Variant withKafkaRecordCache(Variant variant) {
        return withOptions(
                variant,
                LEARNED_KAFKA_CACHE,
                List.of("-D" + BenchApp.RECORD_CACHE_PROPERTY + "=" + KAFKA_DEFAULT_RECORD_CACHE));
    }

    /** bench.variants as names, "docs" standing for docs-bounded; empty for all. */
    static List<String> selectedVariants(String property) {
        return Stream.of(property.split(","))
                .map(String::trim)
                .filter(name -> !name.isEmpty())
                .map(name -> name.equals("docs") ? "docs-bounded" : name)
                .distinct()
                .toList();
    }

    /**
     * The variants bench.variants names, in their own order; all of them when it names none. A diagnostic variant
     * named without its flag (bench.allVariants, bench.rocksDbVariants), or learned when the learning failed, does not
     * run.
     */
    private static List<Variant> select(List<Variant> variants, List<String> selected) {
        if (selected.isEmpty()) {
            // All, but the throughput benchmark's anchor: it runs for minutes with no limit near the budget.
            return variants.stream().filter(v -> !v.name().equals(UNBOUNDED)).toList();
        }
        return variants.stream().filter(v -> selected.contains(v.name())).toList();
    }

    private static int indexOf(List<Variant> variants, String name) {
        for (int i = 0; i < variants.size(); i++) {
            if (variants.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalStateException("no variant " + name);
    }

    /**
     * A budget's learning: the variant on the learned plan, or null with why not; and the line that gives the
     * observed peaks and the declared and learned plans' figures.
     */
    private record Learning(Variant variant, String failure, String plansLine) {}

    /**
     * The learning run: the agent on the declared plan (as the agent variant), its report read every
     * {@value #REPORT_POLL_SECONDS} s, for at most bench.learnSeconds (default 120, no longer than a run) or to its
     * plateau; then the engine's plan from the peaks, as the operator makes it for {@code spec.jvm.sizing: Observed}
     * with a learned topology.
     */
    private static Learning learn(
            Sizing sizing,
            Path dir,
            Path agentJar,
            String bootstrap,
            String classpath,
            Timing timing,
            MemoryCgroup.Parent cgroups)
            throws Exception {
        int learnMax = Math.min(timing.maxSeconds(), Integer.getInteger("bench.learnSeconds", 120));
        Timing learnTiming =
                new Timing(Math.min(timing.minSeconds(), learnMax), timing.plateauSeconds(), learnMax, null);
        Path learnDir = dir.resolve("learning");
        Files.createDirectories(learnDir);
        Path declaredFile = learnDir.resolve("alloc-declared.json");
        Files.writeString(declaredFile, sizing.json());
        Variant declared = agentVariant("learning", sizing.allocation(), declaredFile, agentJar);
        java.util.concurrent.atomic.AtomicReference<ObservedPeaks> peaks =
                new java.util.concurrent.atomic.AtomicReference<>(ObservedPeaks.NONE);
        System.out.printf(
                Locale.ROOT,
                "  learning run: the agent on the declared plan, its report read every %d s, for up to %d s%n",
                REPORT_POLL_SECONDS,
                learnMax);
        Result run = run(declared, sizing, bootstrap, classpath, learnDir, 1, learnTiming, cgroups, peaks);
        ObservedPeaks seen = peaks.get();
        System.out.printf(
                Locale.ROOT,
                "  %-26s peak RSS %7.1f MiB  throughput %9.0f records/s  RocksDB instances %d  ended: %s%n",
                "learning (declared plan)",
                run.peakRss() / 1048576.0,
                run.throughput(),
                run.rocksDbInstances(),
                run.ended());
        System.out.println("    observed peaks: " + seen.line());
        String declaredFigures = planFigures(sizing.allocation());
        String failure = seen.missing();
        AllocationDocument learned = null;
        String learnedJson = null;
        if (failure == null) {
            AllocationResult result = new AllocationEngine().allocate(seen.learnedFacts(sizing.budget()));
            if (result.ok()) {
                learnedJson = AllocationJson.write(result.allocation());
                learned = AllocationJson.read(learnedJson);
            } else {
                failure = "the engine: " + result.message();
            }
        }
        System.out.println("    declared plan: " + declaredFigures);
        System.out.println("    learned plan:  " + (learned != null ? planFigures(learned) : "none (" + failure + ")"));
        String plansLine = String.format(
                Locale.ROOT,
                "plans: budget=%d learning_ended=%s learning_kernel=%s observed: %s | declared: %s | learned: %s",
                sizing.budget(),
                run.ending(),
                run.kernel(),
                seen.line(),
                declaredFigures,
                learned != null ? planFigures(learned) : "none (" + failure + ")");
        if (learned == null) {
            return new Learning(null, failure, plansLine);
        }
        Path learnedFile = dir.resolve("alloc-learned.json");
        Files.writeString(learnedFile, learnedJson);
        System.out.println("    learned facts: " + learned.inputs() + "; allocation " + learnedFile);
        return new Learning(agentVariant(LEARNED, learned, learnedFile, agentJar), null, plansLine);
    }

    /** A plan's key figures: heap, the JVM's caps, the shared block cache and write buffers. */
    private static String planFigures(AllocationDocument allocation) {
        return String.format(
                Locale.ROOT,
                "%s MaxMetaspaceSize=%s ReservedCodeCacheSize=%s Xss=%s block_cache=%d write_buffers=%d",
                xmx(allocation),
                option(allocation, "-XX:MaxMetaspaceSize="),
                option(allocation, "-XX:ReservedCodeCacheSize="),
                option(allocation, "-Xss"),
                allocation.rocksdb().blockCacheCapacityBytes(),
                allocation.rocksdb().writeBufferManagerBytes());
    }

    private static String option(AllocationDocument allocation, String prefix) {
        return allocation.jvmOptions().stream()
                .filter(o -> o.startsWith(prefix))
                .map(o -> o.substring(prefix.length()))
                .findFirst()
                .orElse("unset");
    }

    /** The agent's report now, folded into the peaks so far; a report not (yet) served changes nothing. */
    private static void pollReport(int port, java.util.concurrent.atomic.AtomicReference<ObservedPeaks> peaks) {
        try {
            HttpResponse<String> response =
                    LocalHttp.get(HttpClient.newHttpClient(), port, "/report", Duration.ofSeconds(2));
            if (response.statusCode() == 200) {
                ObservedPeaks now = ObservedPeaks.of(JSON.readTree(response.body()), LEARN_SETTLE_MILLIS);
                peaks.updateAndGet(p -> p.max(now));
            }
        } catch (IOException | RuntimeException e) {
            // not up yet, or the process is gone
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The agent as injected, on the plan with its shared cache and write buffer manager set to other sizes. */
    private static Variant agentWithRocksDb(
            String name, Path dir, Sizing sizing, Path agentJar, long cacheBytes, long writeBufferBytes)
            throws IOException {
        return agentWithPlan(name, dir, sizing, agentJar, rocksDb -> {
            rocksDb.put("blockCacheCapacityBytes", cacheBytes);
            rocksDb.put("writeBufferManagerBytes", writeBufferBytes);
        });
    }

    /** The agent as injected, on the plan with its {@code rocksdb} object changed by {@code change}. */
    private static Variant agentWithPlan(
            String name, Path dir, Sizing sizing, Path agentJar, java.util.function.Consumer<ObjectNode> change)
            throws IOException {
        ObjectNode plan = (ObjectNode) JSON.readTree(sizing.json());
        change.accept((ObjectNode) plan.get("rocksdb"));
        Path file = dir.resolve("alloc-" + name.replace('+', '-') + ".json");
        Files.writeString(file, JSON.writeValueAsString(plan));
        return agentVariant(name, AllocationJson.read(JSON.writeValueAsString(plan)), file, agentJar);
    }

    /**
     * One run of every variant: its summary line, the three peaks, the agent's ratios, the kernel outcomes (default,
     * docs, agent, learned) and the learned variant's peak and ratios. A variant not run has a peak of -1, NaN ratios
     * and the outcome "not-run".
     */
    private record Summary(
            String line,
            long defaultPeak,
            long docsPeak,
            long agentPeak,
            double rssRatio,
            double throughputRatio,
            double cpuPerRecordRatio,
            double agentStalledSeconds,
            List<String> kernel,
            long learnedPeak,
            double learnedRssRatio,
            double learnedThroughputRatio,
            double learnedCpuPerRecordRatio) {}

    /**
     * The learned variant's summary line over the repeats (medians, as the budget's line), ending with the goal issue
     * 32 sets: RSS within [0.85, 1.00] of the budget at no less than 0.9 of the defaults' throughput.
     */
    private static String learnedLine(long budget, List<Summary> repeated) {
        double rssRatio =
                median(repeated.stream().mapToDouble(Summary::learnedRssRatio).toArray());
        double throughputRatio = median(
                repeated.stream().mapToDouble(Summary::learnedThroughputRatio).toArray());
        return String.format(
                Locale.ROOT,
                "summary: variant=learned budget=%d learned_peak_rss=%s rss_ratio=%.3f throughput_ratio=%.3f "
                        + "cpu_per_record_ratio=%.3f kernel=%s repeats=%d goal=%s",
                budget,
                peak(median(repeated.stream().mapToDouble(Summary::learnedPeak).toArray())),
                rssRatio,
                throughputRatio,
                median(repeated.stream()
                        .mapToDouble(Summary::learnedCpuPerRecordRatio)
                        .toArray()),
                kernelOutcomes(repeated, 3),
                repeated.size(),
                goal(rssRatio, throughputRatio));
    }

    /** "met", or "missed(...)" with each part of the goal missed (a ratio not measured, NaN, misses it). */
    static String goal(double rssRatio, double throughputRatio) {
        List<String> missed = new ArrayList<>();
        if (Double.isNaN(rssRatio)) {
            missed.add("rss_ratio=NaN");
        } else if (rssRatio < GOAL_MIN_RSS_RATIO) {
            missed.add(String.format(Locale.ROOT, "rss_ratio<%.2f", GOAL_MIN_RSS_RATIO));
        } else if (rssRatio > GOAL_MAX_RSS_RATIO) {
            missed.add(String.format(Locale.ROOT, "rss_ratio>%.2f", GOAL_MAX_RSS_RATIO));
        }
        if (Double.isNaN(throughputRatio)) {
            missed.add("throughput_ratio=NaN");
        } else if (throughputRatio < GOAL_MIN_THROUGHPUT_RATIO) {
            missed.add(String.format(Locale.ROOT, "throughput_ratio<%.1f", GOAL_MIN_THROUGHPUT_RATIO));
        }
        return missed.isEmpty() ? "met" : "missed(" + String.join(",", missed) + ")";
    }

    /** A (median) peak in bytes, or "n/a" for a variant not run (-1). */
    private static String peak(double bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.0f", bytes);
    }

    /**
     * The summary line over several repeats, in the single run's format: the median of each peak and ratio, then
     * every repeat's ratios and the agent's stalled seconds.
     */
    private static String medians(Sizing sizing, List<Summary> repeated) {
        double[] rssRatios = repeated.stream().mapToDouble(Summary::rssRatio).toArray();
        double[] throughputRatios =
                repeated.stream().mapToDouble(Summary::throughputRatio).toArray();
        double[] cpuRatios =
                repeated.stream().mapToDouble(Summary::cpuPerRecordRatio).toArray();
        String line = String.format(
                Locale.ROOT,
                "summary: budget=%d default_peak_rss=%s docs_bounded_peak_rss=%s agent_peak_rss=%s "
                        + "agent_rss_ratio=%.3f agent_throughput_ratio=%.3f repeats=%d agent_rss_ratios=%s "
                        + "agent_throughput_ratios=%s agent_cpu_per_record_ratio=%.3f agent_cpu_per_record_ratios=%s "
                        + "agent_stalled_s=%s kernel=default:%s,docs:%s,agent:%s app=%s%s (medians over the repeats)",
                sizing.budget(),
                peak(median(repeated.stream().mapToDouble(Summary::defaultPeak).toArray())),
                peak(median(repeated.stream().mapToDouble(Summary::docsPeak).toArray())),
                peak(median(repeated.stream().mapToDouble(Summary::agentPeak).toArray())),
                median(rssRatios),
                median(throughputRatios),
                repeated.size(),
                joined(rssRatios, "%.3f"),
                joined(throughputRatios, "%.3f"),
                median(cpuRatios),
                joined(cpuRatios, "%.3f"),
                joined(
                        repeated.stream()
                                .mapToDouble(Summary::agentStalledSeconds)
                                .toArray(),
                        "%.0f"),
                kernelOutcomes(repeated, 0),
                kernelOutcomes(repeated, 1),
                kernelOutcomes(repeated, 2),
                sizing.label().replace(' ', ','),
                sizing.sizedDown() ? ",sized-down-to-fit" : "");
        System.out.println(line);
        return line;
    }

    /** One variant's kernel outcome in each repeat (0 default, 1 docs, 2 agent, 3 learned), joined by "/". */
    private static String kernelOutcomes(List<Summary> repeated, int variant) {
        return repeated.stream()
                .map(summary -> summary.kernel().get(variant))
                .collect(java.util.stream.Collectors.joining("/"));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static String joined(double[] values, String format) {
        return java.util.Arrays.stream(values)
                .mapToObj(v -> String.format(Locale.ROOT, format, v))
                .collect(java.util.stream.Collectors.joining("/"));
    }

    /** Prints the budget's table, writes its CSV and plot, and returns its summary. */
    private static Summary report(Sizing sizing, List<Result> results, Path dir) throws IOException {
        long budget = sizing.budget();
        writeCsv(dir.resolve("rss.csv"), results);
        plot(dir.resolve("rss.png"), results, sizing);
        // bench.variants may leave any of them out: its figures are then "n/a", NaN or "not-run".
        Result defaults = findOrNull(results, "default");
        Result docs = findOrNull(results, "docs-bounded");
        Result agent = findOrNull(results, "agent");
        Result learned = findOrNull(results, LEARNED);
        double defaultThroughput = defaults == null ? Double.NaN : defaults.throughputWithin(window(results));
        double defaultCpu = defaults == null ? Double.NaN : defaults.cpuMicrosPerRecordWithin(window(results));
        // A variant that passed the budget stopped early, while its stores were still small and fast: every
        // variant's throughput is taken over the same first seconds, those of the shortest run.
        double window = window(results);
        System.out.printf(Locale.ROOT, "%nthroughput over each run's first %.0f s%n", window);
        System.out.printf(
                Locale.ROOT,
                "| %-26s | %12s | %10s | %14s | %10s | %13s | %10s | %7s | %9s | %-17s |%n",
                "variant",
                "peak RSS MiB",
                "RSS/budget",
                "records/s",
                "vs default",
                "CPU us/record",
                "vs default",
                "steal %",
                "RocksDBs",
                "ended");
        System.out.println("|" + "-".repeat(28) + "|" + "-".repeat(14) + "|" + "-".repeat(12) + "|" + "-".repeat(16)
                + "|" + "-".repeat(12) + "|" + "-".repeat(15) + "|" + "-".repeat(12) + "|" + "-".repeat(9) + "|"
                + "-".repeat(11) + "|" + "-".repeat(19) + "|");
        for (Result run : results) {
            System.out.printf(
                    Locale.ROOT,
                    "| %-26s | %12.1f | %10.3f | %14.0f | %10.3f | %13.1f | %10.3f | %7.1f | %9d | %-17s |%n",
                    run.variant().name(),
                    run.peakRss() / 1048576.0,
                    run.peakRss() / (double) budget,
                    run.throughputWithin(window),
                    run.throughputWithin(window) / defaultThroughput,
                    run.cpuMicrosPerRecordWithin(window),
                    run.cpuMicrosPerRecordWithin(window) / defaultCpu,
                    run.stealShareWithin(window) * 100,
                    run.rocksDbInstances(),
                    run.ended());
        }
        System.out.printf(Locale.ROOT, "plot: %s  samples: %s%n", dir.resolve("rss.png"), dir.resolve("rss.csv"));
        double agentStalled = agent == null ? Double.NaN : StallWatch.stalledSeconds(agent.progress());
        double throughputRatio = agent == null ? Double.NaN : agent.throughputWithin(window) / defaultThroughput;
        double cpuRatio = agent == null ? Double.NaN : agent.cpuMicrosPerRecordWithin(window) / defaultCpu;
        String summary = String.format(
                Locale.ROOT,
                "summary: budget=%d default_peak_rss=%s docs_bounded_peak_rss=%s "
                        + "agent_peak_rss=%s agent_rss_ratio=%.3f agent_throughput_ratio=%.3f app=%s%s "
                        + "ended=default:%s,docs:%s,agent:%s throughput_window_s=%.0f agent_stalled_s=%.0f "
                        + "agent_cpu_per_record_ratio=%.3f steal_pct=default:%.0f,docs:%.0f,agent:%.0f "
                        + "kernel=default:%s,docs:%s,agent:%s",
                budget,
                peak(peakOf(defaults)),
                peak(peakOf(docs)),
                peak(peakOf(agent)),
                agent == null ? Double.NaN : agent.peakRss() / (double) budget,
                throughputRatio,
                sizing.label().replace(' ', ','),
                sizing.sizedDown() ? ",sized-down-to-fit" : "",
                defaults == null ? "not-run" : defaults.ending(),
                docs == null ? "not-run" : docs.ending(),
                agent == null ? "not-run" : agent.ending(),
                window,
                agentStalled,
                cpuRatio,
                stealPercent(defaults, window),
                stealPercent(docs, window),
                stealPercent(agent, window),
                kernelOf(defaults),
                kernelOf(docs),
                kernelOf(agent));
        System.out.println(summary);
        double learnedRssRatio = learned == null ? Double.NaN : learned.peakRss() / (double) budget;
        double learnedThroughputRatio =
                learned == null ? Double.NaN : learned.throughputWithin(window) / defaultThroughput;
        double learnedCpuRatio = learned == null ? Double.NaN : learned.cpuMicrosPerRecordWithin(window) / defaultCpu;
        if (learned != null) {
            System.out.printf(
                    Locale.ROOT,
                    "learned this repeat: peak_rss=%d rss_ratio=%.3f throughput_ratio=%.3f cpu_per_record_ratio=%.3f "
                            + "ended=%s kernel=%s stalled_s=%.0f%n",
                    learned.peakRss(),
                    learnedRssRatio,
                    learnedThroughputRatio,
                    learnedCpuRatio,
                    learned.ending(),
                    learned.kernel(),
                    StallWatch.stalledSeconds(learned.progress()));
        }
        return new Summary(
                summary,
                peakOf(defaults),
                peakOf(docs),
                peakOf(agent),
                agent == null ? Double.NaN : agent.peakRss() / (double) budget,
                throughputRatio,
                cpuRatio,
                agentStalled,
                List.of(kernelOf(defaults), kernelOf(docs), kernelOf(agent), kernelOf(learned)),
                peakOf(learned),
                learnedRssRatio,
                learnedThroughputRatio,
                learnedCpuRatio);
    }

    /** The CPU the run's JVM used over the steady window, in cores. */
    private static String cpuOver(Result run, SteadyRate.Window window) {
        if (window == null || run.cpu().isEmpty()) {
            return "no CPU figures";
        }
        CpuSample from = CpuSample.at(run.cpu(), window.fromMillis());
        CpuSample to = CpuSample.at(run.cpu(), window.toMillis());
        double seconds = (to.epochMillis() - from.epochMillis()) / 1000.0;
        return seconds <= 0
                ? "no CPU figures"
                : String.format(Locale.ROOT, "CPU %.2f cores", to.processSecondsSince(from) / seconds);
    }

    private static Map<String, String> merge(Map<String, String> a, Map<String, String> b) {
        Map<String, String> out = new HashMap<>(a);
        out.putAll(b);
        return out;
    }

    /** A variant's run, or null when bench.variants left it out. */
    private static Result findOrNull(List<Result> results, String name) {
        return results.stream()
                .filter(r -> r.variant().name().equals(name))
                .findFirst()
                .orElse(null);
    }

    /**
     * A variant that passed the budget stopped early, while its stores were still small and fast: every variant's
     * throughput is taken over the same first seconds, those of the shortest run.
     */
    private static double window(List<Result> results) {
        return results.stream().mapToDouble(Result::measuredSeconds).min().orElse(0);
    }

    private static long peakOf(Result run) {
        return run == null ? -1 : run.peakRss();
    }

    private static String kernelOf(Result run) {
        return run == null ? "not-run" : run.kernel();
    }

    private static double stealPercent(Result run, double window) {
        return run == null ? Double.NaN : run.stealShareWithin(window) * 100;
    }

    /** The shape's input: {@code records} records of 150 random letters over {@code keys} keys, uniform or Zipf. */
    private static void produce(String bootstrap, Shape shape, long records, long keys) {
        Map<String, Object> config = Map.of(
                "bootstrap.servers",
                bootstrap,
                "acks",
                "1",
                "linger.ms",
                20,
                "batch.size",
                262144,
                "buffer.memory",
                67108864L,
                "compression.type",
                "lz4",
                "key.serializer",
                StringSerializer.class.getName(),
                "value.serializer",
                StringSerializer.class.getName());
        Random random = new Random(42);
        ZipfKeys zipf = shape.zipf() ? new ZipfKeys(keys, ZIPF_EXPONENT, new Random(43)) : null;
        long base = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
        long eventSpan = TimeUnit.MINUTES.toMillis(30);
        char[] value = new char[150];
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (long i = 0; i < records; i++) {
                for (int c = 0; c < value.length; c++) {
                    value[c] = (char) ('a' + random.nextInt(26));
                }
                // A Zipf rank is a key's popularity; the partitioner's hash spreads the hot keys over the partitions.
                String key = "key-" + (zipf != null ? zipf.next() - 1 : random.nextLong(keys));
                producer.send(new ProducerRecord<>(
                        shape.topic(), null, base + i * eventSpan / records, key, new String(value)));
            }
            producer.flush();
        }
    }

    private static Result run(
            Variant variant,
            Sizing sizing,
            String bootstrap,
            String classpath,
            Path out,
            int repeat,
            Timing timing,
            MemoryCgroup.Parent cgroups,
            java.util.concurrent.atomic.AtomicReference<ObservedPeaks> peaks)
            throws Exception {
        String slug = variant.name().replaceAll("[^A-Za-z0-9]+", "-");
        Path dir = out.resolve("run-" + slug);
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>();
        command.add(jdkTool("java"));
        command.addAll(variant.jvmOptions());
        command.add(StallWatch.gcLogOption(dir));
        if (Boolean.getBoolean("bench.jfr")) {
            command.add(JfrFigures.option(dir));
        }
        command.addAll(List.of(
                "-cp",
                classpath,
                BenchApp.class.getName(),
                bootstrap,
                // A repeat needs its own consumer group: the same one would start from the committed offsets.
                "bench-" + sizing.budget() + "-" + slug + (repeat > 1 ? "-r" + repeat : ""),
                dir.resolve("state").toString(),
                Integer.toString(sizing.threads()),
                sizing.shape().topic(),
                Integer.toString(sizing.stores().keyValue()),
                Integer.toString(sizing.stores().window())));
        if (variant.docs()) {
            command.add("docs");
        }
        MemoryCgroup cgroup = cgroups.create(
                "streams-memory-bench-" + slug + "-" + ProcessHandle.current().pid(), variant.limit(sizing.budget()));
        command = cgroup.command(command);
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectError(dir.resolve("app.log").toFile());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("STREAMS_MEMORY_ALLOCATION");
        builder.environment().putAll(variant.env());
        // The agent's own report, read once at the end, says where the agent's RSS went.
        int reportPort = variant.agent() ? KafkaBroker.freePort() : 0;
        if (variant.agent()) {
            builder.environment().put("STREAMS_MEMORY_REPORT_PORT", Integer.toString(reportPort));
        }
        Files.writeString(dir.resolve("command.txt"), String.join(" ", command) + "\n" + variant.env() + "\n");
        long start = System.nanoTime();
        Process process = builder.start();
        List<Progress> progress = Collections.synchronizedList(new ArrayList<>());
        List<RocksDbTickers> tickers = Collections.synchronizedList(new ArrayList<>());
        StallWatch stalls = new StallWatch(process.pid(), dir);
        Thread reader = new Thread(() -> readProgress(process, progress, tickers), "progress-" + slug);
        reader.setDaemon(true);
        reader.start();
        List<Sample> samples = new ArrayList<>();
        List<CpuSample> cpu = new ArrayList<>();
        List<IoSample> io = new ArrayList<>();
        long peak = 0;
        String ending = "no-progress";
        long killedAfter = -1;
        try {
            long measuredFrom = 0;
            long polled = 0;
            while (process.isAlive()) {
                long now = System.nanoTime();
                // A learning run (peaks set) reads the agent's report every few seconds and keeps each figure's peak.
                if (peaks != null && now - polled >= TimeUnit.SECONDS.toNanos(REPORT_POLL_SECONDS)) {
                    polled = now;
                    pollReport(reportPort, peaks);
                }
                Map<String, Long> status = procStatus(process.pid());
                if (status.containsKey("VmRSS")) {
                    samples.add(new Sample((now - start) / 1e9, status.get("VmRSS")));
                    peak = Math.max(peak, status.getOrDefault("VmHWM", 0L));
                }
                CpuSample used = CpuSample.read(process.pid());
                if (used != null) {
                    cpu.add(used);
                }
                IoSample storage = IoSample.read(process.pid());
                if (storage != null) {
                    io.add(storage);
                }
                if (measuredFrom == 0 && !progress.isEmpty()) {
                    measuredFrom = now;
                }
                if (measuredFrom == 0 && now - start > TimeUnit.SECONDS.toNanos(90)) {
                    break; // never started processing
                }
                if (measuredFrom > 0) {
                    stalls.check(List.copyOf(progress));
                    ending = ending(
                            variant,
                            samples,
                            List.copyOf(progress),
                            peak,
                            sizing,
                            (now - measuredFrom) / 1e9,
                            timing,
                            cgroup.limited());
                    if (ending != null) {
                        break;
                    }
                }
                Thread.sleep(500);
            }
            if (!process.isAlive() && cgroup.killed(process.exitValue())) {
                killedAfter = Math.round((System.nanoTime() - start) / 1e9);
                ending = "killed";
            }
            Map<String, Long> status = procStatus(process.pid());
            peak = Math.max(peak, status.getOrDefault("VmHWM", 0L));
            if (peaks != null && process.isAlive()) {
                pollReport(reportPort, peaks);
            }
            if (variant.agent()) {
                saveAgentReport(reportPort, dir.resolve("report.json"));
            }
            if (variant.jvmOptions().contains(NATIVE_MEMORY_TRACKING)) {
                saveThreadStacks(process.pid(), dir.resolve("nmt.txt"));
            }
        } finally {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            cgroup.close();
        }
        int rocksDbInstances = countRocksDbs(dir.resolve("state"));
        RocksDbLogs rocksDb = RocksDbLogs.read(dir.resolve("state"));
        deleteTree(dir.resolve("state"));
        SteadyRate.Window steady = timing.steady()
                ? timing.range().window(List.copyOf(progress))
                : SteadyRate.window(List.copyOf(progress), SteadyRate.STEADY_SECONDS);
        JfrFigures jfr = steady == null
                ? null
                : JfrFigures.read(
                        dir, Instant.ofEpochMilli(steady.fromMillis()), Instant.ofEpochMilli(steady.toMillis()));
        return new Result(
                variant,
                peak,
                samples,
                List.copyOf(progress),
                cpu,
                rocksDbInstances,
                ending == null ? "process-exit" : ending,
                cgroup.limited(),
                killedAfter,
                StallWatch.gcPauseSeconds(dir.resolve("gc.log")),
                rocksDb,
                List.copyOf(tickers),
                io,
                jfr,
                steady);
    }

    /**
     * Whether a run has shown what it can: its RSS rose by less than {@link #PLATEAU_GROWTH} over the last plateau
     * window (after the minimum), an unbounded variant passed the budget (without a memory cgroup; in one, the
     * kernel's count of the budget decides, as in a pod), or the maximum time is up; null to go on.
     */
    private static String ending(
            Variant variant,
            List<Sample> samples,
            List<Progress> progress,
            long peak,
            Sizing sizing,
            double measured,
            Timing timing,
            boolean kernelLimited) {
        if (!variant.agent() && !kernelLimited && peak > variant.limit(sizing.budget())) {
            return "over-budget";
        }
        if (!progress.isEmpty() && progress.get(progress.size() - 1).count() >= sizing.records()) {
            return "input-end";
        }
        if (measured >= timing.maxSeconds()) {
            return "max-time";
        }
        if (measured < timing.minSeconds()) {
            return null;
        }
        if (timing.steady()) {
            return timing.range().passed(progress) ? "range-end" : null;
        }
        double windowStart = samples.get(samples.size() - 1).seconds() - timing.plateauSeconds();
        long before = samples.stream()
                .filter(s -> s.seconds() < windowStart)
                .mapToLong(Sample::rssBytes)
                .max()
                .orElse(0);
        long within = samples.stream()
                .filter(s -> s.seconds() >= windowStart)
                .mapToLong(Sample::rssBytes)
                .max()
                .orElse(0);
        return before > 0 && within <= before * (1 + PLATEAU_GROWTH) ? "plateau" : null;
    }

    /** The agent's figures that account for its RSS, as the run ends; the whole report goes to {@code file}. */
    private static void saveAgentReport(int port, Path file) {
        try {
            HttpResponse<String> response =
                    LocalHttp.get(HttpClient.newHttpClient(), port, "/report", Duration.ofSeconds(5));
            Files.writeString(file, response.body());
            StringBuilder line = new StringBuilder("    agent report at the end (MiB):");
            for (String field : REPORTED) {
                Matcher figure =
                        Pattern.compile("\"" + field + "\"\\s*:\\s*(-?\\d+)").matcher(response.body());
                if (figure.find()) {
                    line.append(
                            String.format(Locale.ROOT, " %s=%.1f", field, Long.parseLong(figure.group(1)) / 1048576.0));
                }
            }
            System.out.println(line);
        } catch (IOException | RuntimeException e) {
            System.out.println("    agent report not read: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the JVM's thread stacks hold resident (native memory tracking counts the stack pages a thread has touched,
     * not the -Xss it reserved); the whole NMT summary goes to {@code file}.
     */
    private static void saveThreadStacks(long pid, Path file) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(jdkTool("jcmd"), Long.toString(pid), "VM.native_memory", "summary")
                .redirectErrorStream(true)
                .start();
        String summary = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        jcmd.waitFor(30, TimeUnit.SECONDS);
        Files.writeString(file, summary);
        Matcher threads = Pattern.compile("\\(threads? #(\\d+)\\)").matcher(summary);
        Matcher stack = Pattern.compile("\\(stack: reserved=(\\d+)KB, committed=(\\d+)KB")
                .matcher(summary);
        if (threads.find() && stack.find()) {
            long count = Long.parseLong(threads.group(1));
            long committedKib = Long.parseLong(stack.group(2));
            System.out.printf(
                    Locale.ROOT,
                    "    thread stacks (NMT): %d threads, %d KiB reserved, %d KiB resident, %d KiB per thread%n",
                    count,
                    Long.parseLong(stack.group(1)),
                    committedKib,
                    committedKib / Math.max(1, count));
        } else {
            System.out.println("    thread stacks: no NMT figures in " + file);
        }
    }

    /** A tool of the JDK this benchmark runs on (its runs use the same one). */
    static String jdkTool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    private static void readProgress(Process process, List<Progress> progress, List<RocksDbTickers> tickers) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                RocksDbTickers counted = RocksDbTickers.parse(line);
                if (counted != null) {
                    tickers.add(counted);
                }
                if (!line.startsWith("PROCESSED ")) {
                    continue;
                }
                String[] parts = line.split(" ");
                long count = Long.parseLong(parts[1]);
                long time = Long.parseLong(parts[2]);
                if (count > 0) {
                    progress.add(new Progress(time, count));
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // the process ended
        }
    }

    /** VmRSS and VmHWM of a process, in bytes. */
    private static Map<String, Long> procStatus(long pid) {
        Map<String, Long> values = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:") || line.startsWith("VmHWM:")) {
                    String[] parts = line.split("\\s+");
                    values.put(parts[0].substring(0, parts[0].length() - 1), Long.parseLong(parts[1]) * 1024);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // the process is gone
        }
        return values;
    }

    /** RocksDB instances that were opened: directories with a CURRENT file under the state directory. */
    private static int countRocksDbs(Path stateDir) {
        if (!Files.exists(stateDir)) {
            return 0;
        }
        try (Stream<Path> paths = Files.walk(stateDir)) {
            return (int) paths.filter(p -> p.getFileName().toString().equals("CURRENT"))
                    .count();
        } catch (IOException e) {
            return -1;
        }
    }

    private static void writeCsv(Path file, List<Result> results) throws IOException {
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
            out.println("variant,seconds,rss_bytes");
            for (Result run : results) {
                for (Sample sample : run.samples()) {
                    out.printf(Locale.ROOT, "%s,%.1f,%d%n", run.variant().name(), sample.seconds(), sample.rssBytes());
                }
            }
        }
        // Records processed over time, to see where a variant's throughput went (file next to rss.csv).
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file.resolveSibling("progress.csv")))) {
            out.println("variant,epoch_ms,records");
            for (Result run : results) {
                for (Progress p : run.progress()) {
                    out.printf(Locale.ROOT, "%s,%d,%d%n", run.variant().name(), p.millis(), p.count());
                }
            }
        }
    }

    private static void plot(Path file, List<Result> results, Sizing sizing) throws IOException {
        long budget = sizing.budget();
        System.setProperty("java.awt.headless", "true");
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (Result run : results) {
            XYSeries series = new XYSeries(run.variant().name());
            for (Sample sample : run.samples()) {
                series.add(sample.seconds(), sample.rssBytes() / 1048576.0);
            }
            dataset.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                String.format(Locale.ROOT, "Kafka Streams RSS, %s, budget %s", sizing.label(), ByteSize.format(budget)),
                "seconds since JVM start",
                "RSS (MiB)",
                dataset,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        XYPlot plot = chart.getXYPlot();
        ValueMarker marker = new ValueMarker(budget / 1048576.0, Color.RED, new BasicStroke(2f));
        marker.setLabel("budget");
        plot.addRangeMarker(marker);
        // The budget line stays in view when every run stays well under it.
        plot.getRangeAxis().setUpperBound(Math.max(plot.getRangeAxis().getUpperBound(), budget / 1048576.0 * 1.05));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1100, 650);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
