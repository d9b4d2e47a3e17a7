package io.streamsmemory.agent.bench;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.rocksdb.HistogramType;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * RocksDB's own counters over a run's steady window: how often the block cache served a data block, and an index or
 * filter block, and how long writes stalled. The bench application's setter ({@link EventLogRocksDBConfig}) gives every
 * store of every variant one shared {@link Statistics} that keeps counters only (no histograms, which cost a timer
 * per call), and the application prints them every second as
 * {@code ROCKSDB <epoch ms> <data hits> <data misses> <index and filter hits> <index and filter misses> <stall us>}.
 * A counter is a per-core increment; the statistics replace none of Kafka Streams' own, which at the default
 * {@code metrics.recording.level=INFO} collects none.
 */
record RocksDbTickers(
        long millis, long dataHits, long dataMisses, long indexFilterHits, long indexFilterMisses, long stallMicros) {
    static final String PREFIX = "ROCKSDB ";

    /** The statistics the bench application shares among all its stores. */
    static Statistics countersOnly() {
        return new Statistics(EnumSet.allOf(HistogramType.class));
    }

    /** The line the bench application prints for {@code statistics} at {@code millis}. */
    static String line(Statistics statistics, long millis) {
        return PREFIX + millis
                + " " + statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_HIT)
                + " " + statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS)
                + " "
                + (statistics.getTickerCount(TickerType.BLOCK_CACHE_INDEX_HIT)
                        + statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_HIT))
                + " "
                + (statistics.getTickerCount(TickerType.BLOCK_CACHE_INDEX_MISS)
                        + statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_MISS))
                + " " + statistics.getTickerCount(TickerType.STALL_MICROS);
    }

    /** One printed line read back; null for any other line. */
    static RocksDbTickers parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return null;
        }
        String[] parts = line.substring(PREFIX.length()).trim().split(" ");
        if (parts.length != 6) {
            return null;
        }
        long[] values = new long[6];
        for (int i = 0; i < values.length; i++) {
            values[i] = Long.parseLong(parts[i]);
        }
        return new RocksDbTickers(values[0], values[1], values[2], values[3], values[4], values[5]);
    }

    /**
     * The counters' movement between the samples at or before the window's ends (the application prints them with its
     * progress), as a run's row prints it; "no RocksDB counters" when none was sampled there.
     */
    static String overWindow(List<RocksDbTickers> samples, SteadyRate.Window window) {
        RocksDbTickers from =
                window == null ? null : Samples.atOrBefore(samples, RocksDbTickers::millis, window.fromMillis());
        RocksDbTickers to =
                window == null ? null : Samples.atOrBefore(samples, RocksDbTickers::millis, window.toMillis());
        if (window == null || from == null || to == null || from == to) {
            return "no RocksDB counters over the steady window";
        }
        return String.format(
                Locale.ROOT,
                "block cache hit ratio data=%s index+filter=%s (%d and %d lookups), write stalls %.1f s",
                ratio(to.dataHits - from.dataHits, to.dataMisses - from.dataMisses),
                ratio(to.indexFilterHits - from.indexFilterHits, to.indexFilterMisses - from.indexFilterMisses),
                (to.dataHits - from.dataHits) + (to.dataMisses - from.dataMisses),
                (to.indexFilterHits - from.indexFilterHits) + (to.indexFilterMisses - from.indexFilterMisses),
                (to.stallMicros - from.stallMicros) / 1e6);
    }

    private static String ratio(long hits, long misses) {
        return hits + misses == 0 ? "n/a" : String.format(Locale.ROOT, "%.3f", hits / (double) (hits + misses));
    }
}
