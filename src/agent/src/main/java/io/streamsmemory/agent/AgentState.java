package io.streamsmemory.agent;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The one allocation of this JVM and what was done with it. Loaded at most once (so a bad file gives exactly one
 * warning), by the agent's premain or by the first library-mode call, whichever comes first.
 */
final class AgentState {
    static final String MBEAN_NAME = "io.streamsmemory:type=Agent";

    private static final Object LOCK = new Object();
    private static volatile boolean loaded;
    private static volatile AgentAllocation allocation;
    private static volatile String problem;
    private static volatile String mode = "none";
    private static volatile String kafkaStreamsVersion = "not seen yet";
    private static volatile String inactiveReason;
    private static volatile boolean mbeanRegistered;
    private static volatile JvmLimits jvmLimits;
    private static final Map<String, String> APPLIED = Collections.synchronizedMap(new LinkedHashMap<>());
    private static final Map<String, String> SKIPPED = Collections.synchronizedMap(new LinkedHashMap<>());
    private static final AtomicLong MERGES = new AtomicLong();
    /**
     * The record cache of the first StreamsConfig merged: the application's own. Kafka Streams builds more afterwards
     * from its clients' configs (its partition assignor's), which lack the record cache key; their merges would claim
     * the plan's cache for an application that keeps its own smaller one, so they neither decide this nor log it.
     */
    private static final AtomicReference<ConfigMerger.RecordCache> RECORD_CACHE = new AtomicReference<>();

    private AgentState() {}

    /** Loads the allocation from the environment unless already loaded; warns once when there is none. */
    static AgentAllocation ensureLoaded(String loadedBy) {
        if (loaded) {
            return allocation;
        }
        synchronized (LOCK) {
            if (!loaded) {
                accept(AllocationLoader.load(System.getenv(), System.getProperties()), loadedBy);
            }
            return allocation;
        }
    }

    /** Installs a result (from the environment or given explicitly); only the first call in a JVM counts. */
    static boolean accept(AllocationLoader.Result result, String loadedBy) {
        synchronized (LOCK) {
            if (loaded) {
                return false;
            }
            mode = loadedBy;
            allocation = result.allocation();
            problem = result.problem();
            loaded = true;
        }
        if (result.allocation() == null) {
            AgentLog.warn(result.problem() + "; the application runs on its own memory settings");
        } else {
            AgentLog.info("streams-memory-agent " + agentVersion() + " (" + loadedBy + "): "
                    + result.allocation().describe() + "; MBean " + MBEAN_NAME);
        }
        return true;
    }

    static AgentAllocation allocation() {
        return allocation;
    }

    static boolean loaded() {
        return loaded;
    }

    static String problem() {
        return problem;
    }

    static String mode() {
        return mode;
    }

    /**
     * Merges the allocation into one StreamsConfig's properties. Returns the properties to use: the original object
     * when nothing changes, when there is no allocation, or on any failure.
     */
    static Map<?, ?> merge(Map<?, ?> props, Class<?> streamsConfigClass) {
        if (allocation == null || props == null) {
            return props;
        }
        return merge(props, ReflectiveKafkaCatalog.of(streamsConfigClass), streamsConfigClass);
    }

    static Map<?, ?> merge(Map<?, ?> props, KafkaCatalog catalog, Class<?> streamsConfigClass) {
        AgentAllocation current = allocation;
        if (current == null || props == null) {
            return props;
        }
        kafkaStreamsVersion = catalog.version();
        String unsupported = catalog.unsupportedReason();
        if (unsupported != null) {
            inactiveReason = unsupported;
            AgentLog.warnOnce(
                    "unsupported-version",
                    "the allocation is not applied: " + unsupported
                            + "; the application runs on its own memory settings");
            return props;
        }
        registerMBean();
        Class<?> setter = null;
        if (current.rocksDb() != null) {
            if (SetterVisibility.usable(streamsConfigClass)) {
                setter = BoundedRocksDBConfigSetter.class;
            } else {
                AgentLog.warnOnce(
                        "setter-invisible",
                        "Kafka Streams is loaded by a class loader that cannot see the "
                                + "agent's classes, so RocksDB is not bounded by the agent (configs still are); use library "
                                + "mode: rocksdb.config.setter=" + BoundedRocksDBConfigSetter.class.getName());
            }
        }
        ConfigMerger.Result result = ConfigMerger.merge(props, current, catalog, setter, JvmLimits.heapInForce());
        MERGES.incrementAndGet();
        boolean decidesCache = RECORD_CACHE.compareAndSet(null, result.recordCache());
        for (ConfigMerger.Change change : result.changes()) {
            if (!decidesCache && recordCacheKey(change.key())) {
                continue;
            }
            String previous = APPLIED.put(change.key(), change.transition());
            if (previous == null) {
                AgentLog.infoOnce("change:" + change.key(), "set " + change.describe());
            }
        }
        for (String skipped : result.skipped()) {
            String key = skipped.split(" ", 2)[0];
            if (!decidesCache && recordCacheKey(key)) {
                continue;
            }
            SKIPPED.put(key, skipped);
            AgentLog.infoOnce("skip:" + key, "not applied: " + skipped);
        }
        return result.changed() ? result.props() : props;
    }

