package io.streamsmemory.operator.admission;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The only JVM flags the webhook lets from a ConfigMap into {@code JAVA_TOOL_OPTIONS}: the ones the engine
 * ({@code io.streamsmemory.engine.AllocationEngine}) emits, each with a value of the form it writes. Anyone
 * who can edit ConfigMaps in a namespace could otherwise add {@code -XX:OnError=...} or a second
 * {@code -javaagent} to every pod. {@code EngineJvmFlagsTest} runs the engine and checks that this list still
 * accepts all it emits.
 */
public final class EngineJvmFlags {
    /** A JVM size as the engine writes it: digits and an optional k, m or g (binary units). */
    private static final String SIZE = "([0-9]{1,15})([kKmMgG]?)";
    /** Flag prefix -> the form of its value. */
    private static final Map<String, Pattern> FLAGS = Map.of(
            "-Xms", Pattern.compile(SIZE),
            "-Xmx", Pattern.compile(SIZE),
            "-Xss", Pattern.compile(SIZE),
            "-XX:MaxMetaspaceSize=", Pattern.compile(SIZE),
            "-XX:ReservedCodeCacheSize=", Pattern.compile(SIZE),
            "-XX:MaxDirectMemorySize=", Pattern.compile(SIZE),
            "-Djdk.nio.maxCachedBufferSize=", Pattern.compile("([0-9]{1,15})()"));

    static final String HEAP = "-Xmx";

    private EngineJvmFlags() {}

    /**
     * What is wrong with {@code flags} for a pod of {@code memoryBytes}: a flag the engine does not emit, a
     * value not of its form, zero or more than the pod's memory, or a flag given twice. Empty when all is well.
     */
    public static List<String> problems(List<String> flags, long memoryBytes) {
        List<String> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String flag : flags) {
            String prefix = prefixOf(flag);
            if (prefix == null) {
                problems.add("\"" + flag + "\" is not a flag the operator sets");
            } else if (!seen.add(prefix)) {
                problems.add("\"" + flag + "\" sets " + prefix + " a second time");
            } else {
                Long bytes = bytes(prefix, flag);
                if (bytes == null || bytes <= 0 || bytes > memoryBytes) {
                    problems.add("\"" + flag + "\" has no value between 1 byte and the pod's memory");
                }
            }
        }
        return problems;
    }

    /** The value of {@code prefix} in {@code flags} in bytes, or null when absent or malformed. */
    public static Long valueOf(List<String> flags, String prefix) {
        for (String flag : flags) {
            if (prefix.equals(prefixOf(flag))) {
                return bytes(prefix, flag);
            }
        }
        return null;
    }

    private static String prefixOf(String flag) {
        for (String prefix : FLAGS.keySet()) {
            if (flag != null && flag.startsWith(prefix)) {
                return prefix;
            }
        }
        return null;
    }

    private static Long bytes(String prefix, String flag) {
        Matcher matcher = FLAGS.get(prefix).matcher(flag.substring(prefix.length()));
        if (!matcher.matches()) {
            return null;
        }
        int shift = switch (matcher.group(2).toLowerCase()) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        long value = Long.parseLong(matcher.group(1));
        return value > (Long.MAX_VALUE >> shift) ? null : value << shift;
    }
}
