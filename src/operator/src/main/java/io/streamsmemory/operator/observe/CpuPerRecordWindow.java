package io.streamsmemory.operator.observe;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * One pod's CPU per record over the last {@code span} of the reports the operator read from it: the growth of its
 * process's CPU time over the growth of its records processed, from the newest report at least {@code span} old (or
 * the oldest read) to the last. Over a window rather than the JVM's life, so a pod that has run for days is judged on
 * what it does now, as a pod just restarted on a tuning step is (whose window is its life since the first report
 * read); a restart or a count that goes back (a stream thread replaced) starts the window again.
 */
final class CpuPerRecordWindow {
    private final long spanMillis;
    private final ArrayDeque<AgentReport.Progress> samples = new ArrayDeque<>();

    CpuPerRecordWindow(java.time.Duration span) {
        this.spanMillis = Math.max(0, span.toMillis());
    }

    /** Adds the pod's latest counters; its CPU per record over the window, or null when no record was processed in it. */
    synchronized Double add(AgentReport.Progress now) {
        AgentReport.Progress last = samples.peekLast();
        if (last != null
                && (now.uptimeMillis() < last.uptimeMillis()
                        || now.processCpuNanos() < last.processCpuNanos()
                        || now.processedRecords() < last.processedRecords())) {
            samples.clear();
        }
        samples.addLast(now);
        while (samples.size() > 2 && second().uptimeMillis() <= now.uptimeMillis() - spanMillis) {
            samples.removeFirst();
        }
        AgentReport.Progress first = samples.peekFirst();
        return first == now
                ? null
                : TuningSignals.perRecord(
                        now.processCpuNanos() - first.processCpuNanos(),
                        now.processedRecords() - first.processedRecords());
    }

    private AgentReport.Progress second() {
        Iterator<AgentReport.Progress> it = samples.iterator();
        it.next();
        return it.next();
    }
}
