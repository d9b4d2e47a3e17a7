package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Rolls a workload whose published allocation needs a restart, when the policy allows it and {@link RolloutGate}
 * lets it start now; records pods the webhook already started with it instead; tells each decision in one Event.
 */
final class WorkloadRollout {
    private final EventRecorder events;
    private final RolloutStamper stamper;

    WorkloadRollout(EventRecorder events, RolloutStamper stamper) {
        this.events = events;
        this.stamper = stamper;
    }

    /**
     * Stamps the template when the running settings need a restart, the policy allows it and {@link RolloutGate}
     * lets it start now; returns when to look again if it waits, else null. A re-split ({@code resplit}, null when
     * none) is told in the same Event as the restart it needs, so a re-split of N workloads posts N Events, not 2N.
     */
    Duration rollIfNeeded(
            StreamsMemoryPolicy policy,
            Workload workload,
            Allocation allocation,
            PlannedRange range,
            String resplit,
            RolloutGate.Urgency urgency,
            NamespacePods pods) {
        if (workload.appliedRestartHash()
                .filter(allocation.restartHash()::equals)
                .isPresent()) {
            return alreadyApplied(workload, resplit);
        }
        if (admittedWithIt(workload, allocation.restartHash(), pods)) {
            stamper.recordAdmitted(workload, allocation.restartHash());
            events.record(
                    workload.resource(),
                    Type.Normal,
                    "OptedIn",
                    String.format(
                            "every pod already runs restart hash %s (the admission webhook injected them with the "
                                    + "allocation): recorded on the workload, not rolled",
                            allocation.restartHash()));
            return null;
        }
        String why = whyRestart(workload, allocation, range);
        String told = resplit == null ? "" : resplit + "; ";
        if (policy.getSpec().getRollout() == Rollout.Manual) {
            String pending = String.format(
                    "%s (restart hash %s); rollout is Manual, restart the pods to apply them",
                    why, allocation.restartHash());
            events.record(workload.resource(), Type.Normal, "RestartPending", told + pending, pending);
            return null;
        }
        Optional<RolloutGate.Wait> wait = stamper.mustWait(workload, urgency);
        if (wait.isPresent()) {
            String waiting = String.format(
                    "%s (restart hash %s); not rolled yet: %s",
                    why, allocation.restartHash(), wait.get().reason());
            events.record(workload.resource(), Type.Normal, "RestartPending", told + waiting, waiting);
            return wait.get().retryAfter();
        }
        // The cache can lag this operator's own stamp by seconds on a loaded API server, and a reconcile right after
        // it would stamp again: an Event telling of a restart that is none, and a new last-rollout time, which moves a
        // Deployment's generation (its annotations count). The live template decides (a read only before a stamp).
        if (stamper.liveRestartHash(workload)
                .filter(allocation.restartHash()::equals)
                .isPresent()) {
            return alreadyApplied(workload, resplit);
        }
        stamper.stamp(workload, allocation.restartHash());
        events.record(
                workload.resource(),
                Type.Normal,
                "RollingRestart",
                String.format(
                        "%s%s: stamped restart hash %s on the pod template", told, why, allocation.restartHash()));
        return null;
    }

    /** The pods already run the allocation's settings or are rolling to them: a re-split is told on its own. */
    private Duration alreadyApplied(Workload workload, String resplit) {
        if (resplit != null) {
            events.record(workload.resource(), Type.Normal, "Resplit", resplit);
        }
        return null;
    }

    /**
     * How long after a workload's allocation ConfigMap was created a reconcile that lists none of its pods still
     * takes them for starting. The webhook creates it at the first pod's admission ({@code FirstAllocation}), before
     * the API server stores that pod, so the ConfigMap's own event can start a reconcile whose pod cache has no pod
     * yet: stamping then would restart the pod the webhook just injected. Well past the informers' lag, short enough
     * that a workload whose pods never come is stamped soon after.
     */
    static final Duration FIRST_PODS_GRACE = Duration.ofSeconds(10);

    /**
     * True when a workload's first allocation is published now or was a moment ago ({@link #FIRST_PODS_GRACE}, by
     * the ConfigMap's creation time) while the workload wants pods and none is listed yet: a workload created together
     * with its policy, whose first pods the webhook is admitting with this very allocation as the pods' list was read.
     * Rolling it now would restart them as they start, so the decision waits for a later reconcile
     * ({@link WorkloadOutcome#RETRY_SOON}), which sees them (and, when no pod comes, stamps the template as before).
     *
     * @param current the workload's allocation ConfigMap before this reconcile, null when there was none
     */
    static boolean firstPodsMayBeStarting(Workload workload, ConfigMap current, NamespacePods pods, Instant now) {
        return workload.appliedRestartHash().isEmpty()
                && workload.declaredReplicas() > 0
                && (current == null || createdWithin(current, now))
                && PodDrift.count(workload, "", pods)
                        .filter(count -> count.pods() == 0)
                        .isPresent();
    }

    private static boolean createdWithin(ConfigMap current, Instant now) {
        try {
            Instant created = Instant.parse(current.getMetadata().getCreationTimestamp());
            return created.plus(FIRST_PODS_GRACE).isAfter(now);
        } catch (RuntimeException e) {
            return false; // no creation time (not from the API server): stamp as before
        }
    }

    /**
     * True when the workload just opted in (nothing applied yet) and its pods, at least one, all already run
     * {@code restartHash}: a workload created together with its policy, whose first pods the webhook injected with
     * the allocation it published for them ({@link FirstAllocation}). Stamping the template would roll them for
     * nothing. With no pod yet the template is stamped as before, which rolls no pod.
     */
    private static boolean admittedWithIt(Workload workload, String restartHash, NamespacePods pods) {
        if (workload.appliedRestartHash().isPresent()) {
            return false;
        }
        return PodDrift.count(workload, restartHash, pods)
                .filter(count -> count.pods() > 0 && count.injected() == count.pods())
                .isPresent();
    }

    /** The reason a restart is needed, as the Event says it. */
    private static String whyRestart(Workload workload, Allocation allocation, PlannedRange range) {
        if (range.outside() && range.replicas() < range.declared().min()) {
            return String.format(
                    "scaled to %d replicas, below the range %s the running pods' RocksDB settings were "
                            + "planned for (%s): restarting them with settings for %d RocksDB instances per pod, for safety",
                    range.replicas(),
                    range.text(),
                    range.source(),
                    allocation.plannedTopology().rocksDbInstances());
        }
        // From the template, not from what this reconcile changed: the same state gives the same words every time,
        // so the Event is posted once (the opt-in's reconcile and the next one used to tell it twice).
        return workload.appliedRestartHash()
                .map(rolledFor -> "JVM flags or RocksDB capacities changed since the "
                        + "pods were rolled for restart hash " + rolledFor)
                .orElse("the pods have not been rolled with the "
                        + "operator's JVM flags and RocksDB settings yet (the workload opted in)");
    }
}
