package io.streamsmemory.operator.reconcile.act;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
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

    /** @param gate whose clock stamps the time of a rollout ({@link MetadataKeys#LAST_ROLLOUT}) */
    public RolloutStamper(KubernetesClient client, RolloutGate gate) {
        this.client = client;
        this.gate = gate;
    }

    public void stamp(Workload workload, String restartHash) {
        // Server-side apply drops what the manager no longer applies: keep the drift marker it stamped.
        apply(
                workload,
                restartHash,
                workload.templateAnnotation(MetadataKeys.DRIFT_ROLLOUT).orElse(null));
    }

    /** Whether the operator's MutatingWebhookConfiguration is installed (a drift rollout helps only then). */
    public boolean webhookInstalled() {
        try {
            return client.admissionRegistration()
                            .v1()
                            .mutatingWebhookConfigurations()
                            .withName(MetadataKeys.WEBHOOK_CONFIGURATION)
                            .get()
                    != null;
        } catch (KubernetesClientException e) {
            return false;
        }
    }

    /** The restart hash on the workload's pod template as the API server has it now, not as the cache does. */
    public Optional<String> liveRestartHash(Workload workload) {
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