    private static boolean recordCacheKey(String key) {
        return key.equals(ConfigMerger.STATESTORE_CACHE) || key.equals(ConfigMerger.LEGACY_CACHE);
    }

    /** Which record cache the application's StreamsConfig got, and why ("none" before the first merge). */
    static ConfigMerger.RecordCache recordCache() {
        ConfigMerger.RecordCache decided = RECORD_CACHE.get();
        if (decided != null) {
            return decided;
        }
        return ConfigMerger.RecordCache.none(allocation == null ? "no allocation" : "no StreamsConfig merged yet");
    }

    static void registerMBean() {
        if (mbeanRegistered) {
            return;
        }
        synchronized (LOCK) {
            if (mbeanRegistered) {
                return;
            }
            mbeanRegistered = true;
            checkJvmLimits();
            try {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                ObjectName name = new ObjectName(MBEAN_NAME);
                if (!server.isRegistered(name)) {
                    server.registerMBean(new AgentMXBeanImpl(), name);
                }
            } catch (Throwable t) {
                AgentLog.warnOnce("mbean", "could not register the MBean " + MBEAN_NAME + ": " + t);
            }
        }
    }

    /**
     * Compares the heap, metaspace and direct-memory limits in force with the allocation's, once, when the agent
     * first has work to do (with the MBean, not in premain: the management beans are not touched before the
     * application's own start).
     */
    private static void checkJvmLimits() {
        AgentAllocation current = allocation;
        if (current == null) {
            return;
        }
        try {
            JvmLimits limits = JvmLimits.check(current);
            jvmLimits = limits;
            String warning = limits.warning();
            if (warning != null) {
                AgentLog.warnOnce("jvm-limits", warning);
            }
        } catch (Throwable t) {
            AgentLog.warnOnce("jvm-limits-failure", "could not read the JVM's limits: " + t);
        }
    }

    /** Null until the first StreamsConfig (or the first RocksDB store) of the application. */
    static JvmLimits jvmLimits() {
        return jvmLimits;
    }

    /**
     * The StreamsConfig for the {@code ordinal}-th live KafkaStreams instance when it is beyond the planned count: the
     * application's config re-merged with each instance-scoped value times planned/ordinal (see
     * {@link StreamsInstances}). Returns the same config when that changes nothing.
     */
    static Object shareForInstance(Object streamsConfig, int ordinal) throws ReflectiveOperationException {
        AgentAllocation current = allocation;
        Class<?> configClass = Class.forName(
                "org.apache.kafka.streams.StreamsConfig",
                false,
                streamsConfig.getClass().getClassLoader());
        KafkaCatalog catalog = ReflectiveKafkaCatalog.of(configClass);
        if (current == null || catalog.unsupportedReason() != null) {
            return streamsConfig;
        }
        ConfigMerger.Result result = ConfigMerger.merge(
                StreamsInstances.originals(streamsConfig),
                current.forUnplannedInstance(ordinal),
                catalog,
                null,
                JvmLimits.heapInForce());
        if (!result.changed()) {
            return streamsConfig;
        }
        StringBuilder line = new StringBuilder("KafkaStreams instance " + ordinal + " (beyond the "
                + current.instancesPerPod() + " planned) gets an equal share:");
        for (ConfigMerger.Change change : result.changes()) {
            line.append(' ').append(change.describe()).append(';');
            APPLIED.put("instance-" + ordinal + ":" + change.key(), change.transition());
        }
        AgentLog.info(line.substring(0, line.length() - 1));
        return configClass.getConstructor(Map.class).newInstance(result.props());
    }

    static Map<String, String> applied() {
        synchronized (APPLIED) {
            return new LinkedHashMap<>(APPLIED);
        }
    }

    static Map<String, String> skipped() {
        synchronized (SKIPPED) {
            return new LinkedHashMap<>(SKIPPED);
        }
    }

    static long merges() {
        return MERGES.get();
    }

    static String kafkaStreamsVersion() {
        return kafkaStreamsVersion;
    }

    static String status() {
        if (!loaded) {
            return "not loaded";
        }
        if (allocation == null) {
            return "inactive: " + problem;
        }
        if (inactiveReason != null) {
            return "inactive: " + inactiveReason;
        }
        return "active";
    }

    static String agentVersion() {
        Package pkg = AgentState.class.getPackage();
        String version = pkg == null ? null : pkg.getImplementationVersion();
        return version == null ? "dev" : version;
    }

    /** For tests only: forget everything. */
    static void reset() {
        synchronized (LOCK) {
            loaded = false;
            allocation = null;
            problem = null;
            mode = "none";
            inactiveReason = null;
            kafkaStreamsVersion = "not seen yet";
            APPLIED.clear();
            SKIPPED.clear();
            MERGES.set(0);
            RECORD_CACHE.set(null);
            mbeanRegistered = false;
            jvmLimits = null;
            SharedRocksDb.resetForTests();
            StreamsInstances.reset();
        }
    }
}
