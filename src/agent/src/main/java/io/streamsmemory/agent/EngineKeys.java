package io.streamsmemory.agent;

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
final class EngineKeys {
    enum Scope {
        INSTANCE,
        UNSCALED
    }

    static final Map<String, Scope> KEYS;

    static {
        Map<String, Scope> keys = new LinkedHashMap<>();
        // The record cache: statestore.cache.max.bytes from Kafka Streams 3.4, cache.max.bytes.buffering before.
        keys.put(ConfigMerger.STATESTORE_CACHE, Scope.INSTANCE);
        keys.put(ConfigMerger.LEGACY_CACHE, Scope.INSTANCE);
        keys.put("buffered.records.per.partition", Scope.UNSCALED);
        // Transactional state stores (KIP-892, Kafka Streams 4.4): uncommitted writes of one instance.
        keys.put(ConfigMerger.UNCOMMITTED_MAX_BYTES, Scope.INSTANCE);
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

    static boolean known(String key) {
        return KEYS.containsKey(key);
    }

    static boolean instanceScoped(String key) {
        return KEYS.get(key) == Scope.INSTANCE;
    }
}
