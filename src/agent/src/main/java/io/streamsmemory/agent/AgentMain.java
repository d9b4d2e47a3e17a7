package io.streamsmemory.agent;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.hook.HeapStateObjects;
import io.streamsmemory.agent.hook.HeapStateTransformer;
import io.streamsmemory.agent.hook.KafkaStreamsTransformer;
import io.streamsmemory.agent.hook.StreamsConfigTransformer;
import io.streamsmemory.agent.hook.StreamsInstances;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.report.InertNotice;
import io.streamsmemory.agent.report.ReportEndpoint;
import io.streamsmemory.agent.state.AgentState;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent proper, called by the Java 8 entry point {@code StreamsMemoryAgent} (src/main/java8) once it has checked
 * that the JVM is Java 11 or newer. Reads the allocation, and when it is usable patches {@code StreamsConfig} and
 * {@code KafkaStreams} so that every config the application builds carries it. Never throws and never blocks: any
 * problem is one warning and the application runs on its own settings.
 */
public final class AgentMain {
    private static volatile boolean started;

    private AgentMain() {}

    /** Called by reflection from the entry point, with {@code attached} true for {@code agentmain}. */
    public static synchronized void start(Instrumentation instrumentation, boolean attached) {
        if (started) {
            return;
        }
        started = true;
        try {
            AgentAllocation allocation = AgentState.ensureLoaded(attached ? "attached agent" : "agent");
            // The report is useful without an allocation too (RSS, cgroup, JVM); binding happens on its own thread.
            ReportEndpoint.start(System.getenv());
            if (allocation == null) {
                return;
            }
            // Load the hooks before any transform can need them.
            Class.forName(StreamsConfigHook.class.getName());
            Class.forName(StreamsInstances.class.getName());
            Class.forName(HeapStateObjects.class.getName());
            instrumentation.addTransformer(new StreamsConfigTransformer(StreamsConfigHook.class), true);
            instrumentation.addTransformer(new KafkaStreamsTransformer(), true);
            for (String target : HeapStateTransformer.TARGETS) {
                instrumentation.addTransformer(new HeapStateTransformer(target), true);
            }
            StreamsInstances.watch();
            InertNotice.configure(System.getenv());
            if (attached) {
                List<Class<?>> loaded = new ArrayList<>();
                for (Class<?> type : instrumentation.getAllLoadedClasses()) {
                    String name = type.getName().replace('.', '/');
                    if (StreamsConfigTransformer.TARGET.equals(name)
                            || KafkaStreamsTransformer.TARGET.equals(name)
                            || HeapStateTransformer.TARGETS.contains(name)) {
                        loaded.add(type);
                    }
                }
                if (!loaded.isEmpty() && instrumentation.isRetransformClassesSupported()) {
                    instrumentation.retransformClasses(loaded.toArray(new Class<?>[0]));
                    AgentLog.info("attached after StreamsConfig was loaded: configs built from now on are merged");
                }
            }
        } catch (Throwable t) {
            AgentLog.warnOnce(
                    "start-failure", "could not start (" + t + "); the application runs on its own memory settings");
        }
    }
}
