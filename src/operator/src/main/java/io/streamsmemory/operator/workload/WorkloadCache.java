package io.streamsmemory.operator.workload;

import static io.streamsmemory.operator.workload.MetadataKeys.MANAGED_BY;
import static io.streamsmemory.operator.workload.MetadataKeys.MANAGED_BY_LABEL;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's one in-memory copy of the cluster's Deployments, StatefulSets (trimmed as {@link CachedWorkloads}
 * says) and of the ConfigMaps it published. The reconciler and the webhook both read it: each used to keep its own,
 * which held every workload of the cluster twice.
 *
 * <p>Started by whichever needs it first (the webhook serves on every replica; the reconciler's event sources start
 * with it), once; a cache that did not fill in time goes on filling, and {@link #synced} says when it has.
 */
public final class WorkloadCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadCache.class);

    /** The index of workloads by {@code namespace/policy} they name, of ConfigMaps by the policy they were published for. */
    public static final String BY_POLICY = "by-policy";

    private final KubernetesClient client;
    private SharedIndexInformer<Deployment> deployments;
    private SharedIndexInformer<StatefulSet> statefulSets;
    private SharedIndexInformer<ConfigMap> configMaps;

    public WorkloadCache(KubernetesClient client) {
        this.client = client;
    }

    /** Starts the informers unless they run already, and waits up to {@code syncTimeout} for them to fill. */
    public synchronized WorkloadCache start(Duration syncTimeout) {
        if (deployments != null) {
            return this;
        }
        deployments = workloadInformer(client.apps()
                .deployments()
                .inAnyNamespace()
                .withLimit(CachedWorkloads.LIST_PAGE)
                .runnableInformer(0));
        statefulSets = workloadInformer(client.apps()
                .statefulSets()
                .inAnyNamespace()
                .withLimit(CachedWorkloads.LIST_PAGE)
                .runnableInformer(0));
        configMaps = client.configMaps()
                .inAnyNamespace()
                .withLabel(MANAGED_BY_LABEL, MANAGED_BY)
                .withLimit(CachedWorkloads.LIST_PAGE)
                .runnableInformer(0);
        configMaps.itemStore(CachedConfigMaps.store());
        configMaps.addIndexers(
                Map.of(BY_POLICY, byPolicy(cm -> Optional.ofNullable(AllocationConfigMap.policyOf(cm)))));
        for (SharedIndexInformer<?> informer : informers()) {
            try {
                informer.start().toCompletableFuture().get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.warn("workload cache not synced within {}: {}", syncTimeout, e.toString());
            }
        }
        return this;
    }

    private static <W extends HasMetadata> SharedIndexInformer<W> workloadInformer(SharedIndexInformer<W> informer) {
        informer.itemStore(CachedWorkloads.store());
        informer.addIndexers(Map.of(BY_POLICY, byPolicy(w -> Workload.of(w).flatMap(Workload::policyName))));
        return informer;
    }

    private static <R extends HasMetadata> Function<R, List<String>> byPolicy(Function<R, Optional<String>> policy) {
        return resource -> policy.apply(resource)
                .map(name -> List.of(resource.getMetadata().getNamespace() + "/" + name))
                .orElse(List.of());
    }

    public SharedIndexInformer<Deployment> deployments() {
        return deployments;
    }

    public SharedIndexInformer<StatefulSet> statefulSets() {
        return statefulSets;
    }

    public SharedIndexInformer<ConfigMap> configMaps() {
        return configMaps;
    }

    /** @param kind Deployment or StatefulSet; null when the cache holds no such workload */
    public HasMetadata workload(String kind, String namespace, String name) {
        SharedIndexInformer<? extends HasMetadata> informer = kind.equals("Deployment") ? deployments : statefulSets;
        return informer.getStore().getByKey(namespace + "/" + name);
    }

    /** A ConfigMap the operator published, null when the cache holds none of that name. */
    public ConfigMap configMap(String namespace, String name) {
        return configMaps.getStore().getByKey(namespace + "/" + name);
    }

    /** What {@code informer} holds for the policy {@code namespace/policy} ({@link #BY_POLICY}). */
    public static <R> List<R> ofPolicy(SharedIndexInformer<R> informer, String namespace, String policy) {
        return informer.getIndexer().byIndex(BY_POLICY, namespace + "/" + policy);
    }

    /** True once every informer has filled (one the RBAC does not allow never does). */
    public synchronized boolean synced() {
        for (SharedIndexInformer<?> informer : informers()) {
            if (informer == null || !informer.hasSynced()) {
                return false;
            }
        }
        return true;
    }

    private SharedIndexInformer<?>[] informers() {
        return new SharedIndexInformer<?>[] {deployments, statefulSets, configMaps};
    }

    @Override
    public synchronized void close() {
        for (SharedIndexInformer<?> informer : informers()) {
            if (informer != null) {
                informer.close();
            }
        }
    }
}
