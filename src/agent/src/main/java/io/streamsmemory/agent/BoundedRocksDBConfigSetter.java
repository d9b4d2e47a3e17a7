package io.streamsmemory.agent;

import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.report.AgentMXBeanImpl;
import io.streamsmemory.agent.rocksdb.RocksDbStats;
import io.streamsmemory.agent.rocksdb.SharedRocksDb;
import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;

/**
 * The {@code rocksdb.config.setter} the agent installs (and library mode names): calls the application's own setter
 * first, when it had one, then bounds the store to the JVM's shared block cache and WriteBufferManager.
 * Kafka Streams creates one instance per RocksDB instance.
 */
public class BoundedRocksDBConfigSetter implements RocksDBConfigSetter {
    private RocksDBConfigSetter chained;
    private boolean counted;

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Object own = configs == null ? null : configs.get(ConfigMerger.CHAINED_SETTER_CONFIG);
        // Kafka Streams' value before the application's setter runs: a setter that changed it chose it.
        Boolean filtersForHits = filtersForHits(options);
        if (own != null
                && !ConfigMerger.setterName(own).isEmpty()
                && !ConfigMerger.setterName(own).equals(BoundedRocksDBConfigSetter.class.getName())) {
            chained = instantiate(own);
            RocksDbStats.CHAINED_SETTERS.add(chained.getClass().getName());
            // The application's setter behaves exactly as it would without the agent (its exceptions included).
            chained.setConfig(storeName, options, configs);
        }
        SharedRocksDb shared = SharedRocksDb.get();
        if (shared == null) {
            return;
        }
        AgentMXBeanImpl.register();
        try {
            shared.apply(
                    storeName,
                    options,
                    filtersForHits == null || SharedRocksDb.filtersForHitsChanged(options, filtersForHits));
            counted = true;
            RocksDbStats.OPEN.incrementAndGet();
            RocksDbStats.OPENED.incrementAndGet();
        } catch (Throwable t) {
            AgentLog.warnOnce(
                    "rocksdb-apply",
                    "could not bound RocksDB store " + storeName + " (" + t + "); it runs on its own settings");
        }
    }

    @Override
    public void close(String storeName, Options options) {
        // The shared cache and WriteBufferManager are never closed here: other stores use them.
        if (counted) {
            counted = false;
            RocksDbStats.OPEN.decrementAndGet();
        }
        if (chained != null) {
            chained.close(storeName, options);
        }
    }

    /** {@code optimize_filters_for_hits} as the options hold it now; null where this RocksJava cannot read it. */
    private static Boolean filtersForHits(Options options) {
        try {
            return options.optimizeFiltersForHits();
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static RocksDBConfigSetter instantiate(Object setter) {
        try {
            Class<?> type;
            if (setter instanceof Class<?>) {
                type = (Class<?>) setter;
            } else {
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                if (loader == null) {
                    loader = RocksDBConfigSetter.class.getClassLoader();
                }
                type = Class.forName(setter.toString().trim(), true, loader);
            }
            return (RocksDBConfigSetter) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("cannot create the application's rocksdb.config.setter " + setter, e);
        }
    }
}
