package io.streamsmemory.operator.observe;

import java.time.Duration;
import java.time.Instant;
import java.util.TreeMap;

/**
 * A workload's largest observed topology over a sliding window, in the same 24 buckets as {@link PeakWindow}: a
 * rebalance that briefly puts more tasks on a pod is planned for until it leaves the window.
 */
final class TopologyWindow {
    private final long bucketMillis;
    private final TreeMap<Long, ObservedTopology> peaks = new TreeMap<>();

    TopologyWindow(Duration window) {
        this.bucketMillis = Math.max(1, window.toMillis() / PeakWindow.BUCKETS);
    }

    synchronized void record(Instant at, ObservedTopology round) {
        // A JVM before its Kafka Streams runs reports its JVM's figures only (its classes are counted once it runs).
        if (round.reportsStreams() || round.loadedClasses() != null || !JvmCapsUse.NONE.equals(round.jvmCaps())) {
            peaks.merge(at.toEpochMilli() / bucketMillis, round, ObservedTopology::max);
        }
    }

    /** The largest topology of the window ending at {@code now}; null when nothing was recorded in it. */
    synchronized ObservedTopology peak(Instant now) {
        peaks.headMap(now.toEpochMilli() / bucketMillis - PeakWindow.BUCKETS, true)
                .clear();
        return peaks.values().stream().reduce(ObservedTopology::max).orElse(null);
    }
}
