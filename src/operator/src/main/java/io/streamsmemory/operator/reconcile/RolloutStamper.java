package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Rolls a workload by stamping the allocation's restart hash on its pod template: one annotation,
 * applied server-side under the operator's own field manager, so nothing else of the user's spec is
 * touched or owned.
 */
public class RolloutStamper {
    private final KubernetesClient client;

    public RolloutStamper(KubernetesClient client) {
        this.client = client;
    }

    public void stamp(Workload workload, String restartHash) {
        // A partial object: only the fields the operator owns. Typed models would add empty defaults.
        GenericKubernetesResource patch = new GenericKubernetesResourceBuilder()
                .withApiVersion(workload.resource().getApiVersion())
                .withKind(workload.kind())
                .withNewMetadata().withName(workload.name()).withNamespace(workload.namespace()).endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("template", Map.of("metadata",
                        Map.of("annotations", Map.of(WorkloadAnnotations.RESTART_HASH, restartHash))))))
                .build();
        client.genericKubernetesResources(workload.resource().getApiVersion(), workload.kind())
                .inNamespace(workload.namespace())
                .resource(patch)
                .fieldManager(WorkloadAnnotations.FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
    }
}
