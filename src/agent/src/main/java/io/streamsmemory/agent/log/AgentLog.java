package io.streamsmemory.agent.log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The agent's only output channel: single lines on standard error, prefixed so they are easy to find in any
 * application's log stream. The agent cannot assume a logging framework (it must not load the application's, or
 * change its initialisation order), so it writes directly.
 */
public final class AgentLog {
    public static final String PREFIX = "[streams-memory-agent] ";
    private static volatile Consumer<String> sink = line -> System.err.println(line);
    private static final Set<String> ONCE = ConcurrentHashMap.newKeySet();

    private AgentLog() {}

    public static void info(String message) {
        emit("INFO " + message);
    }

    public static void warn(String message) {
        emit("WARN " + message);
    }

    /** Warns the first time {@code key} is seen in this JVM; returns whether it warned. */
    public static boolean warnOnce(String key, String message) {
        if (ONCE.add("warn:" + key)) {
            warn(message);
            return true;
        }
        return false;
    }

    public static boolean infoOnce(String key, String message) {
        if (ONCE.add("info:" + key)) {
            info(message);
            return true;
        }
        return false;
    }

    private static void emit(String line) {
        try {
            sink.accept(PREFIX + line);
        } catch (Throwable ignored) {
            // Logging must never break the application.
        }
    }

    /** For tests: redirect output and forget what was logged once. Returns the previous sink. */
    static Consumer<String> redirect(Consumer<String> newSink) {
        Consumer<String> previous = sink;
        sink = newSink;
        ONCE.clear();
        return previous;
    }
}
