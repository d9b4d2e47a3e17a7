package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
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

    public RolloutStamper(KubernetesClient client, RolloutGate gate) {
        this.client = client;
        this.gate = gate;
    }

    /** Why a rollout must wait now ({@link RolloutGate}); empty when it may start. */
    Optional<RolloutGate.Wait> mustWait(Workload workload) {
        return gate.check(workload);
    }

    public void stamp(Workload workload, String restartHash) {
        // Server-side apply drops what the manager no longer applies: keep the drift marker it stamped.
        apply(
                workload,
                restartHash,
                workload.templateAnnotation(MetadataKeys.DRIFT_ROLLOUT).orElse(null));
    }

    /**
     * Rolls a workload whose pods run without the agent, once per restart hash: the marker records the
     * hash it was rolled for, so the same allocation never rolls it again.
     */
    public void stampDriftRollout(Workload workload, String restartHash) {
        apply(workload, restartHash, restartHash);
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
