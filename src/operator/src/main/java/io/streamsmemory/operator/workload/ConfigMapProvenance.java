package io.streamsmemory.operator.workload;

import static io.streamsmemory.operator.workload.MetadataKeys.DATA_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.TARGET_CONTAINER;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a workload's ConfigMap is the one the operator published: owned by the workload, its data and
 * target container written by the operator's field manager only, and its data matching the hash the operator
 * wrote next to it. A hand edit ({@code kubectl edit}, another controller) fails one of these; the webhook then
 * injects nothing. (None of this stops someone who forges all three: {@link EngineJvmFlags} still applies.)
 */
public final class ConfigMapProvenance {
    private ConfigMapProvenance() {}

    /** Why {@code configMap} is not the operator's publication for {@code workload}, or null when it is. */
    public static String problem(ConfigMap configMap, HasMetadata workload) {
        String uid = workload.getMetadata().getUid();
        List<OwnerReference> owners = configMap.getMetadata().getOwnerReferences();
        if (owners == null || owners.stream().noneMatch(o -> uid != null && uid.equals(o.getUid()))) {
            return "it is not owned by " + workload.getKind() + " "
                    + workload.getMetadata().getName();
        }
        Optional<String> writer = CachedConfigMaps.foreignWriter(configMap);
        if (writer.isPresent()) {
            return "its data or target container was written by \"" + writer.get() + "\", not by the operator";
        }
        Map<String, String> annotations = configMap.getMetadata().getAnnotations();
        String target = annotations == null ? null : annotations.get(TARGET_CONTAINER);
        String hash = annotations == null ? null : annotations.get(DATA_HASH);
        if (hash == null || !hash.equals(AllocationConfigMap.dataHash(target, CachedConfigMaps.data(configMap)))) {
            return "its data does not match the hash the operator recorded (" + DATA_HASH + ")";
        }
        return null;
    }
}
