package io.streamsmemory.operator.workload;

import static io.streamsmemory.operator.workload.AllocationConfigMap.configMapName;
import static io.streamsmemory.operator.workload.AllocationConfigMap.legacyConfigMapName;
import static io.streamsmemory.operator.workload.MetadataKeys.FIELD_MANAGER;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one writer of the operator's allocation ConfigMaps, for the reconciler and the admission webhook alike: it
 * creates, applies and removes those, and only those: a ConfigMap under the operator's name
 * that it did not publish for the workload is never applied over, and every delete carries a precondition, so
 * what changed hands since the operator read it is left alone.
 *
 * <p>Why not java-operator-sdk's {@code BulkDependentResource}, as its samples publish N objects of one kind: (1) a
 * {@code KubernetesDependentResource} reads its objects through an informer of its own, while these ConfigMaps are
 * read from {@code WorkloadCache}, the one cache the admission webhook reads too, so the two never disagree on what is
 * published; (2) a dependent's {@code desired()} is computed apart from the reconcile and its N objects reconciled as
 * one step, while each ConfigMap here is decided after its workload's plan, the JVM caps' way back and a model
 * upgrade's hold, a workload's failure (a user's ConfigMap under the name, a plan that does not fit) must leave the
 * others published, and what publishing changed (first, re-split, nothing) decides the workload's restart and its
 * Event; (3) a removal waits while a pod still mounts a ConfigMap of the previous name, and deletes only the object
 * that was read (uid and resourceVersion). What this class keeps of the idiom: one desired object per workload
 * ({@code AllocationConfigMap#desired}), a matcher ({@code AllocationConfigMap#sameAs}) and server-side apply.
 */
public final class ConfigMapPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigMapPublisher.class);

    private final KubernetesClient client;

    public ConfigMapPublisher(KubernetesClient client) {
        this.client = client;
    }

    /**
     * The ConfigMap under the workload's name: the operator's from its cache, else whatever the API server holds
     * (the cache holds labelled ConfigMaps only, so a user's own under the same name is read to be seen at all).
     */
    public ConfigMap current(Workload workload, ConfigMap cached) {
        if (cached != null) {
            return cached;
        }
        return client.configMaps()
                .inNamespace(workload.namespace())
                .withName(configMapName(workload.kind(), workload.name()))
                .get();
    }

    /**
     * Creates {@code desired} under the operator's field manager (the webhook trusts no other writer of an allocation,
     * {@code ConfigMapProvenance}); null when the API server answered nothing. A create, not an apply: it fails on a
     * ConfigMap that exists, where an apply would merge into a user's. The client's typed create names no field
     * manager, so this posts it raw.
     */
    public ConfigMap create(ConfigMap desired) {
        String url = client.getConfiguration().getMasterUrl().replaceAll("/+$", "") + "/api/v1/namespaces/"
                + desired.getMetadata().getNamespace() + "/configmaps?fieldManager=" + FIELD_MANAGER;
        String answer = client.raw(url, "POST", desired);
        return answer == null ? null : Serialization.unmarshal(answer, ConfigMap.class);
    }

    /** Applies {@code desired}; the caller has checked that what is there is the operator's for this workload. */
    public void apply(ConfigMap desired) {
        // Forcing is safe here: the fields are the operator's own, and taking them back is how a hand edit is undone.
        client.resource(desired).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    }

    /**
     * Deletes the operator's ConfigMaps that no workload of the policy wants any more (the workload opted out, or
     * the previous version's name once no pod mounts it), telling {@code removed} the workload of each.
     */
    public void removeUnwanted(List<Workload> workloads, Collection<ConfigMap> published, Consumer<ConfigMap> removed) {
        Set<String> wanted =
                workloads.stream().map(w -> configMapName(w.kind(), w.name())).collect(Collectors.toSet());
        for (ConfigMap configMap : published) {
            String name = configMap.getMetadata().getName();
            if (wanted.contains(name) || !AllocationConfigMap.publishedByOperator(configMap)) {
                continue;
            }
            boolean legacy = name.equals(legacyConfigMapName(AllocationConfigMap.workloadName(configMap)));
            if (legacy && mounted(configMap)) {
                continue; // running pods read it at their next container start; it goes once they are replaced
            }
            try {
                delete(configMap);
                if (!legacy) {
                    removed.accept(configMap);
                }
            } catch (KubernetesClientException e) {
                // Changed or gone since it was read: the next reconcile sees it as it is now.
                LOG.warn(
                        "ConfigMap {}/{} not deleted: {}",
                        configMap.getMetadata().getNamespace(),
                        name,
                        e.getMessage());
            }
        }
    }

    /** Deletes exactly the object that was read: same uid and resourceVersion, or nothing. */
    private void delete(ConfigMap configMap) {
        client.configMaps()
                .inNamespace(configMap.getMetadata().getNamespace())
                .withName(configMap.getMetadata().getName())
                .lockResourceVersion(configMap.getMetadata().getResourceVersion())
                .delete();
    }

    private boolean mounted(ConfigMap configMap) {
        String name = configMap.getMetadata().getName();
        List<Pod> pods = client.pods()
                .inNamespace(configMap.getMetadata().getNamespace())
                .list()
                .getItems();
        return pods.stream()
                .filter(p -> p.getSpec() != null && p.getSpec().getVolumes() != null)
                .flatMap(p -> p.getSpec().getVolumes().stream())
                .map(Volume::getConfigMap)
                .filter(Objects::nonNull)
                .anyMatch(source -> name.equals(source.getName()));
    }
}
