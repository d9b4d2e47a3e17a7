package io.streamsmemory.agent.bench;

import io.streamsmemory.agent.bench.MemoryBenchmark.Progress;
import java.util.List;

/**
 * A run's rate over its last {@value #STEADY_SECONDS} s, once it has left its start (issue 43), for {@code make
 * bench-memory}; {@code make bench-throughput} rates every variant over the same input records instead
 * ({@link InputRange}). {@link Window} is the span of progress every other figure of a run is taken over.
 */
final class SteadyRate {
    /** The rate a run is judged by: records/s over its last this many seconds. */
    static final int STEADY_SECONDS = 120;

    private SteadyRate() {}

    /**
     * Records/s over the last {@code seconds} of the run's progress, ending where its count last rose: a run that
     * consumed all its input is judged by the rate it had while it still had input, not by the idle seconds after.
     * NaN when the progress spans less than {@code seconds}.
     */
    static double overLast(List<Progress> progress, double seconds) {
        Window window = window(progress, seconds);
        return window == null ? Double.NaN : rate(window.from(), window.to());
    }

    /** Two progress samples: the steady window's first and last. */
    record Window(Progress from, Progress to) {
        long fromMillis() {
            return from.millis();
        }

        long toMillis() {
            return to.millis();
        }
    }

    /**
     * The last {@code seconds} of the run's progress, ending where its count last rose ({@link #overLast}); every
     * other figure of a run's steady state (RocksDB's counters, the flight recording) is taken over the same window.
     * Null when the progress spans less than {@code seconds}.
     */
    static Window window(List<Progress> progress, double seconds) {
        List<Progress> moving = untilLastRise(progress);
        if (moving.size() < 2) {
            return null;
        }
        Progress last = moving.get(moving.size() - 1);
        Progress from = atOrBefore(moving, last.millis() - Math.round(seconds * 1000));
        return from == null || from.millis() == last.millis() ? null : new Window(from, last);
    }

    private static double rate(Progress from, Progress to) {
        double span = (to.millis() - from.millis()) / 1000.0;
        return span > 0 ? (to.count() - from.count()) / span : 0;
    }

    /** The progress up to and including the sample at which its count last rose. */
    private static List<Progress> untilLastRise(List<Progress> progress) {
        int end = progress.size() - 1;
        while (end > 0 && progress.get(end - 1).count() >= progress.get(end).count()) {
            end--;
        }
        return progress.subList(0, end + 1);
    }

    /** The last sample at or before {@code millis}; null when every sample is later. */
    private static Progress atOrBefore(List<Progress> progress, long millis) {
        return Samples.atOrBefore(progress, Progress::millis, millis);
    }
}
