package io.streamsmemory.operator.observe;

/** Observations as one reporting pod would give them, for tests outside this package. */
public final class WorkloadObservations {
    private WorkloadObservations() {}

    public static WorkloadObservation reporting(long rssBytes, long peakBytes) {
        return WorkloadObservation.none()
                .with(new AgentReport(
                        "h",
                        rssBytes,
                        peakBytes,
                        null,
                        null,
                        0L,
                        rssBytes / 3,
                        rssBytes / 4,
                        4L,
                        4L,
                        0L,
                        2L,
                        1L,
                        rssBytes / 20,
                        6_000L,
                        40 * 1024 * 1024L,
                        10 * 1024 * 1024L,
                        "plan",
                        JvmCapsUse.NONE,
                        null,
                        null,
                        null,
                        null));
    }
}
