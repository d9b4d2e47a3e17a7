package io.streamsmemory.operator.reconcile.decide;

import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.Workload;
import java.util.Optional;

/**
 * Whether a rollout the operator would start must wait now, from what this process knows (no read of the cluster):
 * its webhook's state and {@link RolloutGate}.
 */
public final class RolloutWaits {
    private final RolloutGate gate;
    private final WebhookServing webhook;

    public RolloutWaits(RolloutGate gate, WebhookServing webhook) {
        this.gate = gate;
        this.webhook = webhook;
    }

    /**
     * Why a rollout must wait now; empty when it may start. First the webhook of this process: a rollout while it
     * does not serve yet (the operator just started, its certificate not yet made) recreates every pod without the
     * agent, a restart for nothing that also spends the workload's one drift rollout. Then whether the API server calls
     * it in the workload's namespace ({@code reach}, as the policy's reconcile read it). Then {@link RolloutGate}.
     */
    Optional<RolloutGate.Wait> mustWait(Workload workload, RolloutGate.Urgency urgency, WebhookReach reach) {
        Optional<String> problem = webhook.problem();
        if (problem.isPresent()) {
            return Optional.of(new RolloutGate.Wait(
                    "the admission webhook does not serve yet (" + problem.get()
                            + "), so the new pods would start without the agent",
                    WorkloadOutcome.RETRY_SOON));
        }
        // Serving is not enough: a firewall between the API server and the nodes admits every new pod uninjected.
        if (reach.unreachable()) {
            return Optional.of(new RolloutGate.Wait(
                    "the API server does not call the admission webhook in this namespace (the policy's condition "
                            + Conditions.WEBHOOK_REACHABLE
                            + " says why), so the new pods would start without the agent",
                    WorkloadOutcome.RETRY_SOON));
        }
        return gate.check(workload, urgency);
    }

    /** Whether a plan that only an operator upgrade changed may roll now ({@link RolloutGate#takeModelUpgradeTurn}). */
    Optional<RolloutGate.Wait> modelUpgradeTurn() {
        return gate.takeModelUpgradeTurn();
    }
}
