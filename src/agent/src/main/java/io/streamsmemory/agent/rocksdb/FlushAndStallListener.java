package io.streamsmemory.agent.rocksdb;

import io.streamsmemory.agent.log.AgentLog;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.TableProperties;
import org.rocksdb.WriteStallCondition;
import org.rocksdb.WriteStallInfo;

/**
 * Counts completed flushes, their raw bytes and the time writes stall into {@link RocksDbStats}: the figures that tell
 * whether memtables are too small (many small flushes) or flushes fall behind (stalls). One instance for every store
 * of the JVM, created on first use and never closed (a RocksDB instance holds it while open). RocksDB calls it once
 * per flush and per stall change, never per write, on its own background threads; only the two callbacks it needs are
 * enabled, so RocksDB does not cross into Java for the others. Loaded only where RocksJava has event listeners
 * (6.x and later): with an older one this class fails to load, which its caller catches.
 */
final class FlushAndStallListener extends AbstractEventListener {
    /**
     * Kafka Streams 4.x's column family of committed offsets (KIP-1035): flushed at every commit with a few bytes in
     * it, it would drown the flushes of the data.
     */
    static final String OFFSETS_COLUMN_FAMILY = "offsets";

    /** Kafka Streams' options for a store with column families: it passes calls on to the options the DB opens with. */
    static final String KAFKA_OPTIONS_ADAPTER =
            "org.apache.kafka.streams.state.internals.RocksDBGenericOptionsToDbOptionsColumnFamilyOptionsAdapter";

    private static final Object LOCK = new Object();
    private static FlushAndStallListener shared;

    private FlushAndStallListener() {
        super(EnabledEventCallback.ON_FLUSH_COMPLETED, EnabledEventCallback.ON_STALL_CONDITIONS_CHANGED);
    }

    /**
     * Appends the JVM's listener to the store's options, after the listeners the application's own setter put there
     * (kept), once. Throws LinkageError where RocksJava has no event listeners.
     */
    static void appendTo(String storeName, Options options) {
        if (dropsListeners(options)) {
            AgentLog.warnOnce(
                    "rocksdb-listener-adapter",
                    "store " + storeName + ": this Kafka Streams' RocksDB options do not pass on event listeners;"
                            + " the report leaves out RocksDB's flushes and write stalls");
            return;
        }
        FlushAndStallListener listener = shared();
        List<AbstractEventListener> listeners = new ArrayList<>(options.listeners());
        for (AbstractEventListener present : listeners) {
            if (present == listener) {
                return;
            }
        }
        listeners.add(listener);
        options.setListeners(listeners);
        RocksDbStats.listening = true;
    }

    private static FlushAndStallListener shared() {
        synchronized (LOCK) {
            if (shared == null) {
                shared = new FlushAndStallListener();
            }
            return shared;
        }
    }

    /**
     * Whether the options are Kafka Streams' adapter of a version that does not pass {@code setListeners} on: the
     * listener would land on options no DB opens with, and the figures would read 0 instead of unknown.
     */
    static boolean dropsListeners(Options options) {
        Class<?> type = options.getClass();
        if (!type.getName().equals(KAFKA_OPTIONS_ADAPTER)) {
            return false;
        }
        for (Method method : type.getDeclaredMethods()) {
            if (method.getName().equals("setListeners")) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
        try {
            if (OFFSETS_COLUMN_FAMILY.equals(info.getColumnFamilyName())) {
                return;
            }
            RocksDbStats.FLUSHES.incrementAndGet();
            TableProperties table = info.getTableProperties();
            if (table != null) {
                RocksDbStats.FLUSHED_BYTES.addAndGet(table.getRawKeySize() + table.getRawValueSize());
            }
        } catch (Throwable t) {
            // A figure missed; a RocksDB background thread must never see an exception from the agent.
        }
    }

    @Override
    public void onStallConditionsChanged(WriteStallInfo info) {
        try {
            RocksDbStats.WRITE_STALLS.changed(
                    info.getPreviousCondition() != WriteStallCondition.NORMAL,
                    info.getCurrentCondition() != WriteStallCondition.NORMAL);
        } catch (Throwable t) {
            // as above
        }
    }
}
