package io.streamsmemory.agent.bench;

import io.streamsmemory.agent.it.KafkaBroker;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
 * {@code make bench-memory}: one state-heavy Kafka Streams application (4 stream threads, 16 partitions, two key-value
 * stores and a windowed store per task: about 80 RocksDB instances) run against a real broker under one memory
 * budget, several ways: Kafka's defaults with -Xmx set to the engine's heap, the hand-written bound from Kafka's
 * memory-management docs, and the agent (also with glibc MALLOC_ARENA_MAX=2 and with jemalloc, when installed).
 * Samples each JVM's RSS from /proc, measures throughput, prints a table, writes a CSV and a PNG plot, and ends with
 * the {@code summary:} line.
 * <p>System properties: bench.budget (bytes, default 1 GiB), bench.seconds (measured seconds per run, default 60),
 * bench.records (input records, default 4,000,000), bench.out, bench.agentJar.
 */
public final class MemoryBenchmark {
    private static final int THREADS = 4;
    private static final int PARTITIONS = 16;
    private static final String TOPIC = "bench-input";
    private static final String JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

    private record Variant(String name, List<String> jvmOptions, Map<String, String> env, boolean agent,
                           boolean docs) {
    }

    private record Sample(double seconds, long rssBytes) {
    }

    private record Result(Variant variant, long peakRss, List<Sample> samples, double throughput, long processed,
                          int rocksDbInstances) {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        long budget = Long.getLong("bench.budget", 1L << 30);
        int seconds = Integer.getInteger("bench.seconds", 60);
        long records = Long.getLong("bench.records", 4_000_000L);
        Path out = Path.of(System.getProperty("bench.out", "src/agent/target/bench-memory")).toAbsolutePath();
        Path agentJar = Path.of(System.getProperty("bench.agentJar", "src/agent/target/streams-memory-agent.jar"))
                .toAbsolutePath();
        if (!Files.exists(agentJar)) {
            throw new IllegalStateException("no agent jar at " + agentJar + " (run make agent)");
        }
        deleteTree(out);
        Files.createDirectories(out);

        WorkloadFacts facts = WorkloadFacts.builder().memoryBytes(budget).streamThreads(THREADS)
                .partitions(PARTITIONS).stores(new StoreCounts(2, 1, 0)).build();
        AllocationResult result = new AllocationEngine().allocate(facts);
        if (!result.ok()) {
            throw new IllegalStateException(result.message());
        }
        String json = AllocationJson.write(result.allocation());
        AllocationDocument allocation = AllocationJson.read(json);
        Path allocationFile = out.resolve("alloc.json");
        Files.writeString(allocationFile, json);
        String xmx = allocation.jvmOptions().stream().filter(o -> o.startsWith("-Xmx")).findFirst().orElseThrow();

        String fullClasspath = System.getProperty("java.class.path");
        String appClasspath = KafkaBroker.classpathWithout(fullClasspath, "/agent/target/classes",
                "/engine/target/classes", "streams-memory-engine");

        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("default", List.of(xmx), Map.of(), false, false));
        variants.add(new Variant("docs-bounded", List.of(xmx,
                "-Ddocs.totalOffHeapMemory=" + allocation.rocksdb().blockCacheCapacityBytes(),
                "-Ddocs.totalMemtableMemory=" + allocation.rocksdb().writeBufferManagerBytes()), Map.of(), false,
                true));
        List<String> agentOptions = new ArrayList<>(allocation.jvmOptions());
        agentOptions.add("-javaagent:" + agentJar);
        Map<String, String> agentEnv = Map.of("STREAMS_MEMORY_ALLOCATION", allocationFile.toString());
        variants.add(new Variant("agent", agentOptions, agentEnv, true, false));
        variants.add(new Variant("agent+MALLOC_ARENA_MAX=2", agentOptions,
                merge(agentEnv, Map.of("MALLOC_ARENA_MAX", "2")), true, false));
        if (Files.exists(Path.of(JEMALLOC))) {
            variants.add(new Variant("agent+jemalloc", agentOptions, merge(agentEnv, Map.of("LD_PRELOAD", JEMALLOC)),
                    true, false));
        } else {
            System.out.println("jemalloc not installed (" + JEMALLOC + "): apt-get install -y libjemalloc2; "
                    + "skipping that variant");
        }

