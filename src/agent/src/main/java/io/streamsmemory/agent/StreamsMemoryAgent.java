package io.streamsmemory.agent;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code -javaagent} entry point. Reads the allocation, and when it is usable patches {@code StreamsConfig} so
 * that every config the application builds carries it. Never throws and never blocks: any problem is one warning
 * and the application runs on its own settings.
 */
public final class StreamsMemoryAgent {
    private static volatile boolean started;

    private StreamsMemoryAgent() {
    }

    public static void premain(String args, Instrumentation instrumentation) {
        start(instrumentation, false);
    }

    public static void agentmain(String args, Instrumentation instrumentation) {
        start(instrumentation, true);
    }

    private static synchronized void start(Instrumentation instrumentation, boolean attached) {
        if (started) {
            return;
        }
        started = true;
        try {
            AgentAllocation allocation = AgentState.ensureLoaded(attached ? "attached agent" : "agent");
            if (allocation == null) {
                return;
            }
            // Load the hook before any transform can need it.
            Class.forName(StreamsConfigHook.class.getName());
            StreamsConfigTransformer transformer = new StreamsConfigTransformer();
            instrumentation.addTransformer(transformer, true);
            if (attached) {
                List<Class<?>> loaded = new ArrayList<>();
                for (Class<?> type : instrumentation.getAllLoadedClasses()) {
                    if (StreamsConfigTransformer.TARGET.replace('/', '.').equals(type.getName())) {
                        loaded.add(type);
                    }
                }
                if (!loaded.isEmpty() && instrumentation.isRetransformClassesSupported()) {
                    instrumentation.retransformClasses(loaded.toArray(new Class<?>[0]));
                    AgentLog.info("attached after StreamsConfig was loaded: configs built from now on are merged");
                }
            }
        } catch (Throwable t) {
            AgentLog.warnOnce("start-failure", "could not start (" + t
                    + "); the application runs on its own memory settings");
        }
    }
}
