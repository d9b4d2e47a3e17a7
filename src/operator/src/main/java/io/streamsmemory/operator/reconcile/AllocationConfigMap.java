package io.streamsmemory.operator.reconcile;

import static io.streamsmemory.operator.reconcile.WorkloadAnnotations.*;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.json.AllocationJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The ConfigMap a workload's allocation is published in: the document the agent reads, owned by the
 * workload so Kubernetes deletes it with the workload. Its annotations name the container the webhook
 * injects and a hash of what it holds, which the webhook checks before trusting it.
 */
public final class AllocationConfigMap {
    private AllocationConfigMap() {
    }

    public static ConfigMap desired(String policyName, Workload workload, Allocation allocation) {
        HasMetadata owner = workload.resource();
        Map<String, String> data = Map.of(ALLOCATION_KEY, AllocationJson.write(allocation));
        String target = targetContainer(workload).orElse("");
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
                .addToAnnotations(TARGET_CONTAINER, target)
                .addToAnnotations(DATA_HASH, dataHash(target, data))
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion())
                        .withKind(owner.getKind()).withName(owner.getMetadata().getName())
                        .withUid(owner.getMetadata().getUid()).build())
                .endMetadata()
                .withData(data)
                .build();
    }

    /**
     * The container the webhook injects, by name: the workload's {@code streamsmemory.io/container}
     * annotation as written (a name the template lacks then injects nothing, rather than the wrong container),
     * else the template's first container. Taken from the template because other webhooks (service meshes)
     * may put their own container first in the pod.
     */
    static Optional<String> targetContainer(Workload workload) {
        String named = workload.annotations().get(CONTAINER);
        if (named != null && !named.isBlank()) {
            return Optional.of(named.trim());
        }
        if (workload.template() == null || workload.template().getSpec() == null) {
            return Optional.empty();
        }
        List<Container> containers = workload.template().getSpec().getContainers();
        return containers == null || containers.isEmpty() ? Optional.empty() : Optional.of(containers.get(0).getName());
    }

    /** SHA-256 (hex) over the target container and every data entry, in key order. */
    public static String dataHash(String targetContainer, Map<String, String> data) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(Objects.requireNonNullElse(targetContainer, "").getBytes(StandardCharsets.UTF_8));
            for (Map.Entry<String, String> entry : new TreeMap<>(data == null ? Map.<String, String>of() : data).entrySet()) {
                digest.update((byte) 0);
                digest.update(entry.getKey().getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
                digest.update(Objects.requireNonNullElse(entry.getValue(), "").getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every JVM has SHA-256", impossible);
        }
    }

    /** True when {@code published} carries the same allocation, target container and data hash as {@code desired}. */
    static boolean sameAs(ConfigMap published, ConfigMap desired) {
        for (String key : List.of(ALLOCATION_HASH, TARGET_CONTAINER, DATA_HASH)) {
            if (!annotation(published, key).equals(annotation(desired, key))) {
                return false;
            }
        }
        return true;
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
