package io.streamsmemory.examples;

import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a fixed input, {@code ORDERS_TOTAL} orders to customers {@code customer-0}, {@code customer-1}, ... in turn,
 * starting again at 0 after {@code KEYS}, as fast as the broker takes them, then exits 0 (1 when a send fails, 2 on a
 * bad setting). The first {@code KEYS} orders are new keys, which fill RocksDB's memtables; the later ones update
 * keys already flushed to disk, so each store reads their blocks back (into its block cache) before writing. Run in a pod of the example image with
 * {@code command: [java, -cp, "/app/*:/app/lib/*", io.streamsmemory.examples.FixedOrders]}. It reads
 * {@code BOOTSTRAP_SERVERS}, {@code INPUT_PARTITIONS}, {@code KEYS} and {@code ORDER_BYTES} as the application does, and creates
 * the topics the same way.
 */
public final class FixedOrders {
    private static final Logger LOG = LoggerFactory.getLogger(FixedOrders.class);

    private FixedOrders() {}

    public static void main(String[] args) throws Exception {
        AppSettings settings;
        int total;
        try {
            settings = AppSettings.fromEnvironment(System.getenv());
            total = AppSettings.number(System.getenv(), "ORDERS_TOTAL", 0, 1);
        } catch (IllegalArgumentException e) {
            System.err.println("FixedOrders: " + e.getMessage() + " (ORDERS_TOTAL is required)");
            System.exit(2);
            return;
        }
        OrdersStreamsApp.createTopics(settings);
        // One request in flight per partition: a batch sent to a partition whose leader was not elected yet is retried
        // before the next is sent. With five (the default), the next ones landed first and the retried first batch
        // was refused as out of sequence, forever, on a topic created a moment before.
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                settings.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                1);
        String padding = OrdersProducer.padding(settings.orderBytes());
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < total; i++) {
                String customer = "customer-" + (i % settings.keys());
                producer.send(new ProducerRecord<>(OrdersStreamsApp.ORDERS, customer, OrdersProducer.order(padding)));
            }
            producer.flush();
        } catch (RuntimeException e) {
            LOG.error("sending the orders failed", e);
            System.exit(1);
        }
        LOG.info("sent {} orders of about {} bytes to {}", total, settings.orderBytes(), OrdersStreamsApp.ORDERS);
    }
}
