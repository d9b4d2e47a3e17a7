package io.streamsmemory.operator.reconcile.decide;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.streamsmemory.operator.workload.WebhookReach;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the status conditions, keeping lastTransitionTime when a condition's status did not change; no message is
 * longer than {@link BoundedMessages#MAX_CHARS}.
 */
public final class Conditions {
    static final String READY = "Ready";
    static final String INVALID_SPEC = "InvalidSpec";
    static final String DEGRADED = "Degraded";
    static final String WARNING = "Warning";
    public static final String MEMORY_PRESSURE = "MemoryPressure";
    public static final String TOPOLOGY_MISMATCH = "TopologyMismatch";
    static final String TOPOLOGY_LEARNED = "TopologyLearned";
    public static final String WEBHOOK_REACHABLE = "WebhookReachable";

    private final List<Condition> previous;
    private final long generation;
    private final List<Condition> next = new ArrayList<>();

    Conditions(List<Condition> previous, long generation) {
        this.previous = previous == null ? List.of() : previous;
        this.generation = generation;
    }

    Conditions set(String type, boolean status, String reason, String message) {
        return set(type, status ? "True" : "False", reason, message);
    }

    /** A condition the operator could not evaluate this time (Kubernetes' "Unknown"). */
    Conditions unknown(String type, String reason, String message) {
        return set(type, "Unknown", reason, message);
    }

    /** {@link #WEBHOOK_REACHABLE}, as the webhook's install check decided it (True, False or Unknown). */
    Conditions webhookReach(WebhookReach reach) {
        return set(WEBHOOK_REACHABLE, reach.status(), reach.reason(), reach.message());
    }

    private Conditions set(String type, String value, String reason, String message) {
        String since = previous.stream()
                .filter(c -> c.getType().equals(type) && value.equals(c.getStatus()))
                .map(Condition::getLastTransitionTime)
                .findFirst()
                .orElse(Instant.now().toString());
        next.add(new ConditionBuilder()
                .withType(type)
                .withStatus(value)
                .withReason(reason)
                .withMessage(BoundedMessages.cap(message))
                .withLastTransitionTime(since)
                .withObservedGeneration(generation)
                .build());
        return this;
    }

    List<Condition> build() {
        return List.copyOf(next);
    }
}
