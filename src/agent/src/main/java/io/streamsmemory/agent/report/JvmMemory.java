package io.streamsmemory.agent.report;

import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.protocol.ReportFigure;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JVM's own memory figures from its management beans (read on every call; only the bean handles and the two
 * flags that cannot change while the JVM runs are kept).
 */
final class JvmMemory {
    /** The stack reserved per thread when -Xss (HotSpot's ThreadStackSize) is 0 or unreadable: Linux x64's default. */
    static final long DEFAULT_STACK_BYTES = 1L << 20;

    static final String METASPACE_POOL = "Metaspace";
    /**
     * Segmented code cache pools are "CodeHeap 'non-nmethods'" etc.; unsegmented (ReservedCodeCacheSize below 240 MiB,
     * as the engine plans it) it is one "CodeCache" pool on Java 9 and later, "Code Cache" on Java 8.
     */
    static final String CODE_HEAP_PREFIX = "CodeHeap";

    static final String CODE_CACHE_POOL = "CodeCache";
    static final String CODE_CACHE_POOL_JAVA8 = "Code Cache";

    private JvmMemory() {}

    /** Bean handles and fixed flags, looked up on first use (never in premain). */
    private static final class Beans {
        static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
        static final List<MemoryPoolMXBean> POOLS = ManagementFactory.getMemoryPoolMXBeans();
        static final BufferPoolMXBean DIRECT = direct();
        static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        static final ClassLoadingMXBean CLASSES = ManagementFactory.getClassLoadingMXBean();
        static final List<GarbageCollectorMXBean> COLLECTORS = ManagementFactory.getGarbageCollectorMXBeans();
        static final RuntimeMXBean RUNTIME = ManagementFactory.getRuntimeMXBean();
        /** -XX:MaxDirectMemorySize; 0 (unset) means as large as the heap. */
        static final long DIRECT_MAX =
                JvmLimits.vmOption("MaxDirectMemorySize", Runtime.getRuntime().maxMemory());

        static final long STACK_BYTES = stackBytes();

        private static BufferPoolMXBean direct() {
            for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                if ("direct".equals(pool.getName())) {
                    return pool;
                }
            }
            return null;
        }

