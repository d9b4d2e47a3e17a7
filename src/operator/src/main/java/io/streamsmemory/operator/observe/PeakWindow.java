package io.streamsmemory.operator.observe;

import java.time.Duration;
import java.time.Instant;
import java.util.TreeMap;

/**
 * A workload's highest memory use over a sliding window, in 24 buckets (one maximum per 1/24 of the window), so
 * a day of 30-second rounds costs 24 numbers per workload, not 2,880.
 */
final class PeakWindow {
    static final int BUCKETS = 24;
    private final long bucketMillis;
    private final TreeMap<Long, Long> peaks = new TreeMap<>();

    PeakWindow(Duration window) {
        this.bucketMillis = Math.max(1, window.toMillis() / BUCKETS);
    }

    synchronized void record(Instant at, Long bytes) {
        if (bytes != null) {
            peaks.merge(at.toEpochMilli() / bucketMillis, bytes, Math::max);
        }
    }

    /** The peak of the window ending at {@code now}; null when nothing was recorded in it. */
    synchronized Long peak(Instant now) {
        long current = now.toEpochMilli() / bucketMillis;
        peaks.headMap(current - BUCKETS, true).clear();
        return peaks.values().stream().max(Long::compare).orElse(null);
    }
}
