package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.Workload;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Maps a workload event to the policies it concerns: the one its annotation names now, the one its published
 * ConfigMap names (so removing the annotation still reaches the old policy, which then removes the ConfigMap;
 * the ConfigMap an earlier version published under the old name counts too), and any whose status lists it
 * (a workload that opts out with nothing published, say over a user's own ConfigMap, leaves that status).
 */
final class WorkloadToPolicyMapper<W extends HasMetadata> implements SecondaryToPrimaryMapper<W> {
    private final Function<ResourceID, Optional<ConfigMap>> publishedConfigMaps;
    private final Function<String, Stream<StreamsMemoryPolicy>> policiesIn;

    WorkloadToPolicyMapper(
            Function<ResourceID, Optional<ConfigMap>> publishedConfigMaps,
            Function<String, Stream<StreamsMemoryPolicy>> policiesIn) {
        this.publishedConfigMaps = publishedConfigMaps;
        this.policiesIn = policiesIn;
    }

    @Override
    public Set<ResourceID> toPrimaryResourceIDs(W resource) {
        String namespace = resource.getMetadata().getNamespace();
        String name = resource.getMetadata().getName();
        Set<ResourceID> policies = new HashSet<>();
        Workload.of(resource)
                .flatMap(Workload::policyName)
                .ifPresent(policy -> policies.add(new ResourceID(policy, namespace)));
        for (String configMap : Set.of(
                AllocationConfigMap.configMapName(resource.getKind(), name),
                AllocationConfigMap.legacyConfigMapName(name))) {
            publishedConfigMaps
                    .apply(new ResourceID(configMap, namespace))
                    .map(AllocationConfigMap::policyOf)
                    .ifPresent(policy -> policies.add(new ResourceID(policy, namespace)));
        }
        policiesIn
                .apply(namespace)
                .filter(policy -> lists(policy, resource))
                .forEach(policy -> policies.add(ResourceID.fromResource(policy)));
        return policies;
    }

    private static boolean lists(StreamsMemoryPolicy policy, HasMetadata workload) {
        return policy.getStatus() != null
                && policy.getStatus().getWorkloads() != null
                && policy.getStatus().getWorkloads().stream()
                        .anyMatch(row -> workload.getKind().equals(row.getKind())
                                && workload.getMetadata().getName().equals(row.getName()));
    }
}
