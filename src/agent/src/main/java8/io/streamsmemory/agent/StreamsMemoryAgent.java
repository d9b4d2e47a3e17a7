package io.streamsmemory.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;

/**
 * The {@code Premain-Class} and {@code Agent-Class} of the jar, compiled for Java 8 (class file 52) so that any JVM
 * the webhook injects it into can load it. The rest of the agent is compiled for Java 11, the floor of the Kafka
 * Streams 3.x/4.x clients: on an older JVM, loading it would fail with UnsupportedClassVersionError and the JVM
 * would abort ("processing of -javaagent failed"), crash-looping the pod.
 *
 * <p>So this class checks the running version first and names the real agent only as a string: nothing compiled
 * above Java 8 is loaded before the check (AgentEntryBytecodeTest reads this class's constant pool, and a forked JVM
 * with {@code -Xlog:class+load} shows it). It deliberately uses no other class of the agent, not even its logger.
 * Never throws: whatever goes wrong is one warning line and the application runs on its own settings.
 */
public final class StreamsMemoryAgent {
    /** The first Java version the agent proper runs on. */
    static final int MINIMUM_JAVA = 11;
    private static final String AGENT = "io.streamsmemory.agent.AgentMain";
    private static final String PREFIX = "[streams-memory-agent] WARN ";

    private StreamsMemoryAgent() {
    }

    public static void premain(String args, Instrumentation instrumentation) {
        start(instrumentation, false);
    }

    public static void agentmain(String args, Instrumentation instrumentation) {
        start(instrumentation, true);
    }

    private static void start(Instrumentation instrumentation, boolean attached) {
        try {
            String version = System.getProperty("java.specification.version");
            int feature = featureVersion(version);
            if (feature < MINIMUM_JAVA) {
                System.err.println(PREFIX + "streams-memory-agent is not active: Java " + version + " is below "
                        + MINIMUM_JAVA + "; the application runs on its own settings");
                return;
            }
            Class<?> agent = Class.forName(AGENT, true, StreamsMemoryAgent.class.getClassLoader());
            Method startMethod = agent.getMethod("start", Instrumentation.class, boolean.class);
            startMethod.invoke(null, instrumentation, attached);
        } catch (Throwable t) {
            // UnsupportedClassVersionError lands here too, should a JVM report a version it does not have.
            System.err.println(PREFIX + "streams-memory-agent could not start (" + t
                    + "); the application runs on its own settings");
        }
    }

    /**
     * The feature version from {@code java.specification.version}: "1.8" is 8 (the numbering before Java 9), "11" is
     * 11. Unreadable text counts as new enough: the agent proper then loads, and any failure is still caught.
     */
    static int featureVersion(String specification) {
        if (specification == null) {
            return Integer.MAX_VALUE;
        }
        String text = specification.trim();
        if (text.startsWith("1.")) {
            text = text.substring(2);
        }
        int end = 0;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
            end++;
        }
        if (end == 0 || end > 9) {
            return Integer.MAX_VALUE;
        }
        return Integer.parseInt(text.substring(0, end));
    }
}