        System.out.printf(Locale.ROOT, "budget %d bytes (%.0f MiB); engine heap %s; block cache %d, write buffers %d; "
                        + "%d threads, %d partitions, kv=2 window=1 stores per task; %d input records; %d s per run%n",
                budget, budget / 1048576.0, xmx, allocation.rocksdb().blockCacheCapacityBytes(),
                allocation.rocksdb().writeBufferManagerBytes(), THREADS, PARTITIONS, records, seconds);
        List<Result> results = new ArrayList<>();
        long started = System.nanoTime();
        try (KafkaBroker broker = KafkaBroker.start(out.resolve("broker"), fullClasspath)) {
            broker.createTopics(PARTITIONS, TOPIC);
            produce(broker.bootstrap(), records);
            System.out.printf(Locale.ROOT, "broker up and %d records produced after %.0f s%n", records,
                    (System.nanoTime() - started) / 1e9);
            for (Variant variant : variants) {
                Result run = run(variant, broker.bootstrap(), appClasspath, out, seconds);
                results.add(run);
                System.out.printf(Locale.ROOT, "  %-26s peak RSS %7.1f MiB  throughput %9.0f records/s  "
                                + "RocksDB instances %d%n", variant.name(), run.peakRss() / 1048576.0,
                        run.throughput(), run.rocksDbInstances());
            }
        }
        writeCsv(out.resolve("rss.csv"), results);
        plot(out.resolve("rss.png"), results, budget);

