package io.streamsmemory.examples;

import java.nio.file.Path;
import java.util.Map;

/** {@link OrdersStreamsApp}'s settings, read from environment variables; documented on that class. */
record AppSettings(
        String bootstrapServers,
        String applicationId,
        Path stateDir,
        int streamThreads,
        int inputPartitions,
        int producePerSecond,
        int keys,
        int orderBytes,
        Long recordCacheBytes,
        int nativeLeakMibPerMinute,
        int extraClasses,
        int directMib) {

    /** @throws IllegalArgumentException naming the variable that is missing or not a valid number */
    static AppSettings fromEnvironment(Map<String, String> env) {
        String bootstrap = text(env, "BOOTSTRAP_SERVERS", null);
        if (bootstrap == null) {
            throw new IllegalArgumentException("BOOTSTRAP_SERVERS is required (host:port[,host:port...])");
        }
        return new AppSettings(
                bootstrap,
                text(env, "APPLICATION_ID", "orders-streams"),
                Path.of(text(env, "STATE_DIR", "/tmp/kafka-streams")),
                number(env, "STREAM_THREADS", 2, 1),
                number(env, "INPUT_PARTITIONS", 6, 1),
                number(env, "PRODUCE_PER_SECOND", 10, 0),
                number(env, "KEYS", 10_000, 1),
                number(env, "ORDER_BYTES", 0, 0),
                text(env, "RECORD_CACHE_BYTES", null) == null ? null : (long) number(env, "RECORD_CACHE_BYTES", 0, 0),
                number(env, "NATIVE_LEAK_MIB_PER_MINUTE", 0, 0),
                number(env, "EXTRA_CLASSES", 0, 0),
                number(env, "DIRECT_MIB", 0, 0));
    }

    /** An unset or blank variable is the default: a manifest's {@code value: ""} means "not set". */
    private static String text(Map<String, String> env, String name, String fallback) {
        String value = env.get(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    static int number(Map<String, String> env, String name, int fallback, int min) {
        String value = text(env, name, null);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below, with the variable's name
        }
        throw new IllegalArgumentException(name + "=" + value + " is not a whole number >= " + min);
    }
}
