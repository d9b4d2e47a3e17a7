package io.streamsmemory.agent.allocation;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one list of Kafka Streams properties the engine may put in an allocation's {@code streamsConfig}, and the only
 * keys the agent applies: anyone who can edit the allocation ConfigMap could otherwise set any property of the
 * application (say {@code main.consumer.max.poll.records: 0}, which makes its consumer refuse to start). Kept equal to
 * what the engine emits by {@code EngineKeysContractTest}.
 *
 * <p>Each key says whether Kafka Streams sizes it per KafkaStreams instance ({@link Scope#INSTANCE}: the record cache
 * is one per instance, and every client buffer belongs to a thread of one instance) or not ({@link Scope#UNSCALED}:
 * socket buffers are the kernel's, and the input buffer is a record count per partition, whose partitions the pod
 * has whatever the number of instances). Only instance-scoped values shrink for instances beyond the planned count.
 */
public final class EngineKeys {
    enum Scope {
        INSTANCE,
        UNSCALED
    }

    /** The record cache from Kafka Streams 3.4 (KIP-770). */
    public static final String STATESTORE_CACHE = "statestore.cache.max.bytes";
    /** The record cache before 3.4, still read from 3.4 when the application sets only it. */
    public static final String LEGACY_CACHE = "cache.max.bytes.buffering";
    /**
     * KIP-892 (Kafka Streams 4.4): with transactional state stores each instance keeps up to this many uncommitted
     * bytes (divided among its stream threads) before it commits early. Zero or negative disables the bound, so for
     * this key 0 is unbounded, not "smaller".
     */
    public static final String UNCOMMITTED_MAX_BYTES = "statestore.uncommitted.max.bytes";

    static final Map<String, Scope> KEYS;

    static {
        Map<String, Scope> keys = new LinkedHashMap<>();
        // The record cache: statestore.cache.max.bytes from Kafka Streams 3.4, cache.max.bytes.buffering before.
        keys.put(STATESTORE_CACHE, Scope.INSTANCE);
        keys.put(LEGACY_CACHE, Scope.INSTANCE);
        keys.put("buffered.records.per.partition", Scope.UNSCALED);
        // Transactional state stores (KIP-892, Kafka Streams 4.4): uncommitted writes of one instance.
        keys.put(UNCOMMITTED_MAX_BYTES, Scope.INSTANCE);
        keys.put("producer.buffer.memory", Scope.INSTANCE);
        keys.put("producer.batch.size", Scope.INSTANCE);
        for (String consumer : new String[] {"main", "restore", "global"}) {
            keys.put(consumer + ".consumer.fetch.max.bytes", Scope.INSTANCE);
            keys.put(consumer + ".consumer.max.partition.fetch.bytes", Scope.INSTANCE);
            keys.put(consumer + ".consumer.receive.buffer.bytes", Scope.UNSCALED);
        }
        KEYS = Collections.unmodifiableMap(keys);
    }

    private EngineKeys() {}

    public static boolean known(String key) {
        return KEYS.containsKey(key);
    }

    public static boolean instanceScoped(String key) {
        return KEYS.get(key) == Scope.INSTANCE;
    }
}
