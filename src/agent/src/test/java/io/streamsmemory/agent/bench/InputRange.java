package io.streamsmemory.agent.bench;

import io.streamsmemory.agent.bench.MemoryBenchmark.Progress;
import java.util.List;

/**
 * The input records every variant of {@code make bench-throughput} is rated over (issue 64): from the {@code from}th
 * record the application processed to the {@code to}th. A rate over each run's last minutes judged a faster variant on a
 * later, colder part of the key space than a slower one (it had seen more keys, and missed more); over the same range
 * every variant does the same work, and a run ends once it has passed the range, with no tail to wait for.
 */
record InputRange(long from, long to) {
    InputRange {
        if (from < 0 || to <= from) {
            throw new IllegalArgumentException("bench.range: from < to needed, got " + from + ":" + to);
        }
    }

    /** {@code "from:to"}, as {@code RANGE=} gives it. */
    static InputRange parse(String text) {
        String[] parts = text.trim().split(":");
        if (parts.length != 2) {
            throw new IllegalArgumentException("bench.range: from:to expected, got " + text);
        }
        return new InputRange(Long.parseLong(parts[0].trim()), Long.parseLong(parts[1].trim()));
    }

    /** Whether the run has processed the whole range. */
    boolean passed(List<Progress> progress) {
        return !progress.isEmpty() && progress.get(progress.size() - 1).count() >= to;
    }

    /**
     * The run's progress over the range: from the first sample at or past {@code from} to the first at or past
     * {@code to}, or to its last sample when it stopped (was killed) within the range; null when it never reached
     * {@code from} or has no second sample in it.
     */
    SteadyRate.Window window(List<Progress> progress) {
        Progress start = firstAtLeast(progress, from);
        if (start == null) {
            return null;
        }
        Progress end = firstAtLeast(progress, to);
        if (end == null) {
            end = progress.get(progress.size() - 1);
        }
        return end.millis() > start.millis() ? new SteadyRate.Window(start, end) : null;
    }

    /** Records/s over the range (or over the part of it a killed run reached); NaN when not measured. */
    double rate(List<Progress> progress) {
        SteadyRate.Window window = window(progress);
        return window == null
                ? Double.NaN
                : (window.to().count() - window.from().count()) / ((window.toMillis() - window.fromMillis()) / 1000.0);
    }

    String label() {
        return from + ".." + to;
    }

    private static Progress firstAtLeast(List<Progress> progress, long count) {
        for (Progress p : progress) {
            if (p.count() >= count) {
                return p;
            }
        }
        return null;
    }
}
