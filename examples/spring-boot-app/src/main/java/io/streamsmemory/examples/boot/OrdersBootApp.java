package io.streamsmemory.examples.boot;

import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * The orders topology of the plain example (a count and the latest order per customer in key-value stores, orders
 * per customer and hour in a window store), as a Spring Boot application builds it: spring-kafka's
 * {@code @EnableKafkaStreams} makes the StreamsBuilder and starts KafkaStreams from {@code spring.kafka.streams.*}.
 * Its topics are created when missing, by Spring's {@link KafkaAdmin} before KafkaStreams starts: a source topic
 * missing at the first rebalance stops a Kafka Streams client.
 */
@SpringBootApplication
@EnableKafkaStreams
public class OrdersBootApp {
    public static void main(String[] args) {
        SpringApplication.run(OrdersBootApp.class, args);
    }

    @Bean
    KafkaAdmin.NewTopics topics(
            @Value("${orders.topic}") String input,
            @Value("${orders.counts-topic}") String counts,
            @Value("${orders.hourly-topic}") String hourly,
            @Value("${orders.partitions}") int partitions) {
        return new KafkaAdmin.NewTopics(
                TopicBuilder.name(input).partitions(partitions).build(),
                TopicBuilder.name(counts).partitions(partitions).build(),
                TopicBuilder.name(hourly).partitions(partitions).build());
    }

    @Bean
    KStream<String, String> orders(
            StreamsBuilder builder,
            @Value("${orders.topic}") String input,
            @Value("${orders.counts-topic}") String counts,
            @Value("${orders.hourly-topic}") String hourly) {
        KStream<String, String> orders = builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()));
        orders.groupByKey()
                .count(Materialized.as("order-count-store"))
                .toStream()
                .to(counts, Produced.with(Serdes.String(), Serdes.Long()));
        orders.groupByKey().reduce((previous, latest) -> latest, Materialized.as("latest-order-store"));
        orders.groupByKey()
                .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofHours(1)))
                .count(Materialized.as("orders-per-hour-store"))
                .toStream((window, count) -> window.key())
                .to(hourly, Produced.with(Serdes.String(), Serdes.Long()));
        return orders;
    }
}
