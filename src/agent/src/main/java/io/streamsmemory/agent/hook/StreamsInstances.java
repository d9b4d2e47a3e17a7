package io.streamsmemory.agent.hook;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.config.KafkaCatalog;
import io.streamsmemory.agent.config.ReflectiveKafkaCatalog;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.state.AgentState;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Counts the KafkaStreams instances of this JVM and keeps instances beyond the planned count to an equal share.
 *
 * <p>Why count here and not in the StreamsConfig hook: one KafkaStreams instance builds several StreamsConfigs (the
 * application's own, the one {@code new KafkaStreams(topology, props)} builds, and one per stream thread inside its
 * consumer's partition assignor), with the same application.id, and two instances of one application.id (or with no
 * client.id) can carry identical properties. Neither counting configs nor keying them by application.id + client.id
 * counts instances. {@link KafkaStreamsTransformer} calls this class from the one KafkaStreams constructor that does
 * not delegate to another, which every instance (subclasses included) passes through exactly once: first
 * {@link #beforeConstruct}, with the StreamsConfig the instance is about to size its record cache and clients from,
 * then {@link #constructed} when the constructor returns.
 *
 * <p>Live instances are those constructed and not yet closed (state NOT_RUNNING, PENDING_SHUTDOWN, ERROR or
 * PENDING_ERROR, or garbage collected), so an application that closes an instance and builds a new one, as many do
 * after a fatal error, is not counted twice.
 *
 * <p>The rule, with P the planned instances (the allocation's {@code inputs.instancesPerPod}) and the allocation's
 * instance-scoped values (record cache, client buffers) already being each instance's 1/P of the per-JVM bound:
 * instances 1..P get those values; the k-th live instance, k &gt; P, gets each instance-scoped value times P/k
 * (rounded down), which is the bound divided equally among k instances, so it never gets more than an equal share.
 * The instances built earlier keep theirs (Kafka Streams cannot resize them), so the total can exceed the per-JVM
 * bound: a warning says so, once, and names {@code instancesPerPod}.
 */
public final class StreamsInstances {
    private static final Object LOCK = new Object();
    private static final List<WeakReference<Object>> CONSTRUCTED = new ArrayList<>();
    /** Marks a thread between beforeConstruct and constructed; a constructor that threw leaves it set. */
    private static final ThreadLocal<Boolean> PENDING = new ThreadLocal<>();

    private static int pending;
    /** Whether the constructor is patched, so that the count is real (false in library mode or without allocation). */
    private static volatile boolean watching;
    /** Whether any KafkaStreams instance was ever built in this JVM (closed ones included). */
    private static volatile boolean everConstructed;

    private StreamsInstances() {}

    /** Returns the StreamsConfig the new instance is built from: the same one, or one held to an equal share. */
    public static Object beforeConstruct(Object streamsConfig) {
        try {
            AgentAllocation allocation = AgentState.allocation();
            if (allocation == null || streamsConfig == null) {
                return streamsConfig;
            }
            int ordinal;
            synchronized (LOCK) {
                if (PENDING.get() != null) {
                    pending--; // this thread's previous construction threw
                }
                PENDING.set(Boolean.TRUE);
                pending++;
                ordinal = liveLocked() + pending;
            }
            int planned = allocation.instancesPerPod();
            if (ordinal <= planned) {
                return streamsConfig;
            }
            AgentLog.warnOnce(
                    "instances",
                    ordinal + " KafkaStreams instances run in this JVM but the allocation was "
                            + "planned for " + planned + " (spec.streams.instancesPerPod): each instance beyond "
                            + planned
                            + " gets at most an equal share of the per-JVM record cache and client buffers (instance k: "
                            + planned + "/k of the planned values); the instances built before keep theirs");
            return shareForInstance(streamsConfig, ordinal);
        } catch (Throwable t) {
            AgentLog.warnOnce(
                    "instances-failure",
                    "could not count KafkaStreams instances (" + t
                            + "); this instance runs with the allocation's per-instance values");
            return streamsConfig;
        }
    }

    /**
     * The StreamsConfig for the {@code ordinal}-th live KafkaStreams instance when it is beyond the planned count: the
     * application's config re-merged with each instance-scoped value times planned/ordinal (see the class comment).
     * Returns the same config when that changes nothing.
     */
    private static Object shareForInstance(Object streamsConfig, int ordinal) throws ReflectiveOperationException {
        AgentAllocation current = AgentState.allocation();
        Class<?> configClass = Class.forName(
                "org.apache.kafka.streams.StreamsConfig",
                false,
                streamsConfig.getClass().getClassLoader());
        KafkaCatalog catalog = ReflectiveKafkaCatalog.of(configClass);
        if (current == null || catalog.unsupportedReason() != null) {
            return streamsConfig;
        }
        ConfigMerger.Result result = ConfigMerger.merge(
                originals(streamsConfig),
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
            AgentState.recordApplied("instance-" + ordinal + ":" + change.key(), change.transition());
        }
        AgentLog.info(line.substring(0, line.length() - 1));
        return configClass.getConstructor(Map.class).newInstance(result.props());
    }

    /** Called when the constructor returns normally. */
    public static void constructed(Object kafkaStreams) {
        try {
            synchronized (LOCK) {
                if (PENDING.get() != null) {
                    PENDING.remove();
                    pending--;
                }
                CONSTRUCTED.add(new WeakReference<>(kafkaStreams));
            }
            everConstructed = true;
        } catch (Throwable ignored) {
            // Counting must never break the application.
        }
    }

    public static void watch() {
        watching = true;
    }

    public static boolean watching() {
        return watching;
    }

    public static boolean everConstructed() {
        return everConstructed;
    }

    /** The KafkaStreams instances constructed and not closed, for reading their figures. */
    public static List<Object> liveInstances() {
        List<Object> out = new ArrayList<>();
        synchronized (LOCK) {
            liveLocked();
            for (WeakReference<Object> reference : CONSTRUCTED) {
                Object instance = reference.get();
                if (instance != null) {
                    out.add(instance);
                }
            }
        }
        return out;
    }

    /** KafkaStreams instances constructed and not closed. */
    public static int live() {
        synchronized (LOCK) {
            return liveLocked();
        }
    }

    private static int liveLocked() {
        int live = 0;
        for (Iterator<WeakReference<Object>> it = CONSTRUCTED.iterator(); it.hasNext(); ) {
            Object instance = it.next().get();
            if (instance == null || !running(instance)) {
                it.remove();
            } else {
                live++;
            }
        }
        return live;
    }

    private static boolean running(Object kafkaStreams) {
        try {
            String state =
                    String.valueOf(kafkaStreams.getClass().getMethod("state").invoke(kafkaStreams));
            return !(state.equals("NOT_RUNNING")
                    || state.equals("PENDING_SHUTDOWN")
                    || state.equals("ERROR")
                    || state.equals("PENDING_ERROR"));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return true; // cannot tell: count it, the safer side for memory
        }
    }

    /** For tests only. */
    public static void reset() {
        synchronized (LOCK) {
            CONSTRUCTED.clear();
            watching = false;
            PENDING.remove();
            pending = 0;
        }
    }

    /** The properties a StreamsConfig was built from (AbstractConfig#originals), for re-merging. */
    @SuppressWarnings("unchecked")
    static Map<Object, Object> originals(Object streamsConfig) throws ReflectiveOperationException {
        return (Map<Object, Object>)
                streamsConfig.getClass().getMethod("originals").invoke(streamsConfig);
    }
}
