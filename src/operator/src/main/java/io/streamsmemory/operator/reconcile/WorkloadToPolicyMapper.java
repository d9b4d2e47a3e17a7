package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Maps a workload event to the policies it concerns: the one its annotation names now, and the one
 * its published ConfigMap names (so removing the annotation still reaches the old policy, which then
 * removes the ConfigMap).
 */
final class WorkloadToPolicyMapper<W extends HasMetadata> implements SecondaryToPrimaryMapper<W> {
    private final Function<ResourceID, Optional<ConfigMap>> publishedConfigMaps;

    WorkloadToPolicyMapper(Function<ResourceID, Optional<ConfigMap>> publishedConfigMaps) {
        this.publishedConfigMaps = publishedConfigMaps;
    }

    @Override
    public Set<ResourceID> toPrimaryResourceIDs(W resource) {
        String namespace = resource.getMetadata().getNamespace();
        Set<ResourceID> policies = new HashSet<>();
        Workload.of(resource).flatMap(Workload::policyName)
                .ifPresent(name -> policies.add(new ResourceID(name, namespace)));
        publishedConfigMaps.apply(new ResourceID(WorkloadAnnotations.configMapName(resource.getMetadata().getName()),
                        namespace))
                .map(cm -> cm.getMetadata().getLabels().get(WorkloadAnnotations.POLICY_LABEL))
                .ifPresent(name -> policies.add(new ResourceID(name, namespace)));
        return policies;
    }
}
