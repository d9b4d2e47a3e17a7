package io.streamsmemory.operator.workload;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import java.util.Map;

/**
 * What the operator's caches keep of a Deployment or StatefulSet. They watch every workload of the cluster, and in
 * a large one most never opt in: of those only the identity stays (no spec, status, labels or annotations), so
 * 5,000 bystanders cost a few MiB of heap instead of most of the operator's memory. Of an opted-in workload
 * everything stays but what no code of the operator reads and the API server makes large: the managed fields and
 * {@code kubectl apply}'s copy of the whole object.
 *
 * <p>Opting in is an update of the workload, so it arrives with the whole object and is cached whole from then on.
 * Event handlers see a bystander as the API server sent it, and an opted-in workload without those two fields
 * (they are taken off in place, which saves a copy of every object on every event).
 */
public final class CachedWorkloads {
    static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
    /**
     * Workloads per page of an informer's LIST. Unpaged, the first LIST of a large cluster arrives as one response
     * held whole in the heap before any object is trimmed (5,000 Deployments ran a 153 MiB heap out of memory).
     */
    public static final long LIST_PAGE = 250;

    private CachedWorkloads() {}

    /** An item store for a Deployment or StatefulSet informer that keeps what {@link #trim} keeps. */
    public static <W extends HasMetadata> ItemStore<W> store() {
        return new TransformingItemStore<>(CachedWorkloads::trim);
    }

    /** The part of {@code workload} a cache keeps: a new object for a bystander, the same one trimmed otherwise. */
    @SuppressWarnings("unchecked")
    static <W extends HasMetadata> W trim(W workload) {
        ObjectMeta metadata = workload.getMetadata();
        Map<String, String> annotations = metadata.getAnnotations();
        if (annotations == null || !annotations.containsKey(MetadataKeys.POLICY)) {
            ObjectMeta identity = new ObjectMetaBuilder()
                    .withName(metadata.getName())
                    .withNamespace(metadata.getNamespace())
                    .withUid(metadata.getUid())
                    .withResourceVersion(metadata.getResourceVersion())
                    .withGeneration(metadata.getGeneration())
                    .withDeletionTimestamp(metadata.getDeletionTimestamp())
                    .build();
            if (workload instanceof Deployment) {
                Deployment bystander = new Deployment();
                bystander.setMetadata(identity);
                return (W) bystander;
            }
            if (workload instanceof StatefulSet) {
                StatefulSet bystander = new StatefulSet();
                bystander.setMetadata(identity);
                return (W) bystander;
            }
            return workload;
        }
        if (metadata.getManagedFields() != null || annotations.containsKey(LAST_APPLIED)) {
            metadata.setManagedFields(null);
            annotations.remove(LAST_APPLIED);
        }
        return workload;
    }
}
