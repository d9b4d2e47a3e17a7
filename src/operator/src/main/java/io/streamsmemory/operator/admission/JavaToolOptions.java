package io.streamsmemory.operator.admission;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Merges the agent and the allocation's JVM flags into a user's {@code JAVA_TOOL_OPTIONS}: the user's value
 * first and unchanged, then {@code -javaagent:} and each allocation flag the user did not set. A heap setting
 * of the user's (-Xmx or a RAM percentage) keeps both -Xms and -Xmx of the allocation out.
 */
final class JavaToolOptions {
    static final String NAME = "JAVA_TOOL_OPTIONS";
    /** Flags that set the heap size: when the user sets one, the allocation's -Xms/-Xmx stay out. */
    private static final Set<String> HEAP_FLAGS = Set.of(
            "-Xmx",
            "-Xms",
            "-XX:MaxHeapSize",
            "-XX:InitialHeapSize",
            "-XX:MaxRAMPercentage",
            "-XX:InitialRAMPercentage",
            "-XX:MinRAMPercentage",
            "-XX:MaxRAM",
            "-XX:MaxRAMFraction",
            "-XX:InitialRAMFraction",
            "-XX:MinRAMFraction");

    private JavaToolOptions() {}

    /** The merged value; each allocation flag the user's setting overrides adds a warning. */
    static String merge(String user, String agentJar, List<String> allocationFlags, List<String> warnings) {
        List<String> userTokens = tokens(user);
        Set<String> userKeys = new LinkedHashSet<>();
        userTokens.forEach(t -> userKeys.add(flagKey(t)));
        boolean userHeap = userKeys.stream().anyMatch(HEAP_FLAGS::contains);
        List<String> merged = new ArrayList<>();
        if (!userTokens.isEmpty()) {
            merged.add(user.trim()); // as written: quoting and spacing inside are the user's
        }
        merged.add("-javaagent:" + agentJar);
        for (String flag : allocationFlags) {
            String key = flagKey(flag);
            boolean heapFlag = key.equals("-Xmx") || key.equals("-Xms");
            if (userKeys.contains(key) || (heapFlag && userHeap)) {
                warnings.add(String.format("%s keeps the user's setting instead of the allocation's %s", NAME, flag));
                continue;
            }
            merged.add(flag);
        }
        return String.join(" ", merged);
    }

    /** The whitespace-separated tokens of a value, as the JVM reads {@code JAVA_TOOL_OPTIONS} (quotes aside). */
    static List<String> tokens(String value) {
        return value == null || value.isBlank()
                ? List.of()
                : List.of(value.trim().split("\\s+"));
    }

    /** "-Xmx1g" -> "-Xmx", "-XX:MaxMetaspaceSize=97m" -> "-XX:MaxMetaspaceSize", "-XX:+UseG1GC" -> "-XX:UseG1GC", "-Da=b" -> "-Da". */
    static String flagKey(String token) {
        for (String prefix : List.of("-Xmx", "-Xms", "-Xss", "-Xmn")) {
            if (token.startsWith(prefix)) {
                return prefix;
            }
        }
        if (token.startsWith("-XX:")) {
            String rest = token.substring(4);
            if (rest.startsWith("+") || rest.startsWith("-")) {
                rest = rest.substring(1);
            }
            int eq = rest.indexOf('=');
            return "-XX:" + (eq < 0 ? rest : rest.substring(0, eq));
        }
        if (token.startsWith("-D")) {
            int eq = token.indexOf('=');
            return eq < 0 ? token : token.substring(0, eq);
        }
        return token;
    }
}
