package io.streamsmemory.examples;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends orders (key: a customer out of {@code keys}, value: an amount) at a steady rate on its own thread, so that the
 * application's stores fill without any other program. A rate of 0 sends nothing and starts no thread.
 */
final class OrdersProducer {
    private static final Logger LOG = LoggerFactory.getLogger(OrdersProducer.class);

    private final String bootstrapServers;
    private final String topic;
    private final int perSecond;
    private final int keys;
    private final String padding;
    private final AtomicLong sent = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopping;

    OrdersProducer(String bootstrapServers, String topic, int perSecond, int keys, int orderBytes) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.perSecond = perSecond;
        this.keys = keys;
        this.padding = padding(orderBytes);
        this.thread = new Thread(this::run, "orders-producer");
        thread.setDaemon(true);
    }

    void start() {
        if (perSecond > 0) {
            thread.start();
        }
    }

    /** Stops sending and closes the producer (what it buffered is sent first, for at most a few seconds). */
    void stop() {
        stopping = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    long sent() {
        return sent.get();
    }

    /** An order's value: an amount, then the padding. */
    static String order(String padding) {
        return ThreadLocalRandom.current().nextInt(1, 500) + padding;
    }

    /** {@code bytes} of padding (a space and then letters), empty for 0. */
    static String padding(int bytes) {
        return bytes == 0 ? "" : " " + "x".repeat(bytes - 1);
    }

    private void run() {
        Map<String, Object> config =
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.LINGER_MS_CONFIG, 50);
        long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
        KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        try {
            // Paced by a schedule, not by sleeping a fixed time per record: rates above 1000/s work, and a slow send
            // is caught up instead of lowering the rate.
            long next = System.nanoTime();
            while (!stopping) {
                String customer = "customer-" + ThreadLocalRandom.current().nextInt(keys);
                producer.send(new ProducerRecord<>(topic, customer, order(padding)));
                sent.incrementAndGet();
                next += interval;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
        } catch (InterruptedException | InterruptException stop) {
            // stop() interrupted a sleep or a send blocked on metadata: the normal way out
        } catch (RuntimeException e) {
            LOG.error("the producer stopped; no more orders from this application", e);
        } finally {
            Thread.interrupted(); // a close with the interrupt flag set would give up at once
            producer.close(Duration.ofSeconds(5));
        }
    }
}
