package io.streamsmemory.agent.bench;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.rocksdb.Statistics;

/**
 * The state-heavy application of the memory benchmark: per task up to two key-value stores (the latest value per key
 * and a count) and up to one windowed count (three live segments), so 16 partitions with all of them give
 * 16 x (2 + 3) = 80 RocksDB instances. Arguments: bootstrap, application id, state directory, stream threads, topic,
 * key-value stores (0..2), windowed stores (0..1), and "docs" for the docs' bounded RocksDB config. Its RocksDB
 * setter turns RocksDB's LOG on at INFO in every variant, for its event log ({@link EventLogRocksDBConfig}).
 * Prints {@code PROCESSED <records> <epoch ms>} every second, and RocksDB's counters ({@link RocksDbTickers}).
 */
public final class BenchApp {
    private static final LongAdder PROCESSED = new LongAdder();
    /** When set, the record cache the application sets itself ({@code statestore.cache.max.bytes}), in bytes. */
    static final String RECORD_CACHE_PROPERTY = "bench.app.recordCacheBytes";

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String applicationId = args[1];
        String stateDir = args[2];
        int threads = Integer.parseInt(args[3]);
        String topic = args[4];
        int keyValueStores = Integer.parseInt(args[5]);
        int windowStores = Integer.parseInt(args[6]);
        boolean docsBounded = args.length > 7 && args[7].equals("docs");

        Properties props = new Properties();
        props.put("application.id", applicationId);
        props.put("bootstrap.servers", bootstrap);
        props.put("state.dir", stateDir);
        props.put("num.stream.threads", Integer.toString(threads));
        props.put("consumer.auto.offset.reset", "earliest");
        String recordCache = System.getProperty(RECORD_CACHE_PROPERTY);
        if (recordCache != null) {
            props.put("statestore.cache.max.bytes", recordCache);
        }
        props.put(
                "rocksdb.config.setter",
                (docsBounded ? DocsBoundedRocksDBConfig.class : EventLogRocksDBConfig.class).getName());

        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> input = builder.stream(topic, Consumed.with(Serdes.String(), Serdes.String()))
                .peek((key, value) -> PROCESSED.increment());
        if (keyValueStores >= 1) {
            input.groupByKey().reduce((previous, latest) -> latest, Materialized.as("latest-store"));
        }
        if (keyValueStores >= 2) {
            input.groupByKey().count(Materialized.as("count-store"));
        }
        if (windowStores >= 1) {
            input.groupByKey()
                    .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ofMinutes(1)))
                    .count(Materialized.as("window-store"));
        }

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(15))));
        streams.start();
        while (true) {
            Thread.sleep(1000);
            long now = System.currentTimeMillis();
            System.out.println("PROCESSED " + PROCESSED.sum() + " " + now);
            Statistics statistics = EventLogRocksDBConfig.statistics();
            if (statistics != null) {
                System.out.println(RocksDbTickers.line(statistics, now));
            }
            System.out.flush();
        }
    }
}