        /** ThreadStackSize is in KiB. */
        private static long stackBytes() {
            long kib = JvmLimits.vmOption("ThreadStackSize", -1);
            return kib > 0 && kib != JvmLimits.UNLIMITED ? kib * 1024 : DEFAULT_STACK_BYTES;
        }
    }

    /** The report's {@code jvm} section. */
    static Map<String, Long> read() {
        Map<String, Long> out = new LinkedHashMap<>();
        MemoryUsage heap = Beans.MEMORY.getHeapMemoryUsage();
        out.put(ReportFigure.HEAP_USED_BYTES.field(), heap.getUsed());
        out.put(ReportFigure.HEAP_COMMITTED_BYTES.field(), heap.getCommitted());
        putKnown(out, ReportFigure.HEAP_MAX_BYTES.field(), heap.getMax());
        long metaspaceUsed = -1;
        long metaspaceCommitted = -1;
        long metaspacePeakCommitted = -1;
        long metaspaceMax = -1;
        long codeUsed = 0;
        long codePeak = 0;
        long codeMax = 0;
        boolean code = false;
        for (MemoryPoolMXBean pool : Beans.POOLS) {
            String name = pool.getName();
            if (METASPACE_POOL.equals(name)) {
                MemoryUsage usage = pool.getUsage();
                metaspaceUsed = usage.getUsed();
                metaspaceCommitted = usage.getCommitted();
                metaspacePeakCommitted = pool.getPeakUsage().getCommitted();
                metaspaceMax = usage.getMax();
            } else if (name.startsWith(CODE_HEAP_PREFIX)
                    || CODE_CACHE_POOL.equals(name)
                    || CODE_CACHE_POOL_JAVA8.equals(name)) {
                MemoryUsage usage = pool.getUsage();
                codeUsed += usage.getUsed();
                // The sum of each pool's peak: at least the peak of the whole (the pools peak at different times).
                codePeak += pool.getPeakUsage().getUsed();
                codeMax = codeMax < 0 || usage.getMax() < 0 ? -1 : codeMax + usage.getMax();
                code = true;
            }
        }
        putKnown(out, ReportFigure.METASPACE_USED_BYTES.field(), metaspaceUsed);
        // MaxMetaspaceSize caps what is committed, not what is used: with many class loaders (each holding partly
        // used chunks) a JVM fails with OutOfMemoryError: Metaspace while 88% of it is used (measured with a test
        // JVM of 32 MiB metaspace and about 230 class loaders), so the cap is held against the committed figure.
        putKnown(out, ReportFigure.METASPACE_COMMITTED_BYTES.field(), metaspaceCommitted);
        // Peaks since the JVM started: what spec.jvm.sizing: Observed sizes the caps from (a sample can miss them).
        putKnown(out, ReportFigure.METASPACE_PEAK_COMMITTED_BYTES.field(), metaspacePeakCommitted);
        putKnown(out, ReportFigure.METASPACE_MAX_BYTES.field(), metaspaceMax); // -1: no MaxMetaspaceSize, left out
        if (code) {
            out.put(ReportFigure.CODE_CACHE_USED_BYTES.field(), codeUsed);
            out.put(ReportFigure.CODE_CACHE_PEAK_BYTES.field(), codePeak);
            putKnown(out, ReportFigure.CODE_CACHE_MAX_BYTES.field(), codeMax);
        }
        if (Beans.DIRECT != null) {
            putKnown(out, ReportFigure.DIRECT_USED_BYTES.field(), Beans.DIRECT.getMemoryUsed());
        }
        if (Beans.DIRECT_MAX != JvmLimits.UNLIMITED) {
            putKnown(out, "directMaxBytes", Beans.DIRECT_MAX);
        }
        out.put(ReportFigure.LOADED_CLASSES.field(), (long) Beans.CLASSES.getLoadedClassCount());
        out.put(ReportFigure.LIVE_THREADS.field(), (long) Beans.THREADS.getThreadCount());
        putGc(out);
        // What the report's figures since the JVM started (GC pauses, flushes, stall time, storage reads) are read
        // against.
        putKnown(out, ReportFigure.UPTIME_MILLIS.field(), Beans.RUNTIME.getUptime());
        return out;
    }

    /**
     * Collections and their pause time since the JVM started, summed over the collectors that stop the application:
     * two reports a window apart give the share of the window the application stood still in GC (what a heap too small
     * for what the plan puts in it shows first). The beans of concurrent work ("G1 Concurrent GC", "ZGC Cycles",
     * "Shenandoah Cycles") are left out: their time runs beside the application.
     */
    private static void putGc(Map<String, Long> out) {
        long collections = 0;
        long pauseMillis = 0;
        boolean seen = false;
        for (GarbageCollectorMXBean collector : Beans.COLLECTORS) {
            String name = collector.getName();
            if (name.contains("Concurrent") || name.contains("Cycles")) {
                continue;
            }
            long count = collector.getCollectionCount();
            long time = collector.getCollectionTime();
            if (count >= 0 && time >= 0) {
                collections += count;
                pauseMillis += time;
                seen = true;
            }
        }
        if (seen) {
            out.put("gcCollections", collections);
            out.put(ReportFigure.GC_PAUSE_MILLIS.field(), pauseMillis);
        }
    }

    /** The stack reserved per thread (-Xss, else {@link #DEFAULT_STACK_BYTES}). */
    static long stackBytesPerThread() {
        return Beans.STACK_BYTES;
    }

    static long loadedClasses() {
        return Beans.CLASSES.getLoadedClassCount();
    }

    /** Bytes in use in the "Metaspace" pool; -1 when the JVM has none. */
    static long metaspaceUsedBytes() {
        for (MemoryPoolMXBean pool : Beans.POOLS) {
            if (METASPACE_POOL.equals(pool.getName())) {
                return pool.getUsage().getUsed();
            }
        }
        return -1;
    }

    static long directUsedBytes() {
        return Beans.DIRECT == null ? -1 : Beans.DIRECT.getMemoryUsed();
    }

    static long directMaxBytes() {
        return Beans.DIRECT_MAX;
    }

    private static void putKnown(Map<String, Long> out, String field, long value) {
        if (value >= 0) {
            out.put(field, value);
        }
    }
}
