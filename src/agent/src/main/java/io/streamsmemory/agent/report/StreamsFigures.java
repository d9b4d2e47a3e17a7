package io.streamsmemory.agent.report;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.hook.StreamsInstances;
import io.streamsmemory.agent.rocksdb.RocksDbStats;
import io.streamsmemory.agent.state.AgentState;
import io.streamsmemory.protocol.ReportFigure;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the JVM's KafkaStreams instances hold, read without taking a lock a stream thread may hold:
 * <ul>
 *   <li>threads and tasks from each StreamThread's {@code threadMetadata()}, a field the stream thread itself
 *       replaces on every change (not {@code KafkaStreams.metadataForLocalThreads()}, which takes each thread's state
 *       lock, held by a stream thread while it changes state and runs the application's state listener);</li>
 *   <li>stores from the names in the instance's own metrics registry (the {@code Metrics} object behind
 *       {@code KafkaStreams.metrics()}, whose map is a concurrent one, read in place instead of the public method's
 *       copy of every client metric), no metric's value: see {@link StoreMetrics} for why;</li>
 *   <li>the record cache in force: {@code KafkaStreams.totalCacheSize};</li>
 *   <li>what the application gets done ({@link ProgressMetrics}): records processed so far and its main consumers'
 *       lag, best effort: left out when any instance's figure cannot be read.</li>
 * </ul>
 * By reflection on the fields and methods Kafka Streams 2.8 to 4.4 share; whatever cannot be read is left out.
 */
final class StreamsFigures {
    static final String KAFKA_STREAMS = "org.apache.kafka.streams.KafkaStreams";

    private final Map<String, Long> streams = new LinkedHashMap<>();

    private StreamsFigures() {}

    /** Reads the live instances; the {@code streams} section is empty when instances are not counted here. */
    static StreamsFigures read() {
        StreamsFigures figures = new StreamsFigures();
        if (!StreamsInstances.watching()) {
            return figures;
        }
        List<Object> instances = StreamsInstances.liveInstances();
        figures.streams.put(ReportFigure.INSTANCES.field(), (long) instances.size());
        long threads = 0;
        long active = 0;
        long standby = 0;
        long cache = 0;
        Set<Map<String, String>> stores = new HashSet<>();
        boolean threadsRead = true;
        boolean cacheRead = true;
        boolean storesRead = true;
        long processed = 0;
        long lag = -1;
        boolean processedRead = !instances.isEmpty();
        for (Object instance : instances) {
            long[] counts = threadCounts(instance);
            if (counts == null) {
                threadsRead = false;
            } else {
                threads += counts[0];
                active += counts[1];
                standby += counts[2];
            }
            Long total = (Long) field(instance, "totalCacheSize");
            if (total == null) {
                cacheRead = false;
            } else {
                cache += total;
            }
            storesRead &= readStores(instance, stores);
            long count = processed(instance);
            if (count < 0) {
                processedRead = false;
            } else {
                processed += count;
            }
            lag = Math.max(lag, lagMax(instance));
        }
        if (threadsRead) {
            figures.streams.put(ReportFigure.STREAM_THREADS.field(), threads);
            figures.streams.put(ReportFigure.ACTIVE_TASKS.field(), active);
            figures.streams.put(ReportFigure.STANDBY_TASKS.field(), standby);
        }
        if (storesRead) {
            figures.streams.put("stateStores", (long) stores.size());
        }
        AgentAllocation allocation = AgentState.allocation();
        if (allocation != null && allocation.rocksDb() != null) {
            // The agent's setter counts every RocksDB instance (store x task x segment) it puts on the shared cache.
            figures.streams.put(ReportFigure.ROCKSDB_INSTANCES.field(), (long) RocksDbStats.OPEN.get());
        }
        if (cacheRead) {
            figures.streams.put(ReportFigure.RECORD_CACHE_BYTES.field(), cache);
        }
        if (processedRead) {
            figures.streams.put(ReportFigure.PROCESSED_RECORDS.field(), processed);
        }
        if (lag >= 0) {
            figures.streams.put(ReportFigure.CONSUMER_LAG_RECORDS.field(), lag);
        }
        return figures;
    }

    Map<String, Long> streams() {
        return streams;
    }

    /** {threads, active tasks, standby tasks} of one instance, or null when unreadable. */
    private static long[] threadCounts(Object instance) {
        Object list = field(instance, "threads");
        if (!(list instanceof Collection)) {
            return null;
        }
        try {
            // A copy, as KafkaStreams.processStreamThread makes it (the list is a synchronized one).
            List<?> threads = new ArrayList<>((Collection<?>) list);
            long[] counts = new long[3];
            Class<?> api = Class.forName(
                    "org.apache.kafka.streams.ThreadMetadata",
                    false,
                    instance.getClass().getClassLoader());
            for (Object thread : threads) {
                Object metadata = thread.getClass().getMethod("threadMetadata").invoke(thread);
                if (metadata == null) {
                    continue;
                }
                if ("DEAD".equals(api.getMethod("threadState").invoke(metadata))) {
                    continue;
                }
                counts[0]++;
                counts[1] += ((Collection<?>) api.getMethod("activeTasks").invoke(metadata)).size();
                counts[2] += ((Collection<?>) api.getMethod("standbyTasks").invoke(metadata)).size();
            }
            return counts;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** The instance's stores, from its metrics registry's names; false when it cannot be read. */
    private static boolean readStores(Object instance, Set<Map<String, String>> stores) {
        Object registry = field(instance, "metrics");
        if (registry == null) {
            return false;
        }
        try {
            StoreMetrics.read(registry, stores);
            return true;
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Records the instance's stream threads processed so far ({@link ProgressMetrics#processed}), or -1. */
    private static long processed(Object instance) {
        Object registry = field(instance, "metrics");
        if (registry == null) {
            return -1;
        }
        try {
            return ProgressMetrics.processed(registry);
        } catch (RuntimeException | LinkageError e) {
            return -1;
        }
    }

    /**
     * The largest {@code records-lag-max} of the instance's main consumers ({@link ProgressMetrics#lagMax}), or -1
     * when no thread's is readable; the thread list is copied as {@link #threadCounts} copies it.
     */
    private static long lagMax(Object instance) {
        Object list = field(instance, "threads");
        if (!(list instanceof Collection)) {
            return -1;
        }
        long max = -1;
        try {
            for (Object thread : new ArrayList<>((Collection<?>) list)) {
                Object metrics = thread.getClass().getMethod("consumerMetrics").invoke(thread);
                if (metrics instanceof Map) {
                    max = Math.max(max, ProgressMetrics.lagMax((Map<?, ?>) metrics));
                }
            }
            return max;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return -1;
        }
    }

    /** A declared field of KafkaStreams (the instance may be a subclass), or null. */
    private static Object field(Object instance, String name) {
        for (Class<?> type = instance.getClass(); type != null; type = type.getSuperclass()) {
            if (type.getName().equals(KAFKA_STREAMS)) {
                try {
                    Field field = type.getDeclaredField(name);
                    field.setAccessible(true);
                    return field.get(instance);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
