package io.streamsmemory.operator.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Reading the pod as the API server sent it (JSON, so fields this code does not know survive). */
final class Json {
    private Json() {
    }

    /** The index of the first element of a list named {@code name}, or -1. */
    static int indexOfNamed(JsonNode list, String name) {
        if (!list.isArray() || name == null) {
            return -1;
        }
        for (int i = 0; i < list.size(); i++) {
            if (name.equals(list.get(i).path("name").asText())) {
                return i;
            }
        }
        return -1;
    }

    /** The index of the last element named {@code name} (for env: the one in force), or -1. */
    static int lastIndexOfNamed(JsonNode list, String name) {
        if (!list.isArray()) {
            return -1;
        }
        for (int i = list.size() - 1; i >= 0; i--) {
            if (name.equals(list.get(i).path("name").asText())) {
                return i;
            }
        }
        return -1;
    }

    static Iterable<JsonNode> iterable(JsonNode node) {
        return node.isArray() ? node : List.of();
    }

    /**
     * The first {@code envFrom} source of a container that may define {@code variable} ("ConfigMap x" or
     * "Secret y"): one whose prefix is empty or a start of the name. The webhook reads neither (no API call
     * while answering, and no access to Secrets), so it cannot tell whether the key is really there.
     */
    static String envFromThatMaySet(JsonNode container, String variable) {
        for (JsonNode source : iterable(container.path("envFrom"))) {
            if (!variable.startsWith(source.path("prefix").asText(""))) {
                continue;
            }
            if (source.has("configMapRef")) {
                return "ConfigMap " + source.path("configMapRef").path("name").asText();
            }
            if (source.has("secretRef")) {
                return "Secret " + source.path("secretRef").path("name").asText();
            }
        }
        return null;
    }
}
