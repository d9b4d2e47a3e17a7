package io.streamsmemory.operator.observe;

/**
 * What a workload's pods show about how their memory is split, from counters each agent keeps since its JVM started
 * (src/agent/README.md): the share of the time in GC pauses and in RocksDB write stalls, the mean size of a memtable
 * flush, and the rate of reads that reached storage; and what the user sees of it: the consumer lag and the CPU per
 * record processed. Since a change of the split restarts the pods, the counters of a pod running the current
 * allocation measure that allocation alone. Each figure is the worst any pod shows (the busiest pod is the one that
 * falls behind), null when no pod reported it.
 *
 * @param allocationHash      the allocation every reporting pod runs, null when they run different ones
 * @param minUptimeMillis     the shortest time any reporting pod has run
 * @param gcShare             the largest share of a pod's time spent in GC pauses
 * @param stallShare          the largest share of a pod's time during which a column family stalled writes
 * @param meanFlushBytes      the smallest mean size of a pod's memtable flushes (raw keys and values)
 * @param storageReadsPerSecond the most bytes per second a pod read from storage (block and page cache misses)
 * @param consumerLagRecords  the largest consumer lag of a pod's main consumers ({@code records-lag-max}, the most
 *                            records any partition trailed its end by over the consumer's metric window)
 * @param cpuNanosPerRecord   the most CPU time a pod's process spent per record processed: over the last
 *                            {@code streamsmemory.observe.settle} of the reports the operator read from the same JVM
 *                            ({@link CpuPerRecordWindow}), else over the JVM's life
 */
public record TuningSignals(
        String allocationHash,
        long minUptimeMillis,
        Double gcShare,
        Double stallShare,
        Long meanFlushBytes,
        Double storageReadsPerSecond,
        Long consumerLagRecords,
        Double cpuNanosPerRecord) {

    /** Without the figures the user sees (an agent older than them). */
    public TuningSignals(
            String allocationHash,
            long minUptimeMillis,
            Double gcShare,
            Double stallShare,
            Long meanFlushBytes,
            Double storageReadsPerSecond) {
        this(allocationHash, minUptimeMillis, gcShare, stallShare, meanFlushBytes, storageReadsPerSecond, null, null);
    }

    /** One pod's signals; null without an allocation hash or an uptime, which every figure is relative to. */
    static TuningSignals of(
            String allocationHash,
            Long uptimeMillis,
            Long gcPauseMillis,
            Long writeStallMillis,
            Long flushes,
            Long flushedBytes,
            Long storageReadBytes,
            Long consumerLagRecords,
            Long processCpuNanos,
            Long processedRecords) {
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
                storageReadBytes == null ? null : storageReadBytes * 1000.0 / uptime,
                consumerLagRecords,
                perRecord(processCpuNanos, processedRecords));
    }

    /** CPU nanoseconds per record, null when either is unknown or no record was processed. */
    static Double perRecord(Long cpuNanos, Long records) {
        return cpuNanos == null || records == null || records <= 0 ? null : cpuNanos / (double) records;
    }

    /** These signals with the CPU per record replaced; null keeps the one they have. */
    TuningSignals withCpuNanosPerRecord(Double cpuPerRecord) {
        return cpuPerRecord == null
                ? this
                : new TuningSignals(
                        allocationHash,
                        minUptimeMillis,
                        gcShare,
                        stallShare,
                        meanFlushBytes,
                        storageReadsPerSecond,
                        consumerLagRecords,
                        cpuPerRecord);
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
                larger(a.storageReadsPerSecond, b.storageReadsPerSecond),
                AgentReport.max(a.consumerLagRecords, b.consumerLagRecords),
                larger(a.cpuNanosPerRecord, b.cpuNanosPerRecord));
    }

    private static Double larger(Double a, Double b) {
        return a == null ? b : b == null ? a : Math.max(a, b);
    }
}
