package io.streamsmemory.agent.it;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.Stores;

/**
 * A plain Kafka Streams application (no knowledge of the agent) with a key-value and a windowed store. Runs in its
 * own JVM, started by the test with {@code -javaagent}; every second it writes what Kafka Streams itself reports
 * (its RocksDB metrics, its per-thread record cache, the configs it hands its clients) and what the agent's MBean
 * says to a properties file the test reads.
 * <p>Only APIs present in every Kafka Streams from 2.8 to 4.4, or chosen by the version it runs on (the agent's
 * compatibility runs): the windows, the exactly-once mode and the record cache's key.
 */
public final class StreamsApp {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String applicationId = args[1];
        Path stateDir = Path.of(args[2]);
        Path report = Path.of(args[3]);
        int threads = Integer.parseInt(args[4]);
        String topics = args[5];

        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> input =
                builder.stream(topics + "input", Consumed.with(Serdes.String(), Serdes.String()));
        count(input, topics + "counts-out");
        input.groupByKey()
                .windowedBy(hourWindows())
                .count(Materialized.as("window-counts"))
                .toStream((windowed, count) -> windowed.key())
                .to(topics + "window-out", Produced.with(Serdes.String(), Serdes.Long()));
        if ("true".equals(System.getenv("STREAMS_APP_HEAP_STATE"))) {
            heapState(input, topics);
        }

