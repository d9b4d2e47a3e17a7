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
        // Server-side apply drops what the manager no longer applies: keep the drift marker it stamped.
        apply(workload, restartHash, templateAnnotation(workload, WorkloadAnnotations.DRIFT_ROLLOUT));
    }

    /**
     * Rolls a workload whose pods run without the agent, once per restart hash: the marker records the
     * hash it was rolled for, so the same allocation never rolls it again.
     */
    public void stampDriftRollout(Workload workload, String restartHash) {
        apply(workload, restartHash, restartHash);
    }

    private static String templateAnnotation(Workload workload, String key) {
        if (workload.template() == null || workload.template().getMetadata() == null
                || workload.template().getMetadata().getAnnotations() == null) {
            return null;
        }
        return workload.template().getMetadata().getAnnotations().get(key);
    }

    private void apply(Workload workload, String restartHash, String driftRollout) {
        java.util.Map<String, String> annotations = new java.util.LinkedHashMap<>();
        annotations.put(WorkloadAnnotations.RESTART_HASH, restartHash);
        if (driftRollout != null) {
            annotations.put(WorkloadAnnotations.DRIFT_ROLLOUT, driftRollout);
        }
        // A partial object: only the fields the operator owns. Typed models would add empty defaults.
        GenericKubernetesResource patch = new GenericKubernetesResourceBuilder()
                .withApiVersion(workload.resource().getApiVersion())
                .withKind(workload.kind())
                .withNewMetadata().withName(workload.name()).withNamespace(workload.namespace()).endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("template", Map.of("metadata",
                        Map.of("annotations", annotations)))))
                .build();
        client.genericKubernetesResources(workload.resource().getApiVersion(), workload.kind())
                .inNamespace(workload.namespace())
                .resource(patch)
                .fieldManager(WorkloadAnnotations.FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
    }
}
