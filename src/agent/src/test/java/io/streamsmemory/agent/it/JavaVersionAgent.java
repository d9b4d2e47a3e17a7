package io.streamsmemory.agent.it;

import java.lang.instrument.Instrumentation;

/**
 * A test-only agent that makes the JVM report an older Java to the agents after it, with no hook in the agent under
 * test: {@code -javaagent:java-version-agent.jar=1.8} before the streams-memory agent sets
 * {@code java.specification.version} to 1.8 (what a Java 8 JVM reports), and {@code =restore} after it puts the real
 * value back, so the application itself runs on the truth. Agents' premain methods run in command-line order.
 */
public final class JavaVersionAgent {
    private static final String KEY = "java.specification.version";
    private static String real;

    private JavaVersionAgent() {}

    public static void premain(String args, Instrumentation instrumentation) {
        if ("restore".equals(args)) {
            if (real != null) {
                System.setProperty(KEY, real);
            }
        } else {
            real = System.getProperty(KEY);
            System.setProperty(KEY, args);
        }
    }
}
