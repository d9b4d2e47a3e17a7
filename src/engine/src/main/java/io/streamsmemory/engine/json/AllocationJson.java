package io.streamsmemory.engine.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.protocol.AllocationFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads and writes {@link AllocationDocument}s. */
public final class AllocationJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            // Readers of an older formatVersion-compatible document ignore fields added later.
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private AllocationJson() {}

    public static String write(Allocation allocation) {
        return toJson(AllocationDocument.of(allocation));
    }

    /** The failure form: the engine's errors and the least memory that would fit. */
    public static String writeErrors(AllocationResult result) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("apiVersion", AllocationFormat.API_VERSION);
        document.put("kind", AllocationFormat.KIND);
        document.put("formatVersion", AllocationFormat.FORMAT_VERSION);
        document.put("errors", result.errors());
        if (result.minimumMemoryBytes() != null) {
            document.put("minimumMemoryBytes", result.minimumMemoryBytes());
        }
        return toJson(document);
    }

    /**
     * Parses a document.
     *
     * @throws IllegalArgumentException when the text is not a complete allocation document
     */
    public static AllocationDocument read(String json) {
        try {
            AllocationDocument document = MAPPER.readValue(json, AllocationDocument.class);
            if (document == null) {
                throw new IllegalArgumentException("the allocation document is empty");
            }
            return document;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not an allocation document: " + e.getOriginalMessage(), e);
        }
    }

    private static String toJson(Object value) {
        try {
            return MAPPER.writeValueAsString(value) + System.lineSeparator();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("allocation documents are plain data", e);
        }
    }
}
