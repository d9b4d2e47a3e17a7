package io.streamsmemory.examples;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The example Kafka Streams application to run under the operator: a plain application that knows nothing of the
 * agent, with the shape examples/policy.yaml declares per task, two key-value stores and one window store. It creates
 * its topics if they are missing, produces orders in the background so the stores fill, logs one line each time it
 * reaches RUNNING and a progress line every 30 s, and closes cleanly on SIGTERM (stores flushed, offsets committed;
 * the JVM's exit status is then 143, as for any JVM stopped by SIGTERM); it exits 1 when Kafka Streams fails or the
 * topics cannot be created within 3 minutes, so that Kubernetes restarts it, and 2 on a bad setting. It writes nothing but {@code STATE_DIR} and {@code java.io.tmpdir}
 * (RocksDB extracts its native library there), so it runs with a read-only root filesystem.
 *
 * <p>Configuration, all from environment variables:
 *
 * <ul>
 *   <li>{@code BOOTSTRAP_SERVERS}: the Kafka cluster, {@code host:port[,host:port...]}.
 *       <br>Type: string. Required.
 *   <li>{@code APPLICATION_ID}: the Kafka Streams {@code application.id}: the consumer group and the prefix of the
 *       internal topics.
 *       <br>Type: string. Default: {@code orders-streams}.
 *   <li>{@code STATE_DIR}: the Kafka Streams {@code state.dir}, where the RocksDB stores live (an emptyDir in a pod).
 *       <br>Type: path. Default: {@code /tmp/kafka-streams}.
 *   <li>{@code STREAM_THREADS}: {@code num.stream.threads}.
 *       <br>Type: int. Default: {@code 2}. Valid values: [1,...].
 *   <li>{@code INPUT_PARTITIONS}: partitions of the topics the application creates, so the number of tasks; an
 *       existing topic keeps its own.
 *       <br>Type: int. Default: {@code 6}. Valid values: [1,...].
 *   <li>{@code PRODUCE_PER_SECOND}: orders the background producer sends a second; 0 sends none (another replica or
 *       another program produces).
 *       <br>Type: int. Default: {@code 10}. Valid values: [0,...].
 *   <li>{@code KEYS}: distinct customers (record keys) the producer draws from: with the rate, how fast and how far
 *       the stores grow.
 *       <br>Type: int. Default: {@code 10000}. Valid values: [1,...].
 *   <li>{@code ORDER_BYTES}: padding added to each order the producer (or {@link FixedOrders}) sends, so each
 *       record, and each entry of the latest-order store, is about this large.
 *       <br>Type: int. Default: {@code 0}. Valid values: [0,...].
 *   <li>{@code RECORD_CACHE_BYTES}: the application's own {@code statestore.cache.max.bytes}; 0 sends every update
 *       to the stores at once (the heaviest use of RocksDB). Unset leaves Kafka's default.
 *       <br>Type: long. Default: unset. Valid values: [0,...].
 *   <li>{@code NATIVE_LEAK_MIB_PER_MINUTE}: native memory the application leaks on purpose, outside the heap, Kafka
 *       and RocksDB ({@link NativeLeak}), to show what a pod's memory report and the kernel make of a leak no plan
 *       can bound.
 *       <br>Type: int. Default: {@code 0} (no leak). Valid values: [0,...].
 *   <li>{@code EXTRA_CLASSES}: classes generated and loaded at start, before Kafka Streams ({@link ExtraClasses}),
 *       each about 4.5 KiB of metaspace, so the JVM holds the metaspace of a larger application.
 *       <br>Type: int. Default: {@code 0}. Valid values: [0,...].
 *   <li>{@code DIRECT_MIB}: direct buffers held from the start ({@link DirectBuffers}), as Netty or gRPC hold them.
 *       <br>Type: int. Default: {@code 0}. Valid values: [0,...].
 * </ul>
 *
 * <p>The same image runs two other programs, chosen with the container's {@code command}: {@link FixedOrders} (a
 * fixed number of orders, then exit) and {@link NoStreamsJvm} (a JVM that never builds Kafka Streams).
 */
public final class OrdersStreamsApp {
    static final String ORDERS = "orders";
    static final String COUNTS = "order-counts";
    static final String HOURLY = "orders-per-hour";