        Result defaults = find(results, "default");
        Result docs = find(results, "docs-bounded");
        Result agent = find(results, "agent");
        System.out.println();
        System.out.printf(Locale.ROOT, "| %-26s | %12s | %10s | %14s | %10s | %9s |%n", "variant", "peak RSS MiB",
                "RSS/budget", "records/s", "vs default", "RocksDBs");
        System.out.println("|" + "-".repeat(28) + "|" + "-".repeat(14) + "|" + "-".repeat(12) + "|" + "-".repeat(16)
                + "|" + "-".repeat(12) + "|" + "-".repeat(11) + "|");
        for (Result run : results) {
            System.out.printf(Locale.ROOT, "| %-26s | %12.1f | %10.3f | %14.0f | %10.3f | %9d |%n",
                    run.variant().name(), run.peakRss() / 1048576.0, run.peakRss() / (double) budget,
                    run.throughput(), run.throughput() / defaults.throughput(), run.rocksDbInstances());
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "plot: %s  samples: %s  total %.0f s%n", out.resolve("rss.png"),
                out.resolve("rss.csv"), (System.nanoTime() - started) / 1e9);
        System.out.printf(Locale.ROOT, "summary: budget=%d default_peak_rss=%d docs_bounded_peak_rss=%d "
                        + "agent_peak_rss=%d agent_rss_ratio=%.3f agent_throughput_ratio=%.3f%n",
                budget, defaults.peakRss(), docs.peakRss(), agent.peakRss(), agent.peakRss() / (double) budget,
                agent.throughput() / defaults.throughput());
    }

    private static Map<String, String> merge(Map<String, String> a, Map<String, String> b) {
        Map<String, String> out = new HashMap<>(a);
        out.putAll(b);
        return out;
    }

    private static Result find(List<Result> results, String name) {
        return results.stream().filter(r -> r.variant().name().equals(name)).findFirst().orElseThrow();
    }

    private static void produce(String bootstrap, long records) {
        Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, "acks", "1", "linger.ms", 20,
                "batch.size", 262144, "buffer.memory", 67108864L, "compression.type", "lz4",
                "key.serializer", StringSerializer.class.getName(), "value.serializer", StringSerializer.class.getName());
        Random random = new Random(42);
        long base = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
        long eventSpan = TimeUnit.MINUTES.toMillis(30);
        char[] value = new char[150];
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (long i = 0; i < records; i++) {
                for (int c = 0; c < value.length; c++) {
                    value[c] = (char) ('a' + random.nextInt(26));
                }
                String key = "key-" + random.nextInt(1_500_000);
                producer.send(new ProducerRecord<>(TOPIC, null, base + i * eventSpan / records, key,
                        new String(value)));
            }
            producer.flush();
        }
    }

    private static Result run(Variant variant, String bootstrap, String classpath, Path out, int seconds)
            throws Exception {
        String slug = variant.name().replaceAll("[^A-Za-z0-9]+", "-");
        Path dir = out.resolve("run-" + slug);
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(variant.jvmOptions());
        command.addAll(List.of("-cp", classpath, BenchApp.class.getName(), bootstrap, "bench-" + slug,
                dir.resolve("state").toString(), Integer.toString(THREADS), TOPIC));
        if (variant.docs()) {
            command.add("docs");
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(dir.resolve("app.log").toFile());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("STREAMS_MEMORY_ALLOCATION");
        builder.environment().putAll(variant.env());
        Files.writeString(dir.resolve("command.txt"), String.join(" ", command) + "\n" + variant.env() + "\n");
        long start = System.nanoTime();
        Process process = builder.start();
        long[] progress = new long[4]; // first count, first time, last count, last time (ms)
        Thread reader = new Thread(() -> readProgress(process, progress), "progress-" + slug);
        reader.setDaemon(true);
        reader.start();
        List<Sample> samples = new ArrayList<>();
        long peak = 0;
        long startupDeadline = start + TimeUnit.SECONDS.toNanos(90);
        long measureEnd = Long.MAX_VALUE;
        try {
            while (process.isAlive()) {
                long now = System.nanoTime();
                Map<String, Long> status = procStatus(process.pid());
                if (status.containsKey("VmRSS")) {
                    samples.add(new Sample((now - start) / 1e9, status.get("VmRSS")));
                    peak = Math.max(peak, status.getOrDefault("VmHWM", 0L));
                }
                synchronized (progress) {
                    if (measureEnd == Long.MAX_VALUE && progress[0] > 0) {
                        measureEnd = now + TimeUnit.SECONDS.toNanos(seconds);
                    }
                }
                if (now > measureEnd || (measureEnd == Long.MAX_VALUE && now > startupDeadline)) {
                    break;
                }
                Thread.sleep(500);
            }
            Map<String, Long> status = procStatus(process.pid());
            peak = Math.max(peak, status.getOrDefault("VmHWM", 0L));
        } finally {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        double throughput;
        long processed;
        synchronized (progress) {
            processed = progress[2];
            double span = (progress[3] - progress[1]) / 1000.0;
            throughput = span > 0 ? (progress[2] - progress[0]) / span : 0;
        }
        return new Result(variant, peak, samples, throughput, processed, countRocksDbs(dir.resolve("state")));
    }

    private static void readProgress(Process process, long[] progress) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("PROCESSED ")) {
                    continue;
                }
                String[] parts = line.split(" ");
                long count = Long.parseLong(parts[1]);
                long time = Long.parseLong(parts[2]);
                synchronized (progress) {
                    if (progress[0] == 0 && count > 0) {
                        progress[0] = count;
                        progress[1] = time;
                    }
                    if (count > 0) {
                        progress[2] = count;
                        progress[3] = time;
                    }
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
            return (int) paths.filter(p -> p.getFileName().toString().equals("CURRENT")).count();
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
    }

    private static void plot(Path file, List<Result> results, long budget) throws IOException {
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
                String.format(Locale.ROOT, "Kafka Streams RSS, %d threads, %d partitions, budget %.0f MiB",
                        THREADS, PARTITIONS, budget / 1048576.0),
                "seconds since JVM start", "RSS (MiB)", dataset, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        ValueMarker marker = new ValueMarker(budget / 1048576.0, Color.RED, new BasicStroke(2f));
        marker.setLabel("budget");
        plot.addRangeMarker(marker);
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
