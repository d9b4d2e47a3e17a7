package io.streamsmemory.operator.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a container's {@code envFrom} sets a variable, so that an injected {@code env} entry of that name
 * would silently replace the user's value (an {@code env} entry wins over every {@code envFrom} source).
 *
 * <p>A ConfigMap is read, so an {@code envFrom} that only brings the application's own settings (the common
 * case) does not stop the injection. A Secret is never read (the operator has no access to Secrets, on
 * purpose), so a Secret that could set the variable counts as setting it; so does a ConfigMap that cannot be
 * read in time, or does not exist yet (it may be created with the variable before the pod starts). The
 * ConfigMap is read once, at admission: a key added to it later does not reach pods created before.
 */
final class EnvFromSources {

    /** Reads a ConfigMap of the pod's namespace: null when it does not exist; throws when it cannot be read. */
    @FunctionalInterface
    interface ConfigMapReader {
        ConfigMap read(String name) throws Exception;
    }

    private static final Object NOT_FOUND = new Object();

    private EnvFromSources() {}

    /** A reader that reads each ConfigMap at most once (one admission asks about several variables). */
    static ConfigMapReader readingEachOnce(ConfigMapReader reader) {
        Map<String, Object> read = new HashMap<>();
        return name -> {
            Object result = read.computeIfAbsent(name, key -> {
                try {
                    ConfigMap configMap = reader.read(key);
                    return configMap == null ? NOT_FOUND : configMap;
                } catch (Exception e) {
                    return e;
                }
            });
            if (result instanceof Exception e) {
                throw e;
            }
            return result == NOT_FOUND ? null : (ConfigMap) result;
        };
    }

    /**
     * The {@code envFrom} source that sets (or may set) {@code variable}, described for the user
     * ("ConfigMap jvm-options (envFrom)", "Secret s (envFrom), which the operator does not read"), or null when
     * none does.
     */
    static String sourceSetting(JsonNode container, String variable, ConfigMapReader configMaps) {
        for (JsonNode source : Json.iterable(container.path("envFrom"))) {
            String prefix = source.path("prefix").asText("");
            if (!variable.startsWith(prefix)) {
                continue;
            }
            if (source.has("secretRef")) {
                return "Secret " + source.path("secretRef").path("name").asText() + " (envFrom), which the operator "
                        + "does not read";
            }
            if (source.has("configMapRef")) {
                String found =
                        configMapSetting(source.path("configMapRef"), variable.substring(prefix.length()), configMaps);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static String configMapSetting(JsonNode reference, String key, ConfigMapReader configMaps) {
        String name = reference.path("name").asText();
        ConfigMap configMap;
        try {
            configMap = configMaps.read(name);
        } catch (Exception e) {
            return "ConfigMap " + name + " (envFrom), which could not be read ("
                    + e.getClass().getSimpleName() + ")";
        }
        if (configMap == null) {
            return reference.path("optional").asBoolean(false)
                    ? null
                    : "ConfigMap " + name + " (envFrom), which does not exist yet";
        }
        boolean hasKey = (configMap.getData() != null && configMap.getData().containsKey(key))
                || (configMap.getBinaryData() != null
                        && configMap.getBinaryData().containsKey(key));
        return hasKey ? "ConfigMap " + name + " (envFrom)" : null;
    }
}
