package io.streamsmemory.operator.observe;

import io.streamsmemory.engine.JvmCap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * An injected container kubelet keeps restarting after its JVM exited with an error: the caps the operator set may be
 * what stops it, and the operator never keeps a workload in a crash loop it caused.
 *
 * @param pod      the pod's name
 * @param container the injected container
 * @param restarts its restart count
 * @param exitCode how its last run ended
 * @param message  the last run's termination message (the end of its log when the pod asks kubelet for it), may be
 *                 null; read only for the two errors a cap causes, never logged or published
 */
public record CrashLoop(String pod, String container, int restarts, int exitCode, String message) {
    /** What the JVM prints when {@code -XX:MaxMetaspaceSize} stops it. */
    static final String METASPACE_ERROR = "OutOfMemoryError: Metaspace";
    /** What the JDK throws when {@code -XX:MaxDirectMemorySize} refuses a buffer. */
    static final String DIRECT_ERROR = "OutOfMemoryError: Direct buffer memory";

    /** The caps the termination message names; empty when it names none (or there is none). */
    public Set<JvmCap> namedCaps() {
        EnumSet<JvmCap> named = EnumSet.noneOf(JvmCap.class);
        if (message != null && message.contains(METASPACE_ERROR)) {
            named.add(JvmCap.METASPACE);
        }
        if (message != null && message.contains(DIRECT_ERROR)) {
            named.add(JvmCap.DIRECT_MEMORY);
        }
        return named;
    }

    /** As the Event and the row say it. */
    public String describe() {
        Set<JvmCap> named = namedCaps();
        return String.format(
                Locale.ROOT,
                "container %s of pod %s restarted %d times, its JVM last exiting with code %d%s",
                container,
                pod,
                restarts,
                exitCode,
                named.isEmpty()
                        ? " (its termination message names no cap)"
                        : " on "
                                + String.join(
                                        " and ",
                                        named.stream()
                                                .map(cap -> cap == JvmCap.METASPACE ? METASPACE_ERROR : DIRECT_ERROR)
                                                .toList()));
    }
}
