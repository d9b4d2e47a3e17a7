package io.streamsmemory.operator.observe;

/**
 * What a workload's pods show about how their memory is split, from counters each agent keeps since its JVM started
 * (src/agent/README.md): the share of the time in GC pauses and in RocksDB write stalls, the mean size of a memtable
 * flush, and the rate of reads that reached storage. Since a change of the split restarts the pods, the counters of a
 * pod running the current allocation measure that allocation alone. Each figure is the worst any pod shows (the
 * busiest pod is the one that falls behind), null when no pod reported it.
 *
 * @param allocationHash      the allocation every reporting pod runs, null when they run different ones
 * @param minUptimeMillis     the shortest time any reporting pod has run
 * @param gcShare             the largest share of a pod's time spent in GC pauses
 * @param stallShare          the largest share of a pod's time during which a column family stalled writes
 * @param meanFlushBytes      the smallest mean size of a pod's memtable flushes (raw keys and values)
 * @param storageReadsPerSecond the most bytes per second a pod read from storage (block and page cache misses)
 */
public record TuningSignals(
        String allocationHash,
        long minUptimeMillis,
        Double gcShare,
        Double stallShare,
        Long meanFlushBytes,
        Double storageReadsPerSecond) {

    /** One pod's signals; null without an allocation hash or an uptime, which every figure is relative to. */
    static TuningSignals of(
            String allocationHash,
            Long uptimeMillis,
            Long gcPauseMillis,
            Long writeStallMillis,
            Long flushes,
            Long flushedBytes,
            Long storageReadBytes) {
        if (allocationHash == null || uptimeMillis == null || uptimeMillis <= 0) {
            return null;
        }
        double uptime = uptimeMillis;
        return new TuningSignals(
                allocationHash,
                uptimeMillis,
                gcPauseMillis == null ? null : Math.min(1.0, gcPauseMillis / uptime),
                writeStallMillis == null ? null : Math.min(1.0, writeStallMillis / uptime),
                flushes == null || flushedBytes == null || flushes == 0 ? null : flushedBytes / flushes,
                storageReadBytes == null ? null : storageReadBytes * 1000.0 / uptime);
    }

    /** Both pods' signals, each figure the worse of the two; either may be null. */
    static TuningSignals worse(TuningSignals a, TuningSignals b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return new TuningSignals(
                a.allocationHash.equals(b.allocationHash) ? a.allocationHash : null,
                Math.min(a.minUptimeMillis, b.minUptimeMillis),
                larger(a.gcShare, b.gcShare),
                larger(a.stallShare, b.stallShare),
                a.meanFlushBytes == null
                        ? b.meanFlushBytes
                        : b.meanFlushBytes == null ? a.meanFlushBytes : Math.min(a.meanFlushBytes, b.meanFlushBytes),
                larger(a.storageReadsPerSecond, b.storageReadsPerSecond));
    }

    private static Double larger(Double a, Double b) {
        return a == null ? b : b == null ? a : Math.max(a, b);
    }
}
