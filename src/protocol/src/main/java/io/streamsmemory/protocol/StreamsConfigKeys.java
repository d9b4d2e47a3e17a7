package io.streamsmemory.protocol;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Kafka Streams and client properties an allocation may set, named once, as Kafka's own {@code StreamsConfig}
 * constants name them (neither the engine nor the agent's jar carries Kafka). The engine emits only these keys, and
 * they are the only ones the agent applies: anyone who can edit the allocation ConfigMap could otherwise set any
 * property of the application (say {@code main.consumer.max.poll.records: 0}, which makes its consumer refuse to
 * start).
 *
 * <p>Each key says whether Kafka Streams sizes it per KafkaStreams instance ({@link Scope#INSTANCE}: the record cache is
 * one per instance, and every client buffer belongs to a thread of one instance) or not ({@link Scope#UNSCALED}: socket
 * buffers are the kernel's, and the input buffer is a record count per partition, whose partitions the pod has
 * whatever the number of instances). Only instance-scoped values shrink for instances beyond the planned count.
 */
public final class StreamsConfigKeys {
    /** How Kafka Streams sizes a key. */
    public enum Scope {
        INSTANCE,
        UNSCALED
    }

    /** The record cache of one KafkaStreams instance, from Kafka Streams 3.4 (KIP-770). */
    public static final String STATESTORE_CACHE_MAX_BYTES = "statestore.cache.max.bytes";
    /** The record cache's name before Kafka Streams 3.4, still read from 3.4 when the application sets only it. */
    public static final String CACHE_MAX_BYTES_BUFFERING = "cache.max.bytes.buffering";
    /** Records buffered per input partition before its consumer pauses it. */
    public static final String BUFFERED_RECORDS_PER_PARTITION = "buffered.records.per.partition";
    /**
     * Uncommitted writes of one instance's transactional state stores (KIP-892, Kafka Streams 4.4), divided among its
     * stream threads before it commits early. Zero or negative disables the bound, so for this key 0 is unbounded,
     * not "smaller".
     */
    public static final String STATESTORE_UNCOMMITTED_MAX_BYTES = "statestore.uncommitted.max.bytes";
    /** Whether the application's state stores are transactional (KIP-892); the application's own, never set. */
    public static final String ENABLE_TRANSACTIONAL_STATESTORES = "enable.transactional.statestores";

    public static final String PRODUCER_BUFFER_MEMORY = "producer.buffer.memory";
    public static final String PRODUCER_BATCH_SIZE = "producer.batch.size";
    /** The consumers of a KafkaStreams instance, by the prefix their properties take. */
    public static final String[] CONSUMER_PREFIXES = {"main", "restore", "global"};

    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    public static final String MAX_PARTITION_FETCH_BYTES = "max.partition.fetch.bytes";
    public static final String RECEIVE_BUFFER_BYTES = "receive.buffer.bytes";

    /** Every key an allocation may set, in the order the engine emits them, with its scope. */
    public static final Map<String, Scope> APPLIED;

    static {
        Map<String, Scope> keys = new LinkedHashMap<>();
        keys.put(STATESTORE_CACHE_MAX_BYTES, Scope.INSTANCE);
        keys.put(CACHE_MAX_BYTES_BUFFERING, Scope.INSTANCE);
        keys.put(BUFFERED_RECORDS_PER_PARTITION, Scope.UNSCALED);
        keys.put(STATESTORE_UNCOMMITTED_MAX_BYTES, Scope.INSTANCE);
        keys.put(PRODUCER_BUFFER_MEMORY, Scope.INSTANCE);
        keys.put(PRODUCER_BATCH_SIZE, Scope.INSTANCE);
        for (String prefix : CONSUMER_PREFIXES) {
            keys.put(consumer(prefix, FETCH_MAX_BYTES), Scope.INSTANCE);
            keys.put(consumer(prefix, MAX_PARTITION_FETCH_BYTES), Scope.INSTANCE);
            keys.put(consumer(prefix, RECEIVE_BUFFER_BYTES), Scope.UNSCALED);
        }
        APPLIED = Collections.unmodifiableMap(keys);
    }

    private StreamsConfigKeys() {}

    /** A consumer property as Kafka Streams takes it for one of its consumers: {@code main.consumer.fetch.max.bytes}. */
    public static String consumer(String prefix, String property) {
        return prefix + ".consumer." + property;
    }

    /** Whether an allocation may set {@code key}. */
    public static boolean applied(String key) {
        return APPLIED.containsKey(key);
    }

    /** Whether Kafka Streams sizes {@code key} per KafkaStreams instance. */
    public static boolean instanceScoped(String key) {
        return APPLIED.get(key) == Scope.INSTANCE;
    }
}
