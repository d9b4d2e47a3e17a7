package io.streamsmemory.kafkabroker;

import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/** {@link KafkaBrokerLauncher}'s settings, read from environment variables; documented on that class. */
record BrokerSettings(
        String podIp,
        String bindAddress,
        int kafkaPort,
        int controllerPort,
        Path dataDir,
        int numPartitions,
        String clusterId) {

    /** @throws IllegalArgumentException naming the variable that is not valid */
    static BrokerSettings fromEnvironment(Map<String, String> env) {
        String clusterId = text(env, "CLUSTER_ID", null);
        if (clusterId == null) {
            clusterId = Uuid.randomUuid().toString(); // Kafka's own: never starts with '-', unlike any base64 id
        } else if (clusterId.startsWith("-")) {
            // The format tool's parser would take it for an option ("expected one argument").
            throw new IllegalArgumentException("CLUSTER_ID=" + clusterId + " must not start with '-'");
        }
        return new BrokerSettings(
                text(env, "POD_IP", "127.0.0.1"),
                text(env, "BIND_ADDRESS", "0.0.0.0"),
                port(env, "KAFKA_PORT", 9092),
                port(env, "CONTROLLER_PORT", 9093),
                Path.of(text(env, "DATA_DIR", "/tmp/kafka")).toAbsolutePath(),
                number(env, "NUM_PARTITIONS", 1, 1, 10_000),
                clusterId);
    }

    /** Kafka's {@code log.dirs}: the topics and the KRaft metadata log, next to server.properties. */
    Path logDir() {
        return dataDir.resolve("logs");
    }

    String advertisedListener() {
        return "PLAINTEXT://" + hostPort(podIp, kafkaPort);
    }

    String controllerAddress() {
        return hostPort(podIp, controllerPort);
    }

    /** An IPv6 address in a listener or a voter needs brackets. */
    static String hostPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** An unset or blank variable is the default: a manifest's {@code value: ""} means "not set". */
    private static String text(Map<String, String> env, String name, String fallback) {
        String value = env.get(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    private static int port(Map<String, String> env, String name, int fallback) {
        return number(env, name, fallback, 1, 65_535);
    }

    private static int number(Map<String, String> env, String name, int fallback, int min, int max) {
        String value = text(env, name, null);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below, with the variable's name
        }
        throw new IllegalArgumentException(name + "=" + value + " is not a whole number in [" + min + ", " + max + "]");
    }
}
