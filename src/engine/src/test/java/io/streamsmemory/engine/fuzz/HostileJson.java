package io.streamsmemory.engine.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Inputs an attacker or a broken peer could send: arbitrary JSON values (wrong types, huge numbers and strings,
 * any Unicode), valid seed documents with some of their values replaced, removed or nested thousands of levels
 * deep, and bytes cut short or made invalid UTF-8. Shared by the agent's and the operator's fuzz targets (the
 * engine's test-jar); {@link #corpus} reads each target's corpus from the classpath of the module that runs it.
 */
public final class HostileJson {
    public static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** Strings that break number and quantity parsers that trust their input. */
    public static final List<String> TRICKY_TEXT = List.of(
            "",
            " ",
            "-0",
            "0",
            "NaN",
            "Infinity",
            "1e308",
            "1e999999999",
            "9999999999999999999Ei",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "2147483648",
            "1.5",
            "0.1Ki",
            "1Gi ",
            "\u0661\u0662\u0663", // Arabic-Indic digits
            "\uff11Gi", // a full-width 1
            "1Gi\u0000",
            "\ud800",
            "0x10",
            "1_000",
            "+1",
            "1e-3",
            "100m",
            "1E",
            "1EiB");

    private HostileJson() {}

    /** Any JSON value, containers at most {@code depth} deep. */
    public static Arbitrary<JsonNode> values(int depth) {
        return Arbitraries.recursive(HostileJson::leaves, HostileJson::containersOf, 0, depth);
    }

    public static Arbitrary<JsonNode> leaves() {
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(JSON.nullNode())),
                Tuple.of(1, Arbitraries.of(true, false).map(JSON::booleanNode)),
                Tuple.of(2, Arbitraries.longs().map(JSON::numberNode)),
                Tuple.of(
                        1,
                        Arbitraries.bigIntegers()
                                .between(BigInteger.TEN.pow(40).negate(), BigInteger.TEN.pow(40))
                                .map(JSON::numberNode)),
                Tuple.of(1, Arbitraries.of(1e308, -0.0, 0.5, -1.0, 4.9e-324).map(JSON::numberNode)),
                Tuple.of(2, Arbitraries.strings().ofMaxLength(20).map(JSON::textNode)),
                Tuple.of(2, Arbitraries.of(TRICKY_TEXT).map(JSON::textNode)),
                Tuple.of(1, Arbitraries.integers().between(10_000, 100_000).map(n -> JSON.textNode("x".repeat(n)))));
    }

    private static Arbitrary<JsonNode> containersOf(Arbitrary<JsonNode> element) {
        Arbitrary<JsonNode> arrays = element.list().ofMaxSize(4).map(list -> {
            ArrayNode array = JSON.arrayNode();
            list.forEach(array::add);
            return array;
        });
        Arbitrary<String> keys = Arbitraries.oneOf(
                Arbitraries.of("name", "value", "metadata", "spec", "annotations", "containers", "env"),
                Arbitraries.strings().ofMaxLength(10));
        Arbitrary<JsonNode> objects = Arbitraries.maps(keys, element)
                .ofMaxSize(4)
                .map(map -> {
                    ObjectNode object = JSON.objectNode();
                    map.forEach(object::set);
                    return object;
                });
        return Arbitraries.oneOf(element, arrays, objects);
    }

    /** One change to a document: at the {@code slot}-th value (in document order), what to do. */
    public record Mutation(int slot, Kind kind, JsonNode value, int depth) {
        public enum Kind {
            REPLACE,
            REMOVE,
            NEST_DEEP
        }
    }

    public static Arbitrary<List<Mutation>> mutations() {
        Arbitrary<Mutation> one = Combinators.combine(
                        Arbitraries.integers().greaterOrEqual(0),
                        Arbitraries.frequency(
                                Tuple.of(6, Mutation.Kind.REPLACE),
                                Tuple.of(2, Mutation.Kind.REMOVE),
                                Tuple.of(1, Mutation.Kind.NEST_DEEP)),
                        values(3),
                        Arbitraries.integers().between(1, 20_000))
                .as(Mutation::new);
        return one.list().ofMinSize(1).ofMaxSize(4);
    }

    /** The seed with the mutations applied, as text (nesting too deep for a serializer is written as text). */
    public static String mutated(JsonNode seed, List<Mutation> mutations) {
        JsonNode document = seed.deepCopy();
        List<String> deep = new ArrayList<>();
        for (Mutation mutation : mutations) {
            List<Slot> slots = slots(document);
            if (slots.isEmpty()) {
                break;
            }
            Slot slot = slots.get(mutation.slot() % slots.size());
            switch (mutation.kind()) {
                case REPLACE -> slot.set(mutation.value());
                case REMOVE -> slot.remove();
                case NEST_DEEP -> {
                    slot.set(JSON.textNode(placeholder(deep.size())));
                    deep.add(nested(mutation.depth(), mutation.slot() % 2 == 0));
                }
            }
        }
        String text = document.toString();
        for (int i = 0; i < deep.size(); i++) {
            text = text.replace("\"" + placeholder(i) + "\"", deep.get(i));
        }
        return text;
    }

    private static String placeholder(int i) {
        return "@@deep-" + i + "@@";
    }

    /** The seed with some of its values replaced, removed or nested deep ({@link #mutations}), as text. */
    public static Arbitrary<String> mutatedFrom(JsonNode seed) {
        return mutations().map(mutations -> mutated(seed, mutations));
    }

    /**
     * The seed mutated ({@link #mutatedFrom}), then cut at up to {@code maxLength} bytes with {@link #garbage} written
     * over it at up to {@code maxLength}: bytes cut short or not UTF-8.
     */
    public static Arbitrary<byte[]> damagedFrom(JsonNode seed, int maxLength) {
        return Combinators.combine(
                        mutations(),
                        Arbitraries.integers().between(0, maxLength),
                        Arbitraries.integers().between(0, maxLength),
                        garbage())
                .as((mutations, cut, at, garbage) -> damaged(mutated(seed, mutations), cut, at, garbage));
    }

    /** {@code depth} arrays (or objects) inside each other. */
    public static String nested(int depth, boolean arrays) {
        return arrays ? "[".repeat(depth) + "]".repeat(depth) : "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
    }

    /** Bytes cut at {@code cut} (when below the length) with {@code garbage} written over them at {@code at}. */
    public static byte[] damaged(String text, int cut, int at, byte[] garbage) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        byte[] result = java.util.Arrays.copyOf(bytes, Math.min(bytes.length, cut));
        for (int i = 0; i < garbage.length && result.length > 0; i++) {
            result[(at + i) % result.length] = garbage[i];
        }
        return result;
    }

    /** Bytes that are not UTF-8 (lone continuation bytes, overlong forms, surrogates, 0xFF) or random. */
    public static Arbitrary<byte[]> garbage() {
        return Arbitraries.oneOf(
                Arbitraries.of(
                        new byte[] {(byte) 0x80},
                        new byte[] {(byte) 0xC0, (byte) 0xAF},
                        new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                        new byte[] {(byte) 0xFF, (byte) 0xFE},
                        new byte[] {'"'},
                        new byte[] {'\\'},
                        new byte[] {0}),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(8));
    }

    private record Slot(JsonNode parent, String field, int index) {
        void set(JsonNode value) {
            if (parent instanceof ObjectNode object) {
                object.set(field, value);
            } else {
                ((ArrayNode) parent).set(index, value);
            }
        }

        void remove() {
            if (parent instanceof ObjectNode object) {
                object.remove(field);
            } else {
                ((ArrayNode) parent).remove(index);
            }
        }
    }

    /** Every value of the document but the root, in document order. */
    private static List<Slot> slots(JsonNode node) {
        List<Slot> slots = new ArrayList<>();
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> entry : object.properties()) {
                slots.add(new Slot(object, entry.getKey(), -1));
                slots.addAll(slots(entry.getValue()));
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                slots.add(new Slot(array, null, i));
                slots.addAll(slots(array.get(i)));
            }
        }
        return slots;
    }

    public static JsonNode tree(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The files of a corpus directory on the test class path ({@code src/test/resources/fuzz/<target>/}). */
    public static List<Path> corpus(String target) {
        URL directory = HostileJson.class.getResource("/fuzz/" + target);
        if (directory == null) {
            throw new IllegalStateException("no corpus src/test/resources/fuzz/" + target);
        }
        try (Stream<Path> files = Files.list(Path.of(directory.toURI()))) {
            return files.sorted().toList();
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The bytes of each file of a corpus ({@link #corpus}). */
    public static List<byte[]> corpusBytes(String target) {
        return corpus(target).stream().map(HostileJson::bytes).toList();
    }

    /** A seed document of a corpus, by file name. */
    public static JsonNode seed(String target, String file) {
        return tree(new String(
                bytes(corpus(target).stream()
                        .filter(p -> p.getFileName().toString().equals(file))
                        .findFirst()
                        .orElseThrow()),
                StandardCharsets.UTF_8));
    }

    public static byte[] bytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
