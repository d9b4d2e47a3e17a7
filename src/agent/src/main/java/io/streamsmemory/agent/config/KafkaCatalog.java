package io.streamsmemory.agent.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the application's own Kafka Streams knows: its version, which config keys each client accepts, and their
 * defaults. Read from the application's classes, so the agent follows whatever version it brings.
 */
public interface KafkaCatalog {
    enum Client {
        STREAMS,
        CONSUMER,
        PRODUCER,
        ADMIN
    }

    /** The version text, e.g. "4.4.0". */
    String version();

    /** Null when this version is supported, otherwise why not. */
    String unsupportedReason();

    boolean knows(Client client, String key);

    /** The client's default for a key, or null when it has none or the key is unknown. */
    Object defaultValue(Client client, String key);

    /**
     * Null when the application's own {@code ConfigDef} accepts {@code value} for {@code key} (parsed to the key's type,
     * then checked by its validator), otherwise Kafka's reason. What the agent sets must never make the application's
     * clients refuse to start.
     */
    String rejects(Client client, String key, Object value);

    /** The range of Kafka Streams versions the agent applies allocations to. */
    static String supportReason(String version) {
        Matcher parsed = version == null
                ? null
                : Pattern.compile("^(\\d+)\\.(\\d+)(?:[.-].*)?$").matcher(version.trim());
        if (parsed == null || !parsed.matches()) {
            return "its version \"" + version + "\" cannot be read";
        }
        int major = Integer.parseInt(parsed.group(1));
        int minor = Integer.parseInt(parsed.group(2));
        // 2.8 has every key and hook the agent uses (client prefixes, RocksDBConfigSetter#close, the
        // property-based RocksDB metrics); 5.x may rename or drop keys this agent was not written for.
        boolean tooOld = major < 2 || (major == 2 && minor < 8);
        boolean tooNew = major >= 5;
        if (tooOld || tooNew) {
            return "Kafka Streams " + version + " is outside the supported range 2.8 to 4.x";
        }
        return null;
    }
}
