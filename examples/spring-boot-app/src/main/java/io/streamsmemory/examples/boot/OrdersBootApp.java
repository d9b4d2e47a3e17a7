package io.streamsmemory.examples.boot;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
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
import org.springframework.kafka.core.KafkaAdmin;

/**
 * The orders topology of the plain example (a count and the latest order per customer in key-value stores, orders
 * per customer and hour in a window store), as a Spring Boot application builds it: spring-kafka's
 * {@code @EnableKafkaStreams} makes the StreamsBuilder and starts KafkaStreams from {@code spring.kafka.streams.*}.
 * Its topics are created when missing, before KafkaStreams starts.
 */
@SpringBootApplication
@EnableKafkaStreams
public class OrdersBootApp {
    public static void main(String[] args) {
        SpringApplication.run(OrdersBootApp.class, args);
    }

    @Bean
    KStream<String, String> orders(
            StreamsBuilder builder,
            KafkaAdmin kafkaAdmin,
            @Value("${orders.topic}") String input,
            @Value("${orders.counts-topic}") String counts,
            @Value("${orders.hourly-topic}") String hourly,
            @Value("${orders.partitions}") int partitions)
            throws Exception {
        createMissingTopics(kafkaAdmin, partitions, input, counts, hourly);
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

    /**
     * The topics missing, created with {@code partitions} before KafkaStreams starts (a source topic missing at the
     * first rebalance stops a Kafka Streams client); an existing topic keeps its own partitions. Not Spring's
     * {@code NewTopic} beans: for an existing topic with fewer partitions KafkaAdmin adds partitions, which moves keys
     * to other tasks and splits their state.
     */
    static void createMissingTopics(KafkaAdmin kafkaAdmin, int partitions, String... topics) throws Exception {
        try (Admin admin = Admin.create(kafkaAdmin.getConfigurationProperties())) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = Arrays.stream(topics)
                    .filter(topic -> !existing.contains(topic))
                    .map(topic -> new NewTopic(topic, Optional.of(partitions), Optional.empty()))
                    .toList();
            admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // Another replica created one meanwhile: fine. Anything else stops the application, to be restarted.
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }
}
