package io.streamsmemory.agent.allocation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Properties;

/**
 * Finds and reads the allocation file. Every failure becomes one sentence for the single warning the agent prints;
 * nothing here throws.
 */
public final class AllocationLoader {
    static final String ENV = "STREAMS_MEMORY_ALLOCATION";
    static final String PROPERTY = "streamsmemory.allocation";
    /** An allocation is a few KiB; a file far larger than that is not one (and is not worth reading). */
    static final long MAX_FILE_BYTES = 4L << 20;

    private static final ObjectMapper TREE = new ObjectMapper();

    /** Either an allocation or the reason there is none. */
    public static final class Result {
        private final AgentAllocation allocation;
        private final String problem;

        private Result(AgentAllocation allocation, String problem) {
            this.allocation = allocation;
            this.problem = problem;
        }

        public static Result ok(AgentAllocation allocation) {
            return new Result(allocation, null);
        }

        static Result fail(String problem) {
            return new Result(null, problem);
        }

        public AgentAllocation allocation() {
            return allocation;
        }

        public String problem() {
            return problem;
        }
    }

    private AllocationLoader() {}

    public static Result load(Map<String, String> env, Properties properties) {
        try {
            String fromProperty = properties == null ? null : properties.getProperty(PROPERTY);
            String fromEnv = env == null ? null : env.get(ENV);
            String location;
            String origin;
            if (fromProperty != null && !fromProperty.isBlank()) {
                location = fromProperty.trim();
                origin = "system property " + PROPERTY;
            } else if (fromEnv != null && !fromEnv.isBlank()) {
                location = fromEnv.trim();
                origin = "environment variable " + ENV;
            } else {
                return Result.fail("no allocation file: neither the environment variable " + ENV
                        + " nor the system property " + PROPERTY + " names one");
            }
            return read(location, origin);
        } catch (Throwable t) {
            return Result.fail("could not read the allocation: " + t);
        }
    }

    public static Result read(String location, String origin) {
        Path path;
        try {
            path = Paths.get(location);
        } catch (InvalidPathException e) {
            return Result.fail("the allocation file named by " + origin + " is not a valid path: " + location);
        }
        String where = path + " (" + origin + ")";
        if (!Files.exists(path)) {
            return Result.fail("the allocation file " + where + " does not exist");
        }
        if (!Files.isRegularFile(path)) {
            return Result.fail("the allocation file " + where + " is not a regular file");
        }
        String text;
        try {
            long size = Files.size(path);
            if (size > MAX_FILE_BYTES) {
                return Result.fail("the allocation file " + where + " has " + size
                        + " bytes, far more than an allocation document");
            }
            byte[] bytes = Files.readAllBytes(path);
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return Result.fail("the allocation file " + where + " is garbled: it is not UTF-8 text");
        } catch (IOException | SecurityException e) {
            return Result.fail("the allocation file " + where + " cannot be read: " + e);
        }
        return parse(text, path.toString(), where);
    }

    static Result parse(String text, String source, String where) {
        if (text == null || text.isBlank()) {
            return Result.fail("the allocation file " + where + " is empty");
        }
        JsonNode tree;
        try {
            tree = TREE.readTree(text);
        } catch (IOException e) {
            return Result.fail("the allocation file " + where + " is not complete JSON (truncated or garbled): "
                    + firstLine(e.getMessage()));
        }
        if (tree == null || !tree.isObject()) {
            return Result.fail("the allocation file " + where + " does not hold a JSON object");
        }
        if (tree.has("errors") && !tree.has("streamsConfig")) {
            return Result.fail("the allocation file " + where + " holds the engine's errors, not an allocation: "
                    + tree.get("errors"));
        }
        try {
            return Result.ok(AgentAllocation.of(tree, source));
        } catch (IllegalArgumentException e) {
            return Result.fail(
                    "the allocation file " + where + " is not a usable allocation: " + firstLine(e.getMessage()));
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
