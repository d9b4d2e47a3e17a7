package io.streamsmemory.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one JSON codec of {@link AgentReportDocument}: the agent writes with it, the operator reads with it. The form:
 * {@code formatVersion}, the words, one object per section of whole-number figures, then {@code unexplainedBytes}.
 */
public final class ReportJson {
    static final String FORMAT_VERSION = "formatVersion";
    static final String UNEXPLAINED_BYTES = "unexplainedBytes";
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final ObjectMapper READER = new ObjectMapper();

    private ReportJson() {}

    public static String write(AgentReportDocument report) {
        StringWriter out = new StringWriter(1024);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.writeStartObject();
            json.writeNumberField(FORMAT_VERSION, AgentReportDocument.FORMAT_VERSION);
            for (Map.Entry<String, String> word : report.words().entrySet()) {
                json.writeStringField(word.getKey(), word.getValue());
            }
            for (Map.Entry<String, Map<String, Long>> section :
                    report.sections().entrySet()) {
                json.writeObjectFieldStart(section.getKey());
                for (Map.Entry<String, Long> figure : section.getValue().entrySet()) {
                    json.writeNumberField(figure.getKey(), figure.getValue());
                }
                json.writeEndObject();
            }
            if (report.unexplainedBytes() != null) {
                json.writeNumberField(UNEXPLAINED_BYTES, report.unexplainedBytes());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /**
     * Reads a report of this format version. What is not a string where a word is, or not a whole number that fits a
     * long where a figure is, is left out (unknown): {@code 2^64 + 1} must not read as 1. Fields this reader does not
     * know are ignored, so a newer agent's report reads too.
     *
     * @throws IllegalArgumentException when the body is not JSON or not a report of {@link
     *     AgentReportDocument#FORMAT_VERSION}
     */
    public static AgentReportDocument read(byte[] body) {
        JsonNode root;
        try {
            root = READER.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
        if (root == null
                || !root.isObject()
                || root.path(FORMAT_VERSION).asInt(-1) != AgentReportDocument.FORMAT_VERSION) {
            throw new IllegalArgumentException("not a format " + AgentReportDocument.FORMAT_VERSION + " agent report");
        }
        Map<String, String> words = new LinkedHashMap<>();
        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = root.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = field.getValue();
            if (value.isTextual()) {
                words.put(field.getKey(), value.asText());
            } else if (value.isObject()) {
                sections.put(field.getKey(), figures(value));
            }
        }
        JsonNode unexplained = root.path(UNEXPLAINED_BYTES);
        return new AgentReportDocument(words, sections, wholeLong(unexplained) ? unexplained.asLong() : null);
    }

    private static Map<String, Long> figures(JsonNode section) {
        Map<String, Long> figures = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = section.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> figure = fields.next();
            if (wholeLong(figure.getValue())) {
                figures.put(figure.getKey(), figure.getValue().asLong());
            }
        }
        return figures;
    }

    /** asLong() of a larger number keeps its low 64 bits (found by the operator's AgentReportFuzzTest). */
    private static boolean wholeLong(JsonNode node) {
        return node.isIntegralNumber() && node.canConvertToLong();
    }
}