        KafkaStreams streams = new KafkaStreams(builder.build(), props(bootstrap, applicationId, stateDir, threads));
        runReporting(List.of(streams), report);
    }

    /** The application's own settings, the same for every instance it runs. */
    static Properties props(String bootstrap, String applicationId, Path stateDir, int threads) {
        Properties props = new Properties();
        props.put("application.id", applicationId);
        props.put("bootstrap.servers", bootstrap);
        props.put("state.dir", stateDir.toString());
        props.put("num.stream.threads", Integer.toString(threads));
        props.put("metrics.recording.level", "DEBUG");
        props.put("commit.interval.ms", "500");
        // The application's own choices: a large record cache (the agent bounds it; left unset when the test says
        // so), a small batch and its own max.poll.records (kept), its own RocksDB setter (chained).
        if (!"unset".equals(System.getenv("STREAMS_APP_RECORD_CACHE"))) {
            props.put(
                    since(3, 4) ? "statestore.cache.max.bytes" : "cache.max.bytes.buffering",
                    Long.toString(512L << 20));
        }
        props.put("producer.batch.size", "8192");
        props.put("main.consumer.max.poll.records", "250");
        props.put("rocksdb.config.setter", UserSetter.class.getName());
        props.put("consumer.auto.offset.reset", "earliest");
        // Exactly-once, so the output is exact even when a rebalance moves a task mid-way.
        props.put("processing.guarantee", since(3, 0) ? "exactly_once_v2" : "exactly_once_beta");
        // Kafka Streams gives its transactions 10 s under exactly-once; on a starved test machine (make test's other
        // lanes beside this module) the broker aborted one mid-way once (InvalidTxnStateException at commit, the
        // client in ERROR: CI, 2026-12-05). A slow machine is not what these tests are about.
        props.put("producer.transaction.timeout.ms", "120000");
        // Transactional state stores (KIP-892, Kafka Streams 4.4), when the test asks for them.
        if ("true".equals(System.getenv("STREAMS_APP_TRANSACTIONAL_STATESTORES"))) {
            props.put("enable.transactional.statestores", "true");
        }
        // More of the application's own settings (credentials, when a test gives them): a properties file.
        String extra = System.getenv("STREAMS_APP_EXTRA_CONFIG");
        if (extra != null) {
            try (var reader = Files.newBufferedReader(Path.of(extra))) {
                props.load(reader);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return props;
    }

    /** A count per key in a RocksDB key-value store, written to {@code output}. */
    static void count(KStream<String, String> input, String output) {
        input.groupByKey()
                .count(Materialized.as("counts"))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    }

    /**
     * State on the heap, when the test asks for it: a count per key in an in-memory store (written to
     * {@code memory-out}), and the hourly counts held back by an unbounded suppression until their window closes,
     * which it does not while the test runs (written to {@code suppressed-out} when it would).
     */
    static void heapState(KStream<String, String> input, String topics) throws ReflectiveOperationException {
        input.groupByKey()
                .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("in-memory-counts")))
                .toStream()
                .to(topics + "memory-out", Produced.with(Serdes.String(), Serdes.Long()));
        input.groupByKey()
                .windowedBy(hourWindows())
                .count(Materialized.as("suppressed-window-counts"))
                .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
                .toStream((windowed, count) -> windowed.key())
                .to(topics + "suppressed-out", Produced.with(Serdes.String(), Serdes.Long()));
    }

    /** Starts the instances and writes the report every second until the JVM is told to stop. */
    static void runReporting(List<KafkaStreams> instances, Path report) throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            instances.forEach(streams -> streams.close(Duration.ofSeconds(20)));
        }));
        instances.forEach(KafkaStreams::start);
        while (!stop.await(1, TimeUnit.SECONDS)) {
            try {
                Properties out = new Properties();
                out.setProperty("instances", Integer.toString(instances.size()));
                out.setProperty(
                        "runtime.maxMemory", Long.toString(Runtime.getRuntime().maxMemory()));
                for (int i = 0; i < instances.size(); i++) {
                    // The first instance's keys carry no prefix; the others' are prefixed "i2.", "i3.", ...
                    writeInstance(instances.get(i), out, i == 0 ? "" : "i" + (i + 1) + ".");
                }
                writeMBean(out);
                writeHeap(out);
                benchReport(instances, out);
                out.setProperty("userSetter.calls", Integer.toString(UserSetter.CALLS.get()));
                Path temp = report.resolveSibling(report.getFileName() + ".tmp");
                try (var writer = Files.newBufferedWriter(temp)) {
                    out.store(writer, null);
                }
                Files.move(temp, report, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (Exception e) {
                System.err.println("report failed: " + e);
            }
        }
    }

    private static void writeInstance(KafkaStreams streams, Properties out, String p) throws Exception {
        out.setProperty(p + "state", streams.state().name());
        out.setProperty(p + "kafkaStreamsVersion", streamsVersion());
        for (Map.Entry<MetricName, ? extends Metric> entry : streams.metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (!name.group().equals("stream-state-metrics")) {
                continue;
            }
            if (List.of("block-cache-capacity", "block-cache-usage", "cur-size-all-mem-tables")
                    .contains(name.name())) {
                String store = name.tags()
                        .getOrDefault("rocksdb-state-id", name.tags().getOrDefault("rocksdb-window-state-id", "?"));
                out.setProperty(
                        p + "metric." + name.name() + "." + name.tags().get("task-id") + "." + store,
                        String.valueOf(entry.getValue().metricValue()));
            }
        }
        // What Kafka Streams handed each thread's record cache.
        Field threadsField = KafkaStreams.class.getDeclaredField("threads");
        threadsField.setAccessible(true);
        List<?> threads = (List<?>) threadsField.get(streams);
        out.setProperty(p + "threads", Integer.toString(threads.size()));
        for (Object thread : threads) {
            out.setProperty(p + "threadCache." + ((Thread) thread).getName(), Long.toString(threadCacheSize(thread)));
            // Kafka Streams 4.4's share of statestore.uncommitted.max.bytes for this thread (KIP-892).
            try {
                Field uncommitted = thread.getClass().getDeclaredField("maxUncommittedBytesPerThread");
                uncommitted.setAccessible(true);
                out.setProperty(
                        p + "uncommittedPerThread." + ((Thread) thread).getName(),
                        String.valueOf(uncommitted.get(thread)));
            } catch (NoSuchFieldException e) {
                // before Kafka Streams 4.4
            }
        }
        Field totalCache = KafkaStreams.class.getDeclaredField("totalCacheSize");
        totalCache.setAccessible(true);
        out.setProperty(p + "totalCacheSize", String.valueOf(totalCache.get(streams)));
        // The configs Kafka Streams builds its clients from.
        StreamsConfig config = streamsConfig(streams);
        putAll(out, p + "config.main.consumer.", config.getMainConsumerConfigs("g", "c", 0));
        putAll(out, p + "config.restore.consumer.", config.getRestoreConsumerConfigs("c"));
        putAll(out, p + "config.producer.", config.getProducerConfigs("c"));
        for (String key : List.of("enable.transactional.statestores", "statestore.uncommitted.max.bytes")) {
            Object value = config.values().get(key); // null before Kafka Streams 4.4
            if (value != null) {
                out.setProperty(p + "config." + key, String.valueOf(value));
            }
        }
        out.setProperty(
                p + "config.buffered.records.per.partition",
                String.valueOf(config.getInt("buffered.records.per.partition")));
        out.setProperty(p + "config.rocksdb.config.setter", String.valueOf(config.getClass("rocksdb.config.setter")));
    }

    /** The JVM's own heap figures, to compare with the agent's report. */
    private static void writeHeap(Properties out) {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        out.setProperty("jvm.heapMax", Long.toString(heap.getMax()));
        out.setProperty("jvm.heapCommitted", Long.toString(heap.getCommitted()));
    }

    private static String reportCost;
    private static String reportParts;

    /** The same CPU time for each source the report reads (what to make cheaper first). */
    private static String partCosts(int n) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        StringBuilder parts = new StringBuilder();
        for (String part : List.of(
                "ProcStatus.read:/proc/self/status", "CgroupMemory.read", "JvmMemory.read", "StreamsFigures.read")) {
            String[] name = part.split("[.:]");
            Class<?> type = Class.forName("io.streamsmemory.agent.report." + name[0]);
            Method method = null;
            for (Method m : type.getDeclaredMethods()) {
                if (m.getName().equals(name[1])
                        && (m.getParameterCount() == 0 || m.getParameterCount() == 1 || m.getParameterCount() == 2)) {
                    method = m;
                }
            }
            method.setAccessible(true);
            Object[] args = switch (method.getParameterCount()) {
                case 1 -> new Object[] {Path.of("/proc/self/status")};
                case 2 -> new Object[] {Path.of("/sys/fs/cgroup"), Path.of("/proc/self/cgroup")};
                default -> new Object[0];
            };
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                method.invoke(null, args);
            }
            parts.append(name[0])
                    .append('=')
                    .append(String.format(
                            Locale.ROOT, "%.1f", (threads.getCurrentThreadCpuTime() - start) / 1000.0 / n))
                    .append(' ');
        }
        return parts.toString().trim();
    }

    /**
     * With REPORT_BENCH_CALLS set, once every instance runs: the CPU time of that many builds of the agent's report
     * (built and rendered as JSON, as GET /report does), measured on this thread with ThreadMXBean, per call.
     */
    private static void benchReport(List<KafkaStreams> instances, Properties out) throws Exception {
        String calls = System.getenv("REPORT_BENCH_CALLS");
        if (calls == null || !instances.stream().allMatch(s -> s.state() == KafkaStreams.State.RUNNING)) {
            return;
        }
        if (reportCost == null) {
            Class<?> report = Class.forName("io.streamsmemory.agent.report.MemoryReport");
            Method build = report.getDeclaredMethod("build");
            Method toJson = report.getDeclaredMethod("toJson");
            build.setAccessible(true);
            toJson.setAccessible(true);
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            int n = Integer.parseInt(calls);
            for (int i = 0; i < 100; i++) {
                toJson.invoke(build.invoke(null)); // warm up
            }
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                toJson.invoke(build.invoke(null));
            }
            long nanos = threads.getCurrentThreadCpuTime() - start;
            reportCost = String.format(Locale.ROOT, "%.1f", nanos / 1000.0 / n);
            reportParts = partCosts(n);
        }
        out.setProperty("report.cpu_us_per_call", reportCost);
        out.setProperty("report.cpu_us_per_part", reportParts);
    }

    /** The agent's MBean, when it is registered: map-valued attributes as "mbean.Name.key". */
    private static void writeMBean(Properties out) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName agent = new ObjectName("io.streamsmemory:type=Agent");
        if (!server.isRegistered(agent)) {
            return;
        }
        for (MBeanAttributeInfo attribute : server.getMBeanInfo(agent).getAttributes()) {
            Object value = server.getAttribute(agent, attribute.getName());
            if (value instanceof TabularData table) {
                for (Object row : table.values()) {
                    CompositeData entry = (CompositeData) row;
                    out.setProperty(
                            "mbean." + attribute.getName() + "." + entry.get("key"),
                            String.valueOf(entry.get("value")));
                }
                out.setProperty("mbean." + attribute.getName(), Integer.toString(table.size()));
            } else {
                out.setProperty("mbean." + attribute.getName(), String.valueOf(value));
            }
        }
    }

    private static void putAll(Properties out, String prefix, Map<String, Object> config) {
        for (String key : List.of(
                "fetch.max.bytes",
                "max.partition.fetch.bytes",
                "receive.buffer.bytes",
                "buffer.memory",
                "batch.size",
                "max.poll.records")) {
            if (config.containsKey(key)) {
                out.setProperty(prefix + key, String.valueOf(config.get(key)));
            }
        }
    }

    /** StreamThread keeps its ThreadCache only inside its resize callback (a lambda). */
    private static long threadCacheSize(Object thread) throws Exception {
        Field resizer = thread.getClass().getDeclaredField("cacheResizer");
        resizer.setAccessible(true);
        Object lambda = resizer.get(thread);
        for (Field field : lambda.getClass().getDeclaredFields()) {
            field.setAccessible(true);
            Object value = field.get(lambda);
            if (value != null && value.getClass().getSimpleName().equals("ThreadCache")) {
                Field max = value.getClass().getDeclaredField("maxCacheSizeBytes");
                max.setAccessible(true);
                return (long) max.get(value);
            }
        }
        return -1;
    }

    /** Hour-long windows without grace: {@code ofSizeWithNoGrace} from Kafka Streams 3.0, {@code of} before. */
    private static TimeWindows hourWindows() throws ReflectiveOperationException {
        String factory = since(3, 0) ? "ofSizeWithNoGrace" : "of";
        return (TimeWindows)
                TimeWindows.class.getMethod(factory, Duration.class).invoke(null, Duration.ofHours(1));
    }

    /** Whether the Kafka Streams this runs on is {@code major.minor} or later. */
    static boolean since(int major, int minor) {
        String[] version = streamsVersion().split("\\.");
        int runningMajor = Integer.parseInt(version[0]);
        return runningMajor > major || (runningMajor == major && Integer.parseInt(version[1]) >= minor);
    }

    /** The configs Kafka Streams runs on: its field {@code applicationConfigs}, named {@code config} before 3.0. */
    private static StreamsConfig streamsConfig(KafkaStreams streams) throws IllegalAccessException {
        for (Field field : KafkaStreams.class.getDeclaredFields()) {
            if (field.getType() == StreamsConfig.class) {
                field.setAccessible(true);
                return (StreamsConfig) field.get(streams);
            }
        }
        throw new IllegalStateException("no StreamsConfig field in " + KafkaStreams.class);
    }

    private static String streamsVersion() {
        try (InputStream in = KafkaStreams.class.getResourceAsStream("/kafka/kafka-streams-version.properties")) {
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version");
        } catch (Exception e) {
            return "unknown";
        }
    }
}
