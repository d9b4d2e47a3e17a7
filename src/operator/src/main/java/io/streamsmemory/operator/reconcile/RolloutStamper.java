package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Rolls a workload by stamping the allocation's restart hash on its pod template: one annotation,
 * applied server-side under the operator's own field manager, so nothing else of the user's spec is
 * touched or owned.
 */
public class RolloutStamper {
    private final KubernetesClient client;
    private final RolloutGate gate;
    private final WebhookServing webhook;

    public RolloutStamper(KubernetesClient client, RolloutGate gate, WebhookServing webhook) {
        this.client = client;
        this.gate = gate;
        this.webhook = webhook;
    }

    /**
     * Why a rollout must wait now; empty when it may start. First the webhook of this process: a rollout while it
     * does not serve yet (the operator just started, its certificate not yet made) recreates every pod without the
     * agent, a restart for nothing that also spends the workload's one drift rollout. Then {@link RolloutGate}.
     */
    Optional<RolloutGate.Wait> mustWait(Workload workload, RolloutGate.Urgency urgency) {
        Optional<String> problem = webhook.problem();
        if (problem.isPresent()) {
            return Optional.of(new RolloutGate.Wait(
                    "the admission webhook does not serve yet (" + problem.get()
                            + "), so the new pods would start without the agent",
                    WorkloadOutcome.RETRY_SOON));
        }
        // Serving is not enough: a firewall between the API server and the nodes admits every new pod uninjected.
        if (webhook.reach(workload.namespace()).unreachable()) {
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

    public void stamp(Workload workload, String restartHash) {
        // Server-side apply drops what the manager no longer applies: keep the drift marker it stamped.
        apply(
                workload,
                restartHash,
                workload.templateAnnotation(MetadataKeys.DRIFT_ROLLOUT).orElse(null));
    }

    /** The restart hash on the workload's pod template as the API server has it now, not as the cache does. */
    Optional<String> liveRestartHash(Workload workload) {
        GenericKubernetesResource live = client.genericKubernetesResources(
                        workload.resource().getApiVersion(), workload.kind())
                .inNamespace(workload.namespace())
                .withName(workload.name())
                .get();
        return live == null
                ? Optional.empty()
                : Optional.ofNullable(
                        live.<String>get("spec", "template", "metadata", "annotations", MetadataKeys.RESTART_HASH));
    }

    /**
     * Rolls a workload whose pods run without the agent, once per restart hash: the marker records the
     * hash it was rolled for, so the same allocation never rolls it again.
     */
    public void stampDriftRollout(Workload workload, String restartHash) {
        apply(workload, restartHash, restartHash);
    }

    /**
     * Records on the workload's own metadata the restart hash its pods already run ({@link
     * MetadataKeys#ADMITTED_RESTART_HASH}): a merge patch of that one annotation, which rolls nothing and leaves the
     * fields this manager applied (a later {@link #stamp}'s) as they are.
     */
    public void recordAdmitted(Workload workload, String restartHash) {
        client.genericKubernetesResources(workload.resource().getApiVersion(), workload.kind())
                .inNamespace(workload.namespace())
                .withName(workload.name())
                .patch(
                        new PatchContext.Builder()
                                .withPatchType(PatchType.JSON_MERGE)
                                .withFieldManager(MetadataKeys.FIELD_MANAGER)
                                .build(),
                        Serialization.asJson(Map.of(
                                "metadata",
                                Map.of("annotations", Map.of(MetadataKeys.ADMITTED_RESTART_HASH, restartHash)))));
    }

    private void apply(Workload workload, String restartHash, String driftRollout) {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(MetadataKeys.RESTART_HASH, restartHash);
        if (driftRollout != null) {
            annotations.put(MetadataKeys.DRIFT_ROLLOUT, driftRollout);
        }
        // A partial object: only the fields the operator owns. Typed models would add empty defaults.
        GenericKubernetesResource patch = new GenericKubernetesResourceBuilder()
                .withApiVersion(workload.resource().getApiVersion())
                .withKind(workload.kind())
                .withNewMetadata()
                .withName(workload.name())
                .withNamespace(workload.namespace())
                .addToAnnotations(MetadataKeys.LAST_ROLLOUT, gate.now())
                .endMetadata()
                .withAdditionalProperties(Map.of(
                        "spec", Map.of("template", Map.of("metadata", Map.of("annotations", annotations)))))
                .build();
        client.genericKubernetesResources(workload.resource().getApiVersion(), workload.kind())
                .inNamespace(workload.namespace())
                .resource(patch)
                .fieldManager(MetadataKeys.FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
    }
}
