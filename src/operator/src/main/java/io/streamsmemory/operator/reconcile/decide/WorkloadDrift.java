package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.operator.workload.MetadataKeys.DRIFT_ROLLOUT;
import static io.streamsmemory.operator.workload.MetadataKeys.WEBHOOK_CONFIGURATION;

import io.fabric8.kubernetes.api.model.Pod;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Counts a workload's pods against its allocation (status) and, once the workload has settled on its current
 * template, tells of pods without the agent in an Event; with rollout Automatic it rolls the workload once for a
 * restart hash (never again for the same allocation, so never in a loop). Reads nothing of the cluster.
 */
public final class WorkloadDrift {
    private final RolloutWaits waits;

    WorkloadDrift(RolloutWaits waits) {
        this.waits = waits;
    }

    /**
     * The pods counted (null when the workload's pods cannot be counted), the drift rollout if any, the Event, and
     * when to look again if a drift rollout waits (else null).
     */
    record Decision(PodDrift.Count count, RolloutStep step, List<Told> told, Duration retryAfter) {
        static final Decision UNCOUNTED = new Decision(null, RolloutStep.NONE, List.of(), null);
    }

    Decision decide(
            StreamsMemoryPolicy policy,
            Workload workload,
            String allocationHash,
            String restartHash,
            Optional<List<Pod>> pods,
            WebhookReach reach) {
        Optional<PodDrift.Count> counted = PodDrift.count(workload, restartHash, pods);
        if (counted.isEmpty()) {
            return Decision.UNCOUNTED;
        }
        PodDrift.Count count = counted.get();
        boolean manual = policy.getSpec().getRollout() == Rollout.Manual;
        boolean templateCurrent =
                workload.appliedRestartHash().filter(restartHash::equals).isPresent();
        if (count.drifted() == 0
                || !workload.settled()
                || (!manual && (!templateCurrent || count.driftedFromTemplate() == 0))) {
            // Nothing drifted, or a rollout is still under way (it replaces these pods).
            return new Decision(count, RolloutStep.NONE, List.of(), null);
        }
        String what = String.format(
                "%d of %d pod(s) run without the agent (created while the admission webhook was "
                        + "unreachable or before allocation %s was published) and %d with JVM flags of an older allocation",
                count.notInjected(), count.pods(), allocationHash, count.outdated());
        return manual ? told(count, what + MANUAL) : rollOnce(workload, restartHash, count, what, reach);
    }

    private static final String MANUAL =
            "; rollout is Manual: restart the pods " + "(kubectl rollout restart) to inject them";

    /** Rolls the workload once for its restart hash, when allowed: never again for the same allocation. */
    private Decision rollOnce(
            Workload workload, String restartHash, PodDrift.Count count, String what, WebhookReach reach) {
        if (workload.templateAnnotation(DRIFT_ROLLOUT)
                .filter(restartHash::equals)
                .isPresent()) {
            return told(
                    count,
                    what + "; the workload was already rolled once "
                            + "for this allocation and is not rolled again: check that the webhook is reachable, then restart "
                            + "the pods");
        }
        Optional<RolloutGate.Wait> wait = waits.mustWait(workload, RolloutGate.Urgency.NONE, reach);
        if (wait.isPresent()) {
            return new Decision(
                    count,
                    RolloutStep.NONE,
                    List.of(Told.warning(
                            "Drift",
                            what + "; the workload is rolled once when allowed: "
                                    + wait.get().reason())),
                    wait.get().retryAfter());
        }
        return new Decision(
                count,
                new RolloutStep.DriftStamp(
                        restartHash,
                        Told.warning("Drift", what + "; rolling the workload once to inject them"),
                        Told.warning(
                                "Drift",
                                what + "; the admission webhook is not installed " + "(MutatingWebhookConfiguration "
                                        + WEBHOOK_CONFIGURATION + "), so rolling would not help")),
                List.of(),
                null);
    }

    private static Decision told(PodDrift.Count count, String message) {
        return new Decision(count, RolloutStep.NONE, List.of(Told.warning("Drift", message)), null);
    }
}
