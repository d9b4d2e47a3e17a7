package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.EventRecorder.Type;

/**
 * An Event a decision tells, as data: {@link WorkloadActor} posts it on the workload. {@code gist} is what a repeat is
 * compared by ({@link EventRecorder} posts a repeat once), the message itself unless a part of it changes every time.
 */
record Told(Type type, String reason, String message, String gist) {
    static Told normal(String reason, String message) {
        return new Told(Type.Normal, reason, message, message);
    }

    static Told warning(String reason, String message) {
        return new Told(Type.Warning, reason, message, message);
    }

    void post(EventRecorder events, HasMetadata on) {
        events.record(on, type, reason, message, gist);
    }
}
