package io.streamsmemory.operator.workload;

import static io.streamsmemory.operator.workload.MetadataKeys.*;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.ModelFingerprint;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
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
    private AllocationConfigMap() {}

    /**
     * The ConfigMap a workload's allocation is published in, {@code <workload>-<kind>-streams-memory}: a Deployment
     * and a StatefulSet of the same name each get their own. A name too long for an object name is shortened with a
     * hash ({@link KubernetesNames#withSuffix}).
     */
    public static String configMapName(String kind, String workloadName) {
        return KubernetesNames.withSuffix(workloadName, "-" + kind.toLowerCase(Locale.ROOT) + "-streams-memory");
    }

    /**
     * The name the previous version published under, one for both kinds. The operator deletes its own ConfigMaps of
     * this name once no pod mounts them any more; nothing reads them.
     */
    public static String legacyConfigMapName(String workloadName) {
        return workloadName + "-streams-memory";
    }

    /** @param learned the topology facts the plan learned from the pods (written by {@code plan/LearnedAnnotation}) */
    public static ConfigMap desired(String policyName, Workload workload, Allocation allocation, String learned) {
        return desired(policyName, workload, allocation, learned, "");
    }

    /** @param tuning the split tuning's state ({@link MetadataKeys#SPLIT_TUNING}), empty while there is none */
    public static ConfigMap desired(
            String policyName, Workload workload, Allocation allocation, String learned, String tuning) {
        HasMetadata owner = workload.resource();
        Map<String, String> data = Map.of(ALLOCATION_KEY, AllocationJson.write(allocation));
        String target = targetContainer(workload).orElse("");
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(configMapName(workload.kind(), workload.name()))
                .withNamespace(workload.namespace())
                .addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
                .addToLabels(POLICY_LABEL, KubernetesNames.labelValue(policyName))
                .addToLabels(WORKLOAD_KIND_LABEL, workload.kind())
                .addToLabels(WORKLOAD_NAME_LABEL, KubernetesNames.labelValue(workload.name()))
                .addToAnnotations(POLICY, policyName)
                .addToAnnotations(WORKLOAD, workload.name())
                .addToAnnotations(ALLOCATION_HASH, allocation.hash())
                .addToAnnotations(RESTART_HASH, allocation.restartHash())
                .addToAnnotations(FACTS, factsSummary(allocation))
                .addToAnnotations(LEARNED, learned)
                .addToAnnotations(MODEL, ModelFingerprint.current())
                .addToAnnotations(TARGET_CONTAINER, target)
                .addToAnnotations(DATA_HASH, dataHash(target, data))
                .addToAnnotations(tuning.isEmpty() ? Map.of() : Map.of(SPLIT_TUNING, tuning))
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion(owner.getApiVersion())
                        .withKind(owner.getKind())
                        .withName(owner.getMetadata().getName())
                        .withUid(owner.getMetadata().getUid())
                        .build())
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
        return containers == null || containers.isEmpty()
                ? Optional.empty()
                : Optional.of(containers.get(0).getName());
    }

    /** SHA-256 (hex) over the target container and every data entry, in key order. */
    public static String dataHash(String targetContainer, Map<String, String> data) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(Objects.requireNonNullElse(targetContainer, "").getBytes(StandardCharsets.UTF_8));
            for (Map.Entry<String, String> entry :
                    new TreeMap<>(data == null ? Map.<String, String>of() : data).entrySet()) {
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

    /**
     * True when {@code published} holds what {@code desired} would publish: the same data (a hand edit of
     * {@code allocation.json} leaves the annotations as they were, so they alone do not tell), and every label and
     * annotation the operator writes.
     */
    public static boolean sameAs(ConfigMap published, ConfigMap desired) {
        return published != null
                && Objects.equals(CachedConfigMaps.data(published), desired.getData())
                && contains(
                        published.getMetadata().getLabels(),
                        desired.getMetadata().getLabels())
                && contains(
                        published.getMetadata().getAnnotations(),
                        desired.getMetadata().getAnnotations());
    }

    private static boolean contains(Map<String, String> actual, Map<String, String> wanted) {
        return actual != null && actual.entrySet().containsAll(wanted.entrySet());
    }

    /**
     * True when the operator published {@code configMap} for this very workload: it carries the operator's
     * managed-by label and the workload's kind, and an owner reference to the workload's kind and uid. Anything
     * else under the operator's name is someone else's (the reconciler never takes it over; the webhook never
     * reads it), and a Deployment and a StatefulSet of one name, or a workload created again under its old name,
     * never share one.
     */
    public static boolean publishedFor(ConfigMap configMap, HasMetadata workload) {
        String uid = workload.getMetadata().getUid();
        return publishedByOperator(configMap)
                && workload.getKind().equals(configMap.getMetadata().getLabels().get(WORKLOAD_KIND_LABEL))
                && configMap.getMetadata().getOwnerReferences() != null
                && configMap.getMetadata().getOwnerReferences().stream()
                        .anyMatch(owner -> workload.getKind().equals(owner.getKind())
                                && uid != null
                                && uid.equals(owner.getUid()));
    }

    public static boolean publishedByOperator(ConfigMap configMap) {
        Map<String, String> labels = configMap.getMetadata().getLabels();
        return labels != null && MANAGED_BY.equals(labels.get(MANAGED_BY_LABEL));
    }

    /** The policy a published ConfigMap belongs to (the previous version wrote it in a label only). */
    public static String policyOf(ConfigMap configMap) {
        return annotation(configMap, POLICY)
                .orElseGet(() -> configMap.getMetadata().getLabels().get(POLICY_LABEL));
    }

    /** The name of the workload a published ConfigMap belongs to (the previous version wrote it in a label only). */
    public static String workloadName(ConfigMap configMap) {
        return annotation(configMap, WORKLOAD)
                .orElseGet(() -> configMap.getMetadata().getLabels().get(WORKLOAD_NAME_LABEL));
    }

    /** The workload a published ConfigMap belongs to, as "Kind name". */
    public static String workloadOf(ConfigMap configMap) {
        return configMap.getMetadata().getLabels().get(WORKLOAD_KIND_LABEL) + " " + workloadName(configMap);
    }

    /** What a user compares to see why a split changed: "replicas=3 threads=4 memory=2 GiB". */
    public static String factsSummary(Allocation allocation) {
        return String.format(
                "replicas=%d threads=%d memory=%s",
                allocation.facts().replicas(),
                allocation.facts().streamThreads(),
                ByteSize.format(allocation.memoryBytes()));
    }

    /** The allocation a ConfigMap publishes, or null when there is none or it cannot be read. */
    public static AllocationDocument document(ConfigMap configMap) {
        String json =
                configMap == null ? null : CachedConfigMaps.data(configMap).get(ALLOCATION_KEY);
        if (json == null) {
            return null;
        }
        try {
            return AllocationJson.read(json);
        } catch (RuntimeException unreadable) {
            return null; // edited by hand: the next publish replaces it
        }
    }

    public static Optional<String> annotation(ConfigMap configMap, String key) {
        if (configMap == null || configMap.getMetadata().getAnnotations() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(configMap.getMetadata().getAnnotations().get(key));
    }
}
