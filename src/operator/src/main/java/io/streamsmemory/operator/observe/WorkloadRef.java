package io.streamsmemory.operator.observe;

/** A workload the observer reports on: its namespace, kind (Deployment or StatefulSet) and name. */
public record WorkloadRef(String namespace, String kind, String name) {
    static WorkloadRef of(String key) {
        String[] parts = key.split("/", 3);
        return new WorkloadRef(parts[0], parts[1], parts[2]);
    }
}
