package io.streamsmemory.agent;

import io.streamsmemory.agent.hook.StreamsConfigTransformer;
import io.streamsmemory.agent.log.AgentLog;
import java.util.Map;

/**
 * Called from the first instructions of {@code StreamsConfig(Map, boolean)} (patched in by
 * {@link StreamsConfigTransformer}), before the properties are parsed. Must be public: it is called from the
 * {@code org.apache.kafka.streams} package. Never throws.
 */
public final class StreamsConfigHook {
    private static final ThreadLocal<Boolean> ACTIVE = new ThreadLocal<>();

    private StreamsConfigHook() {}

    public static Map<?, ?> merge(Map<?, ?> props, Class<?> streamsConfigClass) {
        if (ACTIVE.get() != null) {
            return props;
        }
        ACTIVE.set(Boolean.TRUE);
        try {
            return StreamsConfigMerge.merge(props, streamsConfigClass);
        } catch (Throwable t) {
            AgentLog.warnOnce(
                    "hook-failure",
                    "could not merge the allocation into a StreamsConfig (" + t
                            + "); that config runs on the application's own settings");
            return props;
        } finally {
            ACTIVE.remove();
        }
    }
}
