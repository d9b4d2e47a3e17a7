package io.streamsmemory.operator.observe;

import java.time.Duration;

/**
 * How the operator reads the agents' memory reports ({@code streamsmemory.observe.*} in application.properties).
 *
 * @param interval    how often each injected, running pod's report is read
 * @param timeout     the longest one read may take (connect, answer and body)
 * @param concurrency reports read at once
 * @param window      how far back a workload's peak reaches
 * @param settle      how long a pod runs a split before its counters judge it (spec.tuning)
 */
public record ObserveSettings(Duration interval, Duration timeout, int concurrency, Duration window, Duration settle) {
    /** Off: nothing is read (tests of other parts, an operator run without pods to read). */
    public static final ObserveSettings OFF =
            new ObserveSettings(Duration.ZERO, Duration.ofSeconds(2), 1, Duration.ofHours(24), Duration.ofMinutes(10));

    public boolean enabled() {
        return !interval.isZero() && !interval.isNegative();
    }
}
