package io.streamsmemory.agent.config;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/** A {@link KafkaCatalog} read by reflection from the Kafka classes next to a given StreamsConfig class. */
public final class ReflectiveKafkaCatalog implements KafkaCatalog {
    private static final ClassValue<KafkaCatalog> CACHE = new ClassValue<>() {
        @Override
        protected KafkaCatalog computeValue(Class<?> streamsConfigClass) {
            return new ReflectiveKafkaCatalog(streamsConfigClass);
        }
    };

    private final String version;
    private final String unsupportedReason;
    private final Map<Client, Set<String>> names = new EnumMap<>(Client.class);
    private final Map<Client, Map<String, Object>> defaults = new EnumMap<>(Client.class);
    private final Map<Client, Map<String, ?>> configKeys = new EnumMap<>(Client.class);
    private Method parseType;
    private Method ensureValid;

    public static KafkaCatalog of(Class<?> streamsConfigClass) {
        return CACHE.get(streamsConfigClass);
    }

    @SuppressWarnings("unchecked")
    private ReflectiveKafkaCatalog(Class<?> streamsConfigClass) {
        ClassLoader loader = streamsConfigClass.getClassLoader();
        String found = readVersion(streamsConfigClass, loader);
        String reason = KafkaCatalog.supportReason(found);
        if (reason == null) {
            try {
                read(Client.STREAMS, streamsConfigClass);
                read(Client.CONSUMER, Class.forName("org.apache.kafka.clients.consumer.ConsumerConfig", false, loader));
                read(Client.PRODUCER, Class.forName("org.apache.kafka.clients.producer.ProducerConfig", false, loader));
                try {
                    read(
                            Client.ADMIN,
                            Class.forName("org.apache.kafka.clients.admin.AdminClientConfig", false, loader));
                } catch (ReflectiveOperationException | LinkageError e) {
                    names.put(Client.ADMIN, Collections.emptySet());
                    defaults.put(Client.ADMIN, Collections.emptyMap());
                    configKeys.put(Client.ADMIN, Collections.emptyMap());
                }
                readValidation(loader);
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                reason = "its config definitions cannot be read (" + e + ")";
            }
        }
        this.version = found;
        this.unsupportedReason = reason;
    }

    @SuppressWarnings("unchecked")
    private void read(Client client, Class<?> configClass) throws ReflectiveOperationException {
        Method configDef = configClass.getMethod("configDef");
        Object def = configDef.invoke(null);
        Set<String> keys = (Set<String>) def.getClass().getMethod("names").invoke(def);
        Map<String, Object> values =
                (Map<String, Object>) def.getClass().getMethod("defaultValues").invoke(def);
        names.put(client, Set.copyOf(keys));
        defaults.put(client, Collections.unmodifiableMap(new HashMap<>(values)));
        configKeys.put(
                client, (Map<String, ?>) def.getClass().getMethod("configKeys").invoke(def));
    }

    /** ConfigDef.parseType(name, value, type) and Validator.ensureValid(name, value), of the application's Kafka. */
    private void readValidation(ClassLoader loader) throws ReflectiveOperationException {
        Class<?> configDef = Class.forName("org.apache.kafka.common.config.ConfigDef", false, loader);
        Class<?> type = Class.forName("org.apache.kafka.common.config.ConfigDef$Type", false, loader);
        Class<?> validator = Class.forName("org.apache.kafka.common.config.ConfigDef$Validator", false, loader);
        parseType = configDef.getMethod("parseType", String.class, Object.class, type);
        ensureValid = validator.getMethod("ensureValid", String.class, Object.class);
    }

    /**
     * Kafka Streams' own version file (what it logs as "Kafka Streams version"), then kafka-clients' AppInfoParser
     * (moved to an internals package in 4.x), then the jar manifest.
     */
    private static String readVersion(Class<?> streamsConfigClass, ClassLoader loader) {
        try (InputStream in = streamsConfigClass.getResourceAsStream("/kafka/kafka-streams-version.properties")) {
            if (in != null) {
                Properties props = new Properties();
                props.load(in);
                String value = props.getProperty("version");
                if (value != null && !value.isBlank() && !"unknown".equals(value.trim())) {
                    return value.trim();
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // try the next source
        }
        for (String name : new String[] {
            "org.apache.kafka.common.utils.AppInfoParser", "org.apache.kafka.common.utils.internals.AppInfoParser"
        }) {
            try {
                Class<?> appInfo = Class.forName(name, false, loader);
                Object value = appInfo.getMethod("getVersion").invoke(null);
                if (value != null && !"unknown".equals(value)) {
                    return value.toString();
                }
            } catch (ReflectiveOperationException | LinkageError | RuntimeException ignored) {
                // try the next source
            }
        }
        Package pkg = streamsConfigClass.getPackage();
        String implementation = pkg == null ? null : pkg.getImplementationVersion();
        return implementation == null ? "unknown" : implementation;
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public String unsupportedReason() {
        return unsupportedReason;
    }

    @Override
    public boolean knows(Client client, String key) {
        return names.getOrDefault(client, Set.of()).contains(key);
    }

    @Override
    public String rejects(Client client, String key, Object value) {
        Object configKey = configKeys.getOrDefault(client, Map.of()).get(key);
        if (configKey == null || parseType == null) {
            return "Kafka " + version + " has no definition of " + key;
        }
        try {
            Object type = configKey.getClass().getField("type").get(configKey);
            Object parsed = parseType.invoke(null, key, value, type);
            Object validator = configKey.getClass().getField("validator").get(configKey);
            if (validator != null) {
                ensureValid.invoke(validator, key, parsed);
            }
            return null;
        } catch (InvocationTargetException e) {
            // Kafka's ConfigException: its message names the key, the value and the rule.
            return String.valueOf(e.getCause() == null ? e : e.getCause().getMessage());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return "its ConfigDef could not check the value (" + e + ")";
        }
    }

    @Override
    public Object defaultValue(Client client, String key) {
        return defaults.getOrDefault(client, Map.of()).get(key);
    }
}
