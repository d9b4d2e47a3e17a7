package io.streamsmemory.agent.report;

import io.streamsmemory.agent.hook.HeapStateObjects;
import io.streamsmemory.agent.hook.HeapStateTransformer;
import io.streamsmemory.protocol.ReportFigure;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeSet;

/**
 * The state a topology holds on the heap, which the plan does not see unless it is reported: in-memory key-value
 * stores and the buffers of {@code suppress()} operators. Read from the objects {@link HeapStateObjects} remembered,
 * by reflection on what Kafka Streams 2.8 to 4.4 share; whatever cannot be read is left out, and a closed store (a
 * task that moved) counts for nothing. Kafka's own gauges of these (suppression-buffer-size, the in-memory stores'
 * sensors) are recorded only at the DEBUG level, which the agent does not turn on for the application.
 *
 * <ul>
 *   <li>A key-value store: its entries ({@code approximateNumEntries()}, the map's size: no lock) and their heap, the
 *       entries times the heap of the first {@link #SAMPLED_ENTRIES} entries on average, read under the store's own
 *       monitor (its writes are synchronized on it; a store whose are not is not sampled, its entries priced at
 *       {@link #UNSAMPLED_ENTRY_BYTES}).</li>
 *   <li>A suppression buffer: the bytes Kafka Streams counts against the buffer's bound ({@code bufferSize()}) plus
 *       {@link #BUFFERED_RECORD_OVERHEAD} per record for the objects around them; unbounded when neither a record
 *       nor a byte bound was given ({@code BufferConfig.unbounded()}, which grows with the data until the heap is
 *       gone).</li>
 * </ul>
 */
final class HeapStateFigures {
    /** Entries of a key-value store whose sizes stand for all of them. */
    static final int SAMPLED_ENTRIES = 16;
    /**
     * Heap of one entry of InMemoryKeyValueStore's TreeMap besides its key's and value's bytes: the map entry (40 B),
     * the key's Bytes wrapper (24 B) and the two arrays' headers (16 B each), with compressed references; each array
     * is padded to 8 bytes. From the objects' layout, not measured.
     */
    static final long ENTRY_OVERHEAD = 40 + 24;

    static final long UNSAMPLED_ENTRY_BYTES = 1024;
    /**
     * Heap of one buffered record beyond what the buffer counts: its two index entries (a TreeMap by time, a HashMap by
     * key), the key and value wrappers and the record context. From the objects' layout, not measured.
     */
    static final long BUFFERED_RECORD_OVERHEAD = 256;

    private final Map<String, Long> figures = new LinkedHashMap<>();
    private final TreeSet<String> unboundedBuffers = new TreeSet<>();

    private HeapStateFigures() {}

    static HeapStateFigures read() {
        HeapStateFigures state = new HeapStateFigures();
        for (Object object : HeapStateObjects.live()) {
            try {
                String type = object.getClass().getName().replace('.', '/');
                if (type.equals(HeapStateTransformer.KEY_VALUE_STORE)) {
                    state.addStore(object);
                } else if (type.equals(HeapStateTransformer.SUPPRESS_PROCESSOR)) {
                    state.addBuffer(object);
                }
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                // One object that cannot be read leaves the others' figures.
            }
        }
        if (!state.figures.isEmpty()) {
            state.figures.put(
                    ReportFigure.STATE_BYTES.field(),
                    state.figures.getOrDefault("inMemoryStoreBytes", 0L)
                            + state.figures.getOrDefault(ReportFigure.SUPPRESSION_BUFFER_BYTES.field(), 0L));
        }
        return state;
    }

    /** The report's {@code heapState} section; empty when the JVM holds no such state. */
    Map<String, Long> figures() {
        return figures;
    }

    /** The unbounded suppression buffers' store names, comma-separated, or null when there is none. */
    String unboundedBuffers() {
        return unboundedBuffers.isEmpty() ? null : String.join(", ", unboundedBuffers);
    }

