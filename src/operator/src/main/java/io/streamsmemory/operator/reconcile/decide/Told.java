package io.streamsmemory.operator.reconcile.decide;

import io.streamsmemory.operator.workload.EventRecorder.Type;

/**
 * An Event a decision tells, as data: the reconciler's {@code WorkloadActor} posts it on the workload. {@code gist} is
 * what a repeat is compared by (the {@code EventRecorder} posts a repeat once), the message itself unless a part of it changes every time.
 */
public record Told(Type type, String reason, String message, String gist) {
    static Told normal(String reason, String message) {
        return new Told(Type.Normal, reason, message, message);
    }

    static Told warning(String reason, String message) {
        return new Told(Type.Warning, reason, message, message);
    }
}
