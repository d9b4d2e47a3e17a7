package io.streamsmemory.agent.state;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.AllocationLoader;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.config.KafkaCatalog;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.protocol.StreamsConfigKeys;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one allocation of this JVM and what was done with it. Loaded at most once (so a bad file gives exactly one
 * warning), by the agent's premain or by the first library-mode call, whichever comes first.
 */
public final class AgentState {
    public static final String MBEAN_NAME = "io.streamsmemory:type=Agent";

    private static final Object LOCK = new Object();
    private static volatile boolean loaded;
    private static volatile AgentAllocation allocation;
    private static volatile String problem;
    private static volatile String mode = "none";
    private static final String NOT_SEEN = "not seen yet";
    private static volatile String kafkaStreamsVersion = NOT_SEEN;
    private static volatile String inactiveReason;
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
    public static AgentAllocation ensureLoaded(String loadedBy) {
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
    public static boolean accept(AllocationLoader.Result result, String loadedBy) {
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

    public static AgentAllocation allocation() {
        return allocation;
    }

    public static boolean loaded() {
        return loaded;
    }

    public static String problem() {
        return problem;
    }

    public static String mode() {
        return mode;
    }

    /**
     * Notes the application's Kafka Streams version; returns whether the agent applies allocations to it, and when not
     * warns once and marks the agent inactive.
     */
    public static boolean supports(KafkaCatalog catalog) {
        kafkaStreamsVersion = catalog.version();
        String unsupported = catalog.unsupportedReason();
        if (unsupported == null) {
            return true;
        }
        inactiveReason = unsupported;
        AgentLog.warnOnce(
                "unsupported-version",
                "the allocation is not applied: " + unsupported + "; the application runs on its own memory settings");
        return false;
    }

    /**
     * Records one merge of the application's StreamsConfig: counts it, logs each change and skipped key once, and keeps
     * them for the MBean. The first merge decides the record cache (see {@link #RECORD_CACHE}).
     */
    public static void record(ConfigMerger.Result result) {
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
    }

    private static boolean recordCacheKey(String key) {
        return key.equals(StreamsConfigKeys.STATESTORE_CACHE_MAX_BYTES)
                || key.equals(StreamsConfigKeys.CACHE_MAX_BYTES_BUFFERING);
    }

    /** Which record cache the application's StreamsConfig got, and why ("none" before the first merge). */
    public static ConfigMerger.RecordCache recordCache() {
        ConfigMerger.RecordCache decided = RECORD_CACHE.get();
        if (decided != null) {
            return decided;
        }
        return ConfigMerger.RecordCache.none(allocation == null ? "no allocation" : "no StreamsConfig merged yet");
    }

    /**
     * Compares the heap, metaspace and direct-memory limits in force with the allocation's, once, when the agent
     * first has work to do (with the MBean, not in premain: the management beans are not touched before the
     * application's own start).
     */
    public static void checkJvmLimits() {
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
    public static JvmLimits jvmLimits() {
        return jvmLimits;
    }

    /** Records a change made for one KafkaStreams instance only, under {@code key}, for the MBean. */
    public static void recordApplied(String key, String transition) {
        APPLIED.put(key, transition);
    }

    public static Map<String, String> applied() {
        synchronized (APPLIED) {
            return new LinkedHashMap<>(APPLIED);
        }
    }

    public static Map<String, String> skipped() {
        synchronized (SKIPPED) {
            return new LinkedHashMap<>(SKIPPED);
        }
    }

    public static long merges() {
        return MERGES.get();
    }

    public static String kafkaStreamsVersion() {
        return kafkaStreamsVersion;
    }

    /** The application's Kafka Streams version once its classes were seen, else null (the report leaves it out). */
    public static String kafkaStreamsVersionSeen() {
        String version = kafkaStreamsVersion;
        return NOT_SEEN.equals(version) ? null : version;
    }

    public static String status() {
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

    public static String agentVersion() {
        Package pkg = AgentState.class.getPackage();
        String version = pkg == null ? null : pkg.getImplementationVersion();
        return version == null ? "dev" : version;
    }

    /** For tests only: forget everything (the RocksDB objects, the instances and the MBean have their own resets). */
    public static void reset() {
        synchronized (LOCK) {
            loaded = false;
            allocation = null;
            problem = null;
            mode = "none";
            inactiveReason = null;
            kafkaStreamsVersion = NOT_SEEN;
            APPLIED.clear();
            SKIPPED.clear();
            MERGES.set(0);
            RECORD_CACHE.set(null);
            jvmLimits = null;
        }
    }
}
