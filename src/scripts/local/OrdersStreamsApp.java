import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.Stores;

/**
 * make run's real Kafka Streams JVM (src/scripts/local/real-streams.sh starts it with Java's single-file source
 * launcher): a plain application that knows nothing of the agent, with the shape examples/policy.yaml declares per
 * task, two key-value stores and one window store. It creates its topics if they are missing, produces a few orders
 * a second in the background so the stores fill, and runs until the JVM is told to stop.
 * <p>Arguments: bootstrap servers, state directory, stream threads, input partitions.
 */
public final class OrdersStreamsApp {
    static final String ORDERS = "orders";
    static final String COUNTS = "order-counts";
    static final String HOURLY = "orders-per-hour";

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        Path stateDir = Path.of(args[1]);
        int threads = Integer.parseInt(args[2]);
        int partitions = Integer.parseInt(args[3]);
        createTopics(bootstrap, partitions);

        KafkaStreams streams = new KafkaStreams(topology().build(), props(bootstrap, stateDir, threads));
        Thread producer = new Thread(() -> produce(bootstrap), "orders-producer");
        producer.setDaemon(true);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            producer.interrupt();
            streams.close(Duration.ofSeconds(20));
            stopped.countDown();
        }));
        streams.start();
        producer.start();
        stopped.await();
    }

    /** Per task: the order count and the latest order per customer (key-value), orders per customer and hour (window). */
    static StreamsBuilder topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> orders = builder.stream(ORDERS, Consumed.with(Serdes.String(), Serdes.String()));
        String burn = System.getenv("ORDERS_APP_BURN_MICROS");
        if (burn != null) {
            // A slower application, for tests of what the user sees: this much CPU spent on every order.
            long burnNanos = Long.parseLong(burn.trim()) * 1000;
            orders = orders.peek((customer, order) -> {
                long until = System.nanoTime() + burnNanos;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            });
        }
        orders.groupByKey().count(Materialized.as("order-count-store"))
                .toStream().to(COUNTS, Produced.with(Serdes.String(), Serdes.Long()));
        orders.groupByKey().reduce((previous, latest) -> latest, Materialized.as("latest-order-store"));
        orders.groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofHours(1)))
                .count(Materialized.as("orders-per-hour-store"))
                .toStream((window, count) -> window.key()).to(HOURLY, Produced.with(Serdes.String(), Serdes.Long()));
        if ("true".equals(System.getenv("ORDERS_APP_HEAP_STATE"))) {
            // State on the heap (the operator's tests): the latest order per customer in an in-memory store, and the
            // hourly counts held back until their hour closes by a suppression with no bound.
            orders.groupByKey().reduce((previous, latest) -> latest,
                    Materialized.<String, String>as(Stores.inMemoryKeyValueStore("latest-order-in-memory")));
            orders.groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofHours(1)))
                    .count(Materialized.as("orders-per-hour-suppressed"))
                    .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
                    .toStream((window, count) -> window.key()).to(HOURLY, Produced.with(Serdes.String(), Serdes.Long()));
        }
        return builder;
    }

    /** The application's own settings; the agent merges the allocation's into them. */
    static Properties props(String bootstrap, Path stateDir, int threads) {
        Properties props = new Properties();
        props.put("application.id", "orders-streams");
        props.put("bootstrap.servers", bootstrap);
        props.put("state.dir", stateDir.toString());
        props.put("num.stream.threads", Integer.toString(threads));
        props.put("metrics.recording.level", "DEBUG");
        props.put("consumer.auto.offset.reset", "earliest");
        // More of the application's own settings, say credentials from a mounted Secret: a properties file.
        String extra = System.getenv("ORDERS_APP_EXTRA_CONFIG");
        if (extra != null) {
            try (var reader = java.nio.file.Files.newBufferedReader(Path.of(extra))) {
                props.load(reader);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return props;
    }

    static void createTopics(String bootstrap, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Set<String> existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            List<NewTopic> missing = List.of(ORDERS, COUNTS, HOURLY).stream().filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, partitions, (short) 1)).collect(Collectors.toList());
            admin.createTopics(missing).all().get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * About 20 orders a second from 10 000 customers, until interrupted. With {@code ORDERS_APP_LOAD=heavy}, as fast
     * as the producer takes them, from 10 million customers with 500-byte orders: the record cache then evicts to the
     * stores at the input's rate, and their memtables fill and flush (what the operator's split tuning is tried on).
     */
    static void produce(String bootstrap) {
        boolean heavy = "heavy".equals(System.getenv("ORDERS_APP_LOAD"));
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("linger.ms", "50");
        // 500-byte orders, not 100: as many records fill the memtables five times sooner, so a pod restarted on a
        // tuned split flushes (and is judged) within a minute or two on a loaded machine, not after five.
        String padding = "x".repeat(496);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            while (!Thread.currentThread().isInterrupted()) {
                String customer = "customer-" + ThreadLocalRandom.current().nextInt(heavy ? 10_000_000 : 10_000);
                String amount = Integer.toString(ThreadLocalRandom.current().nextInt(1, 500));
                producer.send(new ProducerRecord<>(ORDERS, customer, heavy ? amount + padding : amount));
                if (!heavy) {
                    Thread.sleep(50);
                }
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            System.err.println("OrdersStreamsApp: the producer stopped: " + e);
        }
    }
}
