package io.streamsmemory.examples.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The orders topology of the plain example (a count and the latest order per customer in key-value stores, orders
 * per customer and hour in a window store), as a Quarkus application gives it: quarkus-kafka-streams builds and
 * starts KafkaStreams from this Topology and {@code quarkus.kafka-streams.*} / {@code kafka-streams.*}.
 */
@ApplicationScoped
public class OrdersTopology {
    @ConfigProperty(name = "orders.topic")
    String input;

    @ConfigProperty(name = "orders.counts-topic")
    String counts;

    @ConfigProperty(name = "orders.hourly-topic")
    String hourly;

    @Produces
    public Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        // Serdes named at each step, as Quarkus's guides write a topology (its config sets no default serdes).
        KGroupedStream<String, String> byCustomer = builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey(Grouped.with(Serdes.String(), Serdes.String()));
        byCustomer
                .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofHours(1)))
                .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("orders-per-hour-store")
                        .withValueSerde(Serdes.Long()))
                .toStream((window, count) -> window.key())
                .to(hourly, Produced.with(Serdes.String(), Serdes.Long()));
        byCustomer
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("order-count-store")
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .to(counts, Produced.with(Serdes.String(), Serdes.Long()));
        byCustomer.reduce(
                (previous, latest) -> latest,
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("latest-order-store")
                        .withValueSerde(Serdes.String()));
        return builder.build();
    }
}
