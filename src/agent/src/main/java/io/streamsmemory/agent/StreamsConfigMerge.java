package io.streamsmemory.agent;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.config.KafkaCatalog;
import io.streamsmemory.agent.config.ReflectiveKafkaCatalog;
import io.streamsmemory.agent.report.AgentMXBeanImpl;
import io.streamsmemory.agent.rocksdb.AppLoaderSetter;
import io.streamsmemory.agent.rocksdb.SetterVisibility;
import io.streamsmemory.agent.state.AgentState;
import java.util.Map;

/**
 * Merges the JVM's allocation into one StreamsConfig's properties, for both ways in: the patched StreamsConfig
 * ({@link StreamsConfigHook}) and library mode ({@link StreamsMemory}). Here because it names the agent's own setter,
 * {@link BoundedRocksDBConfigSetter}, whose name is a contract and stays in this package.
 */
final class StreamsConfigMerge {
    private StreamsConfigMerge() {}

    /**
     * Merges the allocation into one StreamsConfig's properties. Returns the properties to use: the original object
     * when nothing changes, when there is no allocation, or on any failure.
     */
    static Map<?, ?> merge(Map<?, ?> props, Class<?> streamsConfigClass) {
        if (AgentState.allocation() == null || props == null) {
            return props;
        }
        return merge(props, ReflectiveKafkaCatalog.of(streamsConfigClass), streamsConfigClass);
    }

    static Map<?, ?> merge(Map<?, ?> props, KafkaCatalog catalog, Class<?> streamsConfigClass) {
        AgentAllocation current = AgentState.allocation();
        if (current == null || props == null) {
            return props;
        }
        if (!AgentState.supports(catalog)) {
            return props;
        }
        AgentMXBeanImpl.register();
        Class<?> setter = null;
        if (current.rocksDb() != null) {
            // A fat-jar launcher's Kafka Streams gets the setter defined in its own class loader (null: not possible,
            // said).
            setter = SetterVisibility.usable(streamsConfigClass)
                    ? BoundedRocksDBConfigSetter.class
                    : AppLoaderSetter.setterFor(streamsConfigClass.getClassLoader());
        }
        ConfigMerger.Result result = ConfigMerger.merge(props, current, catalog, setter, JvmLimits.heapInForce());
        AgentState.record(result);
        return result.changed() ? result.props() : props;
    }
}
