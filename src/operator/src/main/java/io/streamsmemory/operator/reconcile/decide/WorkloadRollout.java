package io.streamsmemory.operator.reconcile.decide;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether a workload whose published allocation needs a restart is rolled (the policy allows it and
 * {@link RolloutWaits} lets it start now), recorded as already running it (the webhook started its pods with it), left
 * to the user, or made to wait; and the one Event that tells it. Reads nothing of the cluster.
 */
public final class WorkloadRollout {
    private final RolloutWaits waits;

    WorkloadRollout(RolloutWaits waits) {
        this.waits = waits;
    }

    /**
     * What the rollout of a workload comes to: the write, the Events and when to look again if it waits (else null).
     */
    record Decision(RolloutStep step, List<Told> told, Duration retryAfter) {
        static Decision tell(Told told) {
            return new Decision(RolloutStep.NONE, told == null ? List.of() : List.of(told), null);
        }
    }

    /**
     * Stamps the template when the running settings need a restart, the policy allows it and {@link RolloutWaits}
     * lets it start now. A re-split ({@code resplit}, null when none) is told in the same Event as the restart it
     * needs, so a re-split of N workloads posts N Events, not 2N.
     */
    Decision rollIfNeeded(
            StreamsMemoryPolicy policy,
            Workload workload,
            Allocation allocation,
            PlannedRange range,
            String resplit,
            RolloutGate.Urgency urgency,
            Optional<List<Pod>> pods,
            WebhookReach reach) {
        if (workload.appliedRestartHash()
                .filter(allocation.restartHash()::equals)
                .isPresent()) {
            return Decision.tell(resplitAlone(resplit));
        }
        if (admittedWithIt(workload, allocation.restartHash(), pods)) {
            return recordAdmitted(allocation.restartHash());
        }
        String why = whyRestart(workload, allocation, range);
        String told = resplit == null ? "" : resplit + "; ";
        if (policy.getSpec().getRollout() == Rollout.Manual) {
            String pending = String.format(
                    "%s (restart hash %s); rollout is Manual, restart the pods to apply them",
                    why, allocation.restartHash());
            return Decision.tell(new Told(Type.Normal, "RestartPending", told + pending, pending));
        }
        Optional<RolloutGate.Wait> wait = waits.mustWait(workload, urgency, reach);
        if (wait.isPresent()) {
            String waiting = String.format(
                    "%s (restart hash %s); not rolled yet: %s",
                    why, allocation.restartHash(), wait.get().reason());
            return new Decision(
                    RolloutStep.NONE,
                    List.of(new Told(Type.Normal, "RestartPending", told + waiting, waiting)),
                    wait.get().retryAfter());
        }
        return new Decision(
                new RolloutStep.Stamp(
                        allocation.restartHash(),
                        Told.normal(
                                "RollingRestart",
                                String.format(
                                        "%s%s: stamped restart hash %s on the pod template",
                                        told, why, allocation.restartHash())),
                        resplitAlone(resplit)),
                List.of(),
                null);
    }

    /** Every pod already runs the allocation: the workload is told so, not rolled. */
    private static Decision recordAdmitted(String restartHash) {
        return new Decision(
                new RolloutStep.RecordAdmitted(restartHash),
                List.of(Told.normal(
                        "OptedIn",
                        String.format(
                                "every pod already runs restart hash %s (the admission webhook injected them with the "
                                        + "allocation): recorded on the workload, not rolled",
                                restartHash))),
                null);
    }

    /** The pods already run the allocation's settings or are rolling to them: a re-split is told on its own. */
    private static Told resplitAlone(String resplit) {
        return resplit == null ? null : Told.normal("Resplit", resplit);
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
    static boolean firstPodsMayBeStarting(Workload workload, ConfigMap current, Optional<List<Pod>> pods, Instant now) {
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
    private static boolean admittedWithIt(Workload workload, String restartHash, Optional<List<Pod>> pods) {
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
