package io.streamsmemory.engine;

/**
 * The Kafka Streams and client properties an allocation sets, named once, as Kafka's own {@code StreamsConfig}
 * constants name them (the engine has no Kafka dependency, so it cannot use those). The agent applies exactly these
 * keys; it carries no engine class at run time, so its {@code EngineKeys} lists them again with how each scales, and
 * its {@code AllocationContractTest} fails when the two lists differ.
 */
public final class StreamsConfigKeys {
    /** The record cache of one KafkaStreams instance, from Kafka Streams 3.4 (KIP-770). */
    public static final String STATESTORE_CACHE_MAX_BYTES = "statestore.cache.max.bytes";
    /** The record cache's name before Kafka Streams 3.4. */
    public static final String CACHE_MAX_BYTES_BUFFERING = "cache.max.bytes.buffering";
    /** Records buffered per input partition before its consumer pauses it. */
    public static final String BUFFERED_RECORDS_PER_PARTITION = "buffered.records.per.partition";
    /** Uncommitted writes of one instance's transactional state stores (KIP-892, Kafka Streams 4.4). */
    public static final String STATESTORE_UNCOMMITTED_MAX_BYTES = "statestore.uncommitted.max.bytes";
    /** Whether the application's state stores are transactional (KIP-892); the application's own setting. */
    public static final String ENABLE_TRANSACTIONAL_STATESTORES = "enable.transactional.statestores";

    public static final String PRODUCER_BUFFER_MEMORY = "producer.buffer.memory";
    public static final String PRODUCER_BATCH_SIZE = "producer.batch.size";
    /** The consumers of a KafkaStreams instance, by the prefix their properties take. */
    public static final String[] CONSUMER_PREFIXES = {"main", "restore", "global"};

    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    public static final String MAX_PARTITION_FETCH_BYTES = "max.partition.fetch.bytes";
    public static final String RECEIVE_BUFFER_BYTES = "receive.buffer.bytes";

    private StreamsConfigKeys() {}

    /** A consumer property as Kafka Streams takes it for one of its consumers: {@code main.consumer.fetch.max.bytes}. */
    public static String consumer(String prefix, String property) {
        return prefix + ".consumer." + property;
    }
}
