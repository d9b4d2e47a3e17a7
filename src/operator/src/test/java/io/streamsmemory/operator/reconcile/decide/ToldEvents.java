package io.streamsmemory.operator.reconcile.decide;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.streamsmemory.operator.workload.EventRecorder;
import java.util.ArrayList;
import java.util.List;

/**
 * The Events a reconcile step tells, kept in order instead of posted: a step's unit test asserts what it says
 * without an API server. Every Event is kept, a repeat too ({@link EventRecorder} posts a repeat once).
 */
final class ToldEvents extends EventRecorder {
    private final List<Told> told = new ArrayList<>();

    ToldEvents() {
        super(null);
    }

    @Override
    public void record(HasMetadata object, Type type, String reason, String message, String gist) {
        told.add(new Told(type, reason, message, gist));
    }

    List<Told> told() {
        return List.copyOf(told);
    }
}