    private static final Logger LOG = LoggerFactory.getLogger(OrdersStreamsApp.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
    /** How long the topics may take: the broker may start after the application (pods start in any order). */
    private static final Duration TOPICS_TIMEOUT = Duration.ofMinutes(3);

    private OrdersStreamsApp() {}

    public static void main(String[] args) throws Exception {
        AppSettings settings;
        try {
            settings = AppSettings.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("OrdersStreamsApp: " + e.getMessage());
            System.exit(2);
            return;
        }
        // What a larger application holds from its start: its classes and its own direct buffers.
        ExtraClasses.load(settings.extraClasses());
        DirectBuffers.hold(settings.directMib());
        createTopics(settings);

        Properties props = props(settings);
        KafkaStreams streams = new KafkaStreams(topology(props), props);
        OrdersProducer producer = new OrdersProducer(
                settings.bootstrapServers(),
                ORDERS,
                settings.producePerSecond(),
                settings.keys(),
                settings.orderBytes());
        // NOT_RUNNING after a close, ERROR after a failure: either way main has nothing left to wait for.
        CountDownLatch finished = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                LOG.info(
                        "RUNNING: application.id {}, {} active tasks on {} stream threads",
                        settings.applicationId(),
                        activeTasks(streams),
                        settings.streamThreads());
            } else if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                finished.countDown();
            }
        });
        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "orders-progress");
            thread.setDaemon(true);
            return thread;
        });
        progress.scheduleAtFixedRate(
                () -> LOG.info("{} orders produced, {} records processed", producer.sent(), processed(streams)),
                30,
                30,
                TimeUnit.SECONDS);

        // SIGTERM: the JVM runs this hook; the producer stops first so it does not send into a closing application.
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            producer.stop();
                            boolean closed = streams.close(CLOSE_TIMEOUT);
                            LOG.info(
                                    "{}; {} orders produced",
                                    closed ? "closed" : "not closed within " + CLOSE_TIMEOUT,
                                    producer.sent());
                        },
                        "orders-shutdown"));
        streams.start();
        producer.start();
        NativeLeak.start(settings.nativeLeakMibPerMinute());
        finished.await();
        if (streams.state() == KafkaStreams.State.ERROR) {
            LOG.error("Kafka Streams failed (see above); exiting 1");
            System.exit(1); // the shutdown hook still closes the producer and the stores
        }
    }

    /** Per task: the order count and the latest order per customer (key-value), orders per customer and hour (window). */
    static Topology topology(Properties props) {
        // With the application's settings: a builder without them reads defaults, and 4.4 warns about those.
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        KStream<String, String> orders = builder.stream(ORDERS, Consumed.with(Serdes.String(), Serdes.String()));
        orders.groupByKey()
                .count(Materialized.as("order-count-store"))
                .toStream()
                .to(COUNTS, Produced.with(Serdes.String(), Serdes.Long()));
        orders.groupByKey().reduce((previous, latest) -> latest, Materialized.as("latest-order-store"));
        orders.groupByKey()
                .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofHours(1)))
                .count(Materialized.as("orders-per-hour-store"))
                .toStream((window, count) -> window.key())
                .to(HOURLY, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build(props);
    }

    /** The application's own settings; the agent, when a pod has one, merges the allocation's into them. */
    static Properties props(AppSettings settings) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, settings.applicationId());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, settings.stateDir().toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.toString(settings.streamThreads()));
        // The RocksDB metrics the operator's memory report reads are recorded at DEBUG only.
        props.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG");
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        if (settings.recordCacheBytes() != null) {
            props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, Long.toString(settings.recordCacheBytes()));
        }
        // Kafka 5.0's default already (the topology has no global store); unset, 4.4 warns at every start.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
        return props;
    }

    /**
     * Creates the topics that are missing, with the broker's default replication factor; retries until the broker
     * answers or {@link #TOPICS_TIMEOUT} passes. Another replica creating the same topic at the same time is fine.
     */
    static void createTopics(AppSettings settings) throws InterruptedException {
        long deadline = System.nanoTime() + TOPICS_TIMEOUT.toNanos();
        Map<String, Object> config = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                settings.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000);
        try (Admin admin = Admin.create(config)) {
            while (true) {
                try {
                    Set<String> existing = admin.listTopics().names().get();
                    List<NewTopic> missing = List.of(ORDERS, COUNTS, HOURLY).stream()
                            .filter(topic -> !existing.contains(topic))
                            .map(topic ->
                                    new NewTopic(topic, Optional.of(settings.inputPartitions()), Optional.empty()))
                            .collect(Collectors.toList());
                    admin.createTopics(missing).all().get();
                    return;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof TopicExistsException) {
                        return;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(
                                "cannot create the topics on " + settings.bootstrapServers(), e.getCause());
                    }
                    LOG.warn(
                            "cannot create the topics yet ({}); retrying",
                            e.getCause().toString());
                    Thread.sleep(2000);
                }
            }
        }
    }

    private static int activeTasks(KafkaStreams streams) {
        return streams.metadataForLocalThreads().stream()
                .mapToInt(thread -> thread.activeTasks().size())
                .sum();
    }

    /** Records processed by all stream threads, from the thread-level {@code process-total} metric. */
    private static long processed(KafkaStreams streams) {
        double total = 0;
        for (Map.Entry<MetricName, ? extends Metric> metric : streams.metrics().entrySet()) {
            MetricName name = metric.getKey();
            if (name.name().equals("process-total")
                    && name.group().equals("stream-thread-metrics")
                    && metric.getValue().metricValue() instanceof Number value) {
                total += value.doubleValue();
            }
        }
        return (long) total;
    }
}
