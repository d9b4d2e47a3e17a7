package io.streamsmemory.agent.rocksdb;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** What the setter has seen; free of RocksDB types so the MBean loads even where RocksDB is absent. */
public final class RocksDbStats {
    public static final AtomicInteger OPEN = new AtomicInteger();
    public static final AtomicLong OPENED = new AtomicLong();
    public static final Set<String> CHAINED_SETTERS = ConcurrentHashMap.newKeySet();
    /**
     * The planned RocksDB options the application's own setter had set itself, and which the agent therefore left as
     * the application set them (do no harm): today {@code optimize_filters_for_hits}.
     */
    public static final Set<String> KEPT_APPLICATION_OPTIONS = ConcurrentHashMap.newKeySet();

    public static volatile long capacity = -1;
    public static volatile LongSupplier usage = () -> -1;
    public static volatile LongSupplier pinnedUsage = () -> -1;
    /** RocksDB's flush threads in force now (the JVM environment's HIGH-priority pool). */
    public static volatile LongSupplier flushThreads = () -> -1;

    /**
     * Set once {@link FlushAndStallListener} is on a store's options: before that (or where RocksJava has no event
     * listeners) the three figures below are unknown, not 0.
     */
    public static volatile boolean listening;
    /** Memtable flushes completed, of every column family but Kafka Streams 4.x's {@code offsets}. */
    public static final AtomicLong FLUSHES = new AtomicLong();
    /** The raw key and value bytes of those flushes. */
    public static final AtomicLong FLUSHED_BYTES = new AtomicLong();

    public static final WriteStallClock WRITE_STALLS = new WriteStallClock(System::nanoTime);

    private RocksDbStats() {}

    static void reset() {
        OPEN.set(0);
        OPENED.set(0);
        CHAINED_SETTERS.clear();
        KEPT_APPLICATION_OPTIONS.clear();
        capacity = -1;
        usage = () -> -1;
        pinnedUsage = () -> -1;
        flushThreads = () -> -1;
        listening = false;
        FLUSHES.set(0);
        FLUSHED_BYTES.set(0);
        WRITE_STALLS.reset();
    }
}
