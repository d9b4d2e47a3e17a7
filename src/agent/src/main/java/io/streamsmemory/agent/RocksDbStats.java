package io.streamsmemory.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** What the setter has seen; free of RocksDB types so the MBean loads even where RocksDB is absent. */
final class RocksDbStats {
    static final AtomicInteger OPEN = new AtomicInteger();
    static final AtomicLong OPENED = new AtomicLong();
    static final Set<String> CHAINED_SETTERS = ConcurrentHashMap.newKeySet();
    static volatile long capacity = -1;
    static volatile LongSupplier usage = () -> -1;
    static volatile LongSupplier pinnedUsage = () -> -1;
    /** RocksDB's flush threads in force now (the JVM environment's HIGH-priority pool). */
    static volatile LongSupplier flushThreads = () -> -1;

    private RocksDbStats() {}

    static void reset() {
        OPEN.set(0);
        OPENED.set(0);
        CHAINED_SETTERS.clear();
        capacity = -1;
        usage = () -> -1;
        pinnedUsage = () -> -1;
        flushThreads = () -> -1;
    }
}
