package io.streamsmemory.operator.reconcile;

/**
 * How much a policy's status lists ({@code streamsmemory.status.*} in application.properties).
 *
 * @param maxWorkloadRows the most entries {@code status.workloads} holds; the others are counted in
 *                        {@code status.workloadRowsOmitted} (a policy is one object, which etcd holds to 1.5 MiB)
 */
public record StatusSettings(int maxWorkloadRows) {
    public StatusSettings {
        if (maxWorkloadRows < 0) {
            throw new IllegalArgumentException(
                    "streamsmemory.status.max-workload-rows must not be negative, was " + maxWorkloadRows);
        }
    }
}
