package io.streamsmemory.agent.it;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;

/**
 * A plain Kafka Streams application (no knowledge of the agent) with a key-value and a windowed store. Runs in its
 * own JVM, started by the test with {@code -javaagent}; every second it writes what Kafka Streams itself reports
 * (its RocksDB metrics, its per-thread record cache, the configs it hands its clients) and what the agent's MBean
 * says to a properties file the test reads.
 * <p>Only APIs present in both Kafka Streams 3.9 and 4.4.
 */
public final class StreamsApp {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String applicationId = args[1];
        Path stateDir = Path.of(args[2]);
        Path report = Path.of(args[3]);
        int threads = Integer.parseInt(args[4]);
        String topics = args[5];

        Properties props = new Properties();
        props.put("application.id", applicationId);
        props.put("bootstrap.servers", bootstrap);
        props.put("state.dir", stateDir.toString());
        props.put("num.stream.threads", Integer.toString(threads));
        props.put("metrics.recording.level", "DEBUG");
        props.put("commit.interval.ms", "500");
        // The application's own choices: a large record cache (the agent bounds it), a small batch (kept), its own
        // RocksDB setter (chained).
        props.put("statestore.cache.max.bytes", Long.toString(512L << 20));
        props.put("producer.batch.size", "8192");
        props.put("rocksdb.config.setter", UserSetter.class.getName());
        props.put("consumer.auto.offset.reset", "earliest");
        // Exactly-once, so the output is exact even when a rebalance moves a task mid-way.
        props.put("processing.guarantee", "exactly_once_v2");

        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> input = builder.stream(topics + "input", Consumed.with(Serdes.String(), Serdes.String()));
        input.groupByKey()
                .count(Materialized.as("counts"))
                .toStream()
                .to(topics + "counts-out", Produced.with(Serdes.String(), Serdes.Long()));
        input.groupByKey()
                .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofHours(1)))
                .count(Materialized.as("window-counts"))
                .toStream((windowed, count) -> windowed.key())
                .to(topics + "window-out", Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            streams.close(Duration.ofSeconds(20));
        }));
        streams.start();
        while (!stop.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
            try {
                writeReport(streams, report);
            } catch (Exception e) {
                System.err.println("report failed: " + e);
            }
        }
    }

    private static void writeReport(KafkaStreams streams, Path report) throws Exception {
        Properties out = new Properties();
        out.setProperty("state", streams.state().name());
        out.setProperty("kafkaStreamsVersion", streamsVersion());
        for (Map.Entry<MetricName, ? extends Metric> entry : streams.metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (!name.group().equals("stream-state-metrics")) {
                continue;
            }
            if (List.of("block-cache-capacity", "block-cache-usage", "cur-size-all-mem-tables")
                    .contains(name.name())) {
                String store = name.tags().getOrDefault("rocksdb-state-id",
                        name.tags().getOrDefault("rocksdb-window-state-id", "?"));
                out.setProperty("metric." + name.name() + "." + name.tags().get("task-id") + "." + store,
                        String.valueOf(entry.getValue().metricValue()));
            }
        }
        // What Kafka Streams handed each thread's record cache.
        Field threadsField = KafkaStreams.class.getDeclaredField("threads");
        threadsField.setAccessible(true);
        List<?> threads = (List<?>) threadsField.get(streams);
        out.setProperty("threads", Integer.toString(threads.size()));
        for (Object thread : threads) {
            out.setProperty("threadCache." + ((Thread) thread).getName(), Long.toString(threadCacheSize(thread)));
        }
        Field totalCache = KafkaStreams.class.getDeclaredField("totalCacheSize");
        totalCache.setAccessible(true);
        out.setProperty("totalCacheSize", String.valueOf(totalCache.get(streams)));
        // The configs Kafka Streams builds its clients from.
        Field configField = KafkaStreams.class.getDeclaredField("applicationConfigs");
        configField.setAccessible(true);
        org.apache.kafka.streams.StreamsConfig config = (org.apache.kafka.streams.StreamsConfig) configField.get(streams);
        putAll(out, "main.consumer.", config.getMainConsumerConfigs("g", "c", 0));
        putAll(out, "restore.consumer.", config.getRestoreConsumerConfigs("c"));
        putAll(out, "producer.", config.getProducerConfigs("c"));
        out.setProperty("config.buffered.records.per.partition",
                String.valueOf(config.getInt("buffered.records.per.partition")));
        out.setProperty("config.rocksdb.config.setter", String.valueOf(config.getClass("rocksdb.config.setter")));
        out.setProperty("userSetter.calls", Integer.toString(UserSetter.CALLS.get()));
        // The agent's MBean.
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName agent = new ObjectName("io.streamsmemory:type=Agent");
        if (server.isRegistered(agent)) {
            for (String attribute : List.of("Status", "AllocationHash", "KafkaStreamsVersion", "RocksDbInstances",
                    "RocksDbInstancesOpened", "BlockCacheCapacityBytes", "BlockCacheUsageBytes", "StreamThreads",
                    "Tasks", "MemtableUsageBytes", "ChainedConfigSetters", "RecordCacheBytes")) {
                out.setProperty("mbean." + attribute, String.valueOf(server.getAttribute(agent, attribute)));
            }
        }
        Path temp = report.resolveSibling(report.getFileName() + ".tmp");
        try (var writer = Files.newBufferedWriter(temp)) {
            out.store(writer, null);
        }
        Files.move(temp, report, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void putAll(Properties out, String prefix, Map<String, Object> config) {
        for (String key : List.of("fetch.max.bytes", "max.partition.fetch.bytes", "receive.buffer.bytes",
                "buffer.memory", "batch.size")) {
            if (config.containsKey(key)) {
                out.setProperty("config." + prefix + key, String.valueOf(config.get(key)));
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
