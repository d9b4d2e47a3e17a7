package io.streamsmemory.operator.observe;

/** Observations as one reporting pod would give them, for tests outside this package. */
public final class WorkloadObservations {
    private WorkloadObservations() {}

    public static WorkloadObservation reporting(long rssBytes, long peakBytes) {
        return AgentReports.running()
                .memory(rssBytes, peakBytes, 0)
                .parts(rssBytes / 3, rssBytes / 4, rssBytes / 20)
                .classes(6_000L, 40 * 1024 * 1024L)
                .observation();
    }
}
