package io.streamsmemory.agent;

import io.streamsmemory.agent.allocation.AllocationLoader;
import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.state.AgentState;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Library mode: the same bound without {@code -javaagent}. Put this jar on the application's class path and call
 * {@link #apply(Properties)} on the properties before building {@code KafkaStreams}; it also sets
 * {@code rocksdb.config.setter} to {@link BoundedRocksDBConfigSetter} (chaining a setter already there).
 * <pre>{@code
 * Properties props = ...;                  // the application's own settings
 * StreamsMemory.apply(props);              // reads $STREAMS_MEMORY_ALLOCATION (or -Dstreamsmemory.allocation)
 * new KafkaStreams(topology, props).start();
 * }</pre>
 * Nothing here throws: without a usable allocation the properties are left as they are (one warning).
 */
public final class StreamsMemory {
    /** Where the agent keeps the application's own {@code rocksdb.config.setter}, which it calls first. */
    public static final String CHAINED_SETTER_CONFIG = ConfigMerger.CHAINED_SETTER_CONFIG;

    private static final String STREAMS_CONFIG = "org.apache.kafka.streams.StreamsConfig";

    private StreamsMemory() {}

    /** Applies the allocation named by the environment to {@code props}, in place; returns {@code props}. */
    public static Properties apply(Properties props) {
        return loadThenMerge(props, () -> AgentState.ensureLoaded("library"));
    }

    /**
     * Applies the allocation in {@code allocationFile} to {@code props}, in place. The first allocation a JVM loads
     * is the one it keeps (an agent's, if there is one).
     */
    public static Properties apply(Properties props, Path allocationFile) {
        return loadThenMerge(props, () -> {
            if (!AgentState.loaded()) {
                AgentState.accept(AllocationLoader.read(allocationFile.toString(), "argument"), "library");
            }
        });
    }

    /** Loading an allocation, which may throw anything: {@link #loadThenMerge} turns that into its one warning. */
    private interface Load {
        void run() throws Exception;
    }

    /** Runs {@code load}, then merges the allocation into {@code props}; a failure of either is one warning. */
    private static Properties loadThenMerge(Properties props, Load load) {
        try {
            load.run();
            return mergeInPlace(props);
        } catch (Throwable t) {
            AgentLog.warnOnce(
                    "library-failure",
                    "could not apply the allocation (" + t + "); the application runs on its own memory settings");
            return props;
        }
    }

    /** Whether this JVM has a usable allocation. */
    public static boolean active() {
        return AgentState.allocation() != null && AgentState.status().equals("active");
    }

    private static Properties mergeInPlace(Properties props) throws ClassNotFoundException {
        if (props == null || AgentState.allocation() == null) {
            return props;
        }
        Class<?> streamsConfig = streamsConfigClass();
        Map<?, ?> merged = StreamsConfigMerge.merge(props, streamsConfig);
        if (merged != props) {
            for (Map.Entry<?, ?> entry : merged.entrySet()) {
                if (entry.getKey() != null
                        && entry.getValue() != null
                        && !entry.getValue().equals(props.get(entry.getKey()))) {
                    props.put(entry.getKey(), entry.getValue());
                }
            }
        }
        return props;
    }

    private static Class<?> streamsConfigClass() throws ClassNotFoundException {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            try {
                return Class.forName(STREAMS_CONFIG, false, context);
            } catch (ClassNotFoundException ignored) {
                // fall back to the loader of this library
            }
        }
        return Class.forName(STREAMS_CONFIG, false, StreamsMemory.class.getClassLoader());
    }
}