    private void addStore(Object store) throws ReflectiveOperationException {
        if (!Boolean.TRUE.equals(store.getClass().getMethod("isOpen").invoke(store))) {
            return;
        }
        long entries =
                ((Number) store.getClass().getMethod("approximateNumEntries").invoke(store)).longValue();
        add(ReportFigure.IN_MEMORY_STORES.field(), 1);
        add("inMemoryStoreEntries", entries);
        add("inMemoryStoreBytes", entries == 0 ? 0 : entries * entryBytes(store));
    }

    /** The average heap of one entry, from the first entries. */
    private static long entryBytes(Object store) throws ReflectiveOperationException {
        Class<?> type = store.getClass();
        // Sampled under the store's monitor only where its writes take it (2.8 to 4.4 do): no write moves the map then.
        Method put = type.getMethod(
                "put",
                Class.forName("org.apache.kafka.common.utils.Bytes", false, type.getClassLoader()),
                byte[].class);
        if (!Modifier.isSynchronized(put.getModifiers())) {
            return UNSAMPLED_ENTRY_BYTES;
        }
        Field field = type.getDeclaredField("map");
        field.setAccessible(true);
        @SuppressWarnings("unchecked")
        NavigableMap<Object, Object> map = (NavigableMap<Object, Object>) field.get(store);
        Method keyBytes = null;
        long sum = 0;
        int sampled = 0;
        synchronized (store) {
            Map.Entry<Object, Object> entry = map.firstEntry();
            while (entry != null && sampled < SAMPLED_ENTRIES) {
                if (keyBytes == null) {
                    keyBytes = entry.getKey().getClass().getMethod("get");
                }
                sum += ENTRY_OVERHEAD
                        + arrayBytes(((byte[]) keyBytes.invoke(entry.getKey())).length)
                        + arrayBytes(((byte[]) entry.getValue()).length);
                sampled++;
                entry = map.higherEntry(entry.getKey());
            }
        }
        return sampled == 0 ? UNSAMPLED_ENTRY_BYTES : sum / sampled;
    }

    /** A byte array's heap: its 16-byte header and its bytes, padded to 8. */
    private static long arrayBytes(int length) {
        return (16L + length + 7) / 8 * 8;
    }

    private void addBuffer(Object processor) throws ReflectiveOperationException {
        Object buffer = field(processor, "buffer");
        if (buffer == null
                || !Boolean.TRUE.equals(buffer.getClass().getMethod("isOpen").invoke(buffer))) {
            return; // not initialised yet, or its task was closed
        }
        long records = ((Number) buffer.getClass().getMethod("numRecords").invoke(buffer)).longValue();
        long bytes = ((Number) buffer.getClass().getMethod("bufferSize").invoke(buffer)).longValue();
        add(ReportFigure.SUPPRESSION_BUFFERS.field(), 1);
        add("suppressionBufferRecords", records);
        add(ReportFigure.SUPPRESSION_BUFFER_BYTES.field(), bytes + records * BUFFERED_RECORD_OVERHEAD);
        boolean unbounded = (long) field(processor, "maxRecords") == Long.MAX_VALUE
                && (long) field(processor, "maxBytes") == Long.MAX_VALUE;
        if (unbounded) {
            add(ReportFigure.UNBOUNDED_SUPPRESSION_BUFFERS.field(), 1);
            unboundedBuffers.add(String.valueOf(field(processor, "storeName")));
        } else {
            add(ReportFigure.UNBOUNDED_SUPPRESSION_BUFFERS.field(), 0);
        }
    }

    private void add(String figure, long value) {
        figures.merge(figure, value, Long::sum);
    }

    private static Object field(Object object, String name) throws ReflectiveOperationException {
        Field field = object.getClass().getDeclaredField(name);
        field.setAccessible(true);
        return field.get(object);
    }
}
