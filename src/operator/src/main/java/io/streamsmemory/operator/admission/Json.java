package io.streamsmemory.operator.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Reading the pod as the API server sent it (JSON, so fields this code does not know survive). */
final class Json {
    private Json() {}

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
}
