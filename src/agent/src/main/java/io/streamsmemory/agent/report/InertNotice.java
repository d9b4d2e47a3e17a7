package io.streamsmemory.agent.report;

import io.streamsmemory.agent.hook.StreamsInstances;
import io.streamsmemory.agent.log.AgentLog;
import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * Says once, when a JVM that loaded the agent has built no KafkaStreams instance after a grace period, that the agent
 * applied nothing: an opted-in pod whose JVM is not (or not yet) a Kafka Streams application, such as a tool image or
 * a sidecar JVM, should read as such in its log rather than as an agent that silently did nothing. The agent stays
 * inert either way (it never changes a JVM that does not build KafkaStreams); a KafkaStreams instance built later is
 * still bounded as usual.
 *
 * <p>The grace period is {@code STREAMS_MEMORY_INERT_NOTICE_SECONDS} (default 120; 0 turns the notice off). The check
 * runs when the memory report is read (the operator reads each injected pod's report every interval), on the report's
 * own thread: the agent starts no thread of its own for it, and a JVM without the report endpoint hears nothing.
 */
public final class InertNotice {
    static final String SECONDS_ENV = "STREAMS_MEMORY_INERT_NOTICE_SECONDS";
    static final long DEFAULT_SECONDS = 120;

    private static volatile long graceSeconds = DEFAULT_SECONDS;

    private InertNotice() {}

    /** Reads the grace period once, at the agent's start. */
    public static void configure(Map<String, String> env) {
        graceSeconds = seconds(env.get(SECONDS_ENV));
    }

    /** Called at each report: logs the notice once the grace period has passed without a KafkaStreams instance. */
    static void onReport() {
        try {
            long seconds = graceSeconds;
            // Only a JVM whose KafkaStreams constructor the agent patched can tell "none was built".
            if (StreamsInstances.watching()
                    && seconds > 0
                    && ManagementFactory.getRuntimeMXBean().getUptime() >= seconds * 1000) {
                check(seconds, StreamsInstances.everConstructed());
            }
        } catch (Throwable ignored) {
            // a notice must never fail a report
        }
    }

    /** Logs the notice (once per JVM) unless a KafkaStreams instance was built; returns whether it logged. */
    static boolean check(long seconds, boolean streamsBuilt) {
        if (streamsBuilt) {
            return false;
        }
        return AgentLog.infoOnce(
                "inert",
                "no KafkaStreams instance was built in this JVM within " + seconds + " s: the allocation is not "
                        + "applied (nothing in this JVM was changed); the agent only serves its memory report");
    }

    /** The grace period in seconds; unset, blank or not a number gives the default. */
    static long seconds(String value) {
        if (value == null || value.isBlank()) {
            return DEFAULT_SECONDS;
        }
        try {
            return Math.max(0, Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            AgentLog.warnOnce(
                    "inert-seconds", SECONDS_ENV + "=" + value + " is not a whole number; using " + DEFAULT_SECONDS);
            return DEFAULT_SECONDS;
        }
    }
}
