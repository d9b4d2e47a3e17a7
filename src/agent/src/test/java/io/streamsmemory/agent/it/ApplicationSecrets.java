package io.streamsmemory.agent.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Credentials as a Kafka Streams application's own configuration carries them (Kafka's SASL and SSL passwords,
 * prefixed for one client too, and Schema Registry's basic auth), each value marked with {@link #MARKER} so that
 * a test can look for any of them in whatever the agent and the operator write. The broker is PLAINTEXT, so Kafka
 * ignores them and the application runs as without.
 */
public final class ApplicationSecrets {
    /** In every secret value, and in nothing else. */
    public static final String MARKER = "S3CRET";

    public static final Map<String, String> CONFIG = secrets();

    private ApplicationSecrets() {}

    private static Map<String, String> secrets() {
        Map<String, String> secrets = new LinkedHashMap<>();
        secrets.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"orders\" " + "password=\""
                        + MARKER + "-jaas\";");
        secrets.put("ssl.keystore.password", MARKER + "-keystore");
        secrets.put("ssl.key.password", MARKER + "-key");
        secrets.put("ssl.truststore.password", MARKER + "-truststore");
        secrets.put("main.consumer.ssl.key.password", MARKER + "-prefixed");
        secrets.put("basic.auth.user.info", "orders:" + MARKER + "-basic-auth");
        return Map.copyOf(secrets);
    }

    /** The secrets as a properties file in {@code dir}, as a Secret mounted into the pod would give them. */
    public static Path write(Path dir) throws IOException {
        Properties properties = new Properties();
        properties.putAll(CONFIG);
        Files.createDirectories(dir);
        Path file = dir.resolve("application-secrets.properties");
        try (var writer = Files.newBufferedWriter(file)) {
            properties.store(writer, "an application's credentials (test values)");
        }
        return file;
    }
}
