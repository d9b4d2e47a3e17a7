package io.streamsmemory.operator.reconcile;

import static io.streamsmemory.operator.reconcile.WorkloadAnnotations.*;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.json.AllocationJson;
import java.util.Map;
import java.util.Optional;

/**
 * The ConfigMap a workload's allocation is published in: the document the agent reads, owned by the
 * workload so Kubernetes deletes it with the workload.
 */
public final class AllocationConfigMap {
    private AllocationConfigMap() {
    }

    public static ConfigMap desired(String policyName, Workload workload, Allocation allocation) {
        HasMetadata owner = workload.resource();
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(configMapName(workload.name()))
                .withNamespace(workload.namespace())
                .addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
                .addToLabels(POLICY_LABEL, policyName)
                .addToLabels(WORKLOAD_KIND_LABEL, workload.kind())
                .addToLabels(WORKLOAD_NAME_LABEL, workload.name())
                .addToAnnotations(ALLOCATION_HASH, allocation.hash())
                .addToAnnotations(RESTART_HASH, allocation.restartHash())
                .addToAnnotations(FACTS, factsSummary(allocation))
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion())
                        .withKind(owner.getKind()).withName(owner.getMetadata().getName())
                        .withUid(owner.getMetadata().getUid()).build())
                .endMetadata()
                .withData(Map.of(ALLOCATION_KEY, AllocationJson.write(allocation)))
                .build();
    }

    /** What a user compares to see why a split changed: "replicas=3 threads=4 memory=2 GiB". */
    static String factsSummary(Allocation allocation) {
        return String.format("replicas=%d threads=%d memory=%s", allocation.facts().replicas(),
                allocation.facts().streamThreads(), ByteSize.format(allocation.memoryBytes()));
    }

    public static Optional<String> annotation(ConfigMap configMap, String key) {
        if (configMap == null || configMap.getMetadata().getAnnotations() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(configMap.getMetadata().getAnnotations().get(key));
    }
}
