package io.streamsmemory.operator.reconcile;

import static io.streamsmemory.operator.workload.MetadataKeys.DRIFT_ROLLOUT;
import static io.streamsmemory.operator.workload.MetadataKeys.WEBHOOK_CONFIGURATION;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.util.Optional;

/**
 * Counts a workload's pods against its allocation (status) and, once the workload has settled on its current
 * template, reports pods without the agent in an Event; with rollout Automatic it rolls the workload once for
 * a restart hash (never again for the same allocation, so never in a loop).
 */
final class DriftReporter {
    private final KubernetesClient client;
    private final EventRecorder events;
    private final RolloutStamper stamper;

    DriftReporter(KubernetesClient client, EventRecorder events, RolloutStamper stamper) {
        this.client = client;
        this.events = events;
        this.stamper = stamper;
    }

    /**
     * Counts into {@code row} and reports; returns when to look again if a drift rollout waits ({@link
     * RolloutStamper#mustWait}), else null.
     */
    Duration report(
            StreamsMemoryPolicy policy,
            Workload workload,
            String allocationHash,
            String restartHash,
            WorkloadAllocationStatus row,
            NamespacePods pods) {
        Optional<PodDrift.Count> counted = PodDrift.count(workload, restartHash, pods);
        if (counted.isEmpty()) {
            return null;
        }
        PodDrift.Count count = counted.get();
        row.setPods(count.pods());
        row.setPodsInjected(count.injected());
        row.setPodsNotInjected(count.notInjected());
        row.setPodsOutdated(count.outdated());
        row.setPodsSkipped(count.skipped());
        boolean manual = policy.getSpec().getRollout() == Rollout.Manual;
        boolean templateCurrent =
                workload.appliedRestartHash().filter(restartHash::equals).isPresent();
        if (count.drifted() == 0
                || !workload.settled()
                || (!manual && (!templateCurrent || count.driftedFromTemplate() == 0))) {
            // Nothing drifted, or a rollout is still under way (it replaces these pods).
            return null;
        }
        Optional<RolloutGate.Wait> wait =
                manual ? Optional.empty() : stamper.mustWait(workload, RolloutGate.Urgency.NONE);
        String what = String.format(
                "%d of %d pod(s) run without the agent (created while the admission webhook was "
                        + "unreachable or before allocation %s was published) and %d with JVM flags of an older allocation",
                count.notInjected(), count.pods(), allocationHash, count.outdated());
        if (manual) {
            events.record(
                    workload.resource(),
                    Type.Warning,
                    "Drift",
                    what + "; rollout is Manual: restart the pods " + "(kubectl rollout restart) to inject them");
        } else if (workload.templateAnnotation(DRIFT_ROLLOUT)
                .filter(restartHash::equals)
                .isPresent()) {
            events.record(
                    workload.resource(),
                    Type.Warning,
                    "Drift",
                    what + "; the workload was already rolled once "
                            + "for this allocation and is not rolled again: check that the webhook is reachable, then restart "
                            + "the pods");
        } else if (!webhookInstalled()) {
            events.record(
                    workload.resource(),
                    Type.Warning,
                    "Drift",
                    what + "; the admission webhook is not installed " + "(MutatingWebhookConfiguration "
                            + WEBHOOK_CONFIGURATION + "), so rolling would not help");
        } else if (wait.isPresent()) {
            events.record(
                    workload.resource(),
                    Type.Warning,
                    "Drift",
                    what + "; the workload is rolled once when allowed: "
                            + wait.get().reason());
            return wait.get().retryAfter();
        } else {
            stamper.stampDriftRollout(workload, restartHash);
            events.record(
                    workload.resource(), Type.Warning, "Drift", what + "; rolling the workload once to inject them");
        }
        return null;
    }

    private boolean webhookInstalled() {
        try {
            return client.admissionRegistration()
                            .v1()
                            .mutatingWebhookConfigurations()
                            .withName(WEBHOOK_CONFIGURATION)
                            .get()
                    != null;
        } catch (KubernetesClientException e) {
            return false;
        }
    }
}
