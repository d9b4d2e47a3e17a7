package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.workload.AllocationConfigMap.configMapName;
import static io.streamsmemory.operator.workload.MetadataKeys.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.CachedConfigMaps;
import io.streamsmemory.operator.workload.ConfigMapProvenance;
import io.streamsmemory.operator.workload.Workload;
import io.streamsmemory.operator.workload.WorkloadCache;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the opted-in workload of a pod under admission from in-memory caches, so answering costs no API call
 * (but for a pod whose allocation the ConfigMap cache does not hold yet): the pod's controller owner is a
 * ReplicaSet (named {@code <deployment>-<pod-template-hash>}, the hash also being the pod's label) or a
 * StatefulSet; the workload must carry {@code streamsmemory.io/policy}; its allocation is the ConfigMap the
 * operator published for it.
 *
 * <p>The owner chain needs nothing stamped on the user's pod template, so opting in never rolls a
 * workload by itself (which a {@code rollout: Manual} policy promises), and pods restarted by hand are
 * injected as well.
 */
public final class WorkloadIndex implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadIndex.class);

    /** How long admission waits for a ConfigMap read past the cache (one an envFrom names, or a late allocation). */
    static final Duration LIVE_READ_TIMEOUT = Duration.ofMillis(500);

    private final KubernetesClient client;
    private final FirstAllocation first;
    /** The workloads and published ConfigMaps, shared with the reconciler. */
    private final WorkloadCache cache;
    /** Whether {@link #close} closes {@link #cache}: only one this index made for itself. */
    private final boolean ownsCache;
    /** The webhook's alone: the injected init container must fit them, and nothing else reads them. */
    private SharedIndexInformer<LimitRange> limitRanges;
    /** Where lookups go: the informers' caches (an in-memory stand-in in the fuzz tests). */
    private Lookups lookups;
    /** Checked and parsed ConfigMaps by ConfigMap and workload uid, with the resourceVersion they were read at. */
    private final Map<String, Parsed> parsed = new ConcurrentHashMap<>();

    private record Parsed(String resourceVersion, PublishedAllocation allocation, String problem) {}

    /**
     * The target of a pod; when it has no allocation, why: none published yet ({@code refused} false: the pod
     * is reported as drift later), or a ConfigMap the webhook does not trust ({@code refused}: an Event says so).
     */
    public record Resolution(InjectionTarget target, String problem, boolean refused) {}

    /**
     * What the index reads: the cached workloads, ConfigMaps and LimitRanges by namespace and name, and a
     * ConfigMap read live past the cache. One interface so that the admission path can be exercised (fuzzed) from
     * in-memory objects without an API server.
     */
    interface Lookups {
        /** @param kind Deployment or StatefulSet */
        HasMetadata workload(String kind, String namespace, String name);

        ConfigMap cachedConfigMap(String namespace, String name);

        List<LimitRange> limitRanges(String namespace);

        /** Null when it does not exist; throws when it cannot be read. */
        ConfigMap liveConfigMap(String namespace, String name) throws Exception;
    }

    /**
     * @param first publishes the allocation of a workload created together with its policy; null never does
     * @param cache the operator's shared cache; null: one of this index's own, closed with it
     */
    public WorkloadIndex(KubernetesClient client, FirstAllocation first, WorkloadCache cache) {
        this.client = client;
        this.first = first;
        this.ownsCache = cache == null;
        this.cache = cache != null ? cache : new WorkloadCache(client);
        this.lookups = new InformerLookups();
    }

    /** An index answering from {@code lookups} alone (nothing to start), for tests. */
    static WorkloadIndex over(Lookups lookups) {
        WorkloadIndex index = new WorkloadIndex(null, null, null);
        index.lookups = lookups;
        return index;
    }

    public void start(Duration syncTimeout) {
        cache.start(syncTimeout);
        limitRanges = client.limitRanges().inAnyNamespace().runnableInformer(0);
        try {
            limitRanges.start().toCompletableFuture().get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("webhook cache of LimitRanges not synced within {}: {}", syncTimeout, e.toString());
        }
    }

    /**
     * The target of a pod, empty when the pod does not belong to an opted-in workload.
     *
     * @param dryRun a dry-run admission, which must not publish anything
     */
    public Optional<Resolution> resolve(String namespace, JsonNode pod, boolean dryRun) {
        HasMetadata workload = workload(namespace, pod);
        if (workload == null || workload.getMetadata().getAnnotations() == null) {
            return Optional.empty();
        }
        String policy = workload.getMetadata().getAnnotations().get(POLICY);
        if (policy == null || policy.isBlank()) {
            return Optional.empty();
        }
        String workloadName = workload.getMetadata().getName();
        String configMapName = configMapName(workload.getKind(), workloadName);
        ConfigMap configMap = currentConfigMap(namespace, configMapName, workload, pod);
        if (configMap == null && !dryRun) {
            configMap = firstAllocation(namespace, configMapName, workload);
        }
        if (!holdsAllocation(configMap, workload)) {
            return Optional.of(new Resolution(
                    new InjectionTarget(workload, null, configMapName, null),
                    "no allocation is published for " + workload.getKind() + " " + workloadName + " yet (ConfigMap "
                            + configMapName + "); the pod starts without the agent and is reported as drift",
                    false));
        }
        String target = configMap.getMetadata().getAnnotations() == null
                ? null
                : configMap.getMetadata().getAnnotations().get(TARGET_CONTAINER);
        Parsed parsed = parsed(configMap, workload);
        if (parsed.allocation() == null) {
            return Optional.of(new Resolution(
                    new InjectionTarget(workload, target, configMapName, null),
                    "ConfigMap " + configMapName + " was not used: " + parsed.problem() + "; nothing was injected",
                    true));
        }
        return Optional.of(
                new Resolution(new InjectionTarget(workload, target, configMapName, parsed.allocation()), null, false));
    }

    /**
     * The workload's ConfigMap from the cache, or read from the API server when the cache is behind a pod the
     * operator stamped: it holds no allocation, or one for another restart hash than the one on the pod's
     * template. The operator publishes the ConfigMap just before it stamps the template, so the pods of that
     * rollout are created while this cache may still miss the write; admitting them without the agent (or with
     * the older allocation) would spend the workload's one drift rollout on the operator's own race. Only such
     * pods pay for the read, bounded as {@link #configMapReader}'s; a read that fails or is late leaves the
     * cached answer.
     */
    private ConfigMap currentConfigMap(String namespace, String name, HasMetadata workload, JsonNode pod) {
        return currentConfigMap(
                lookups.cachedConfigMap(namespace, name), name, workload, pod, configMapReader(namespace));
    }

    ConfigMap currentConfigMap(
            ConfigMap cached, String name, HasMetadata workload, JsonNode pod, EnvFromSources.ConfigMapReader reader) {
        String stamped =
                pod.path("metadata").path("annotations").path(RESTART_HASH).asText(null);
        if (stamped == null) {
            return cached; // not of an operator rollout (rollout Manual, or before the opt-in's): nothing to wait for
        }
        if (holdsAllocation(cached, workload)) {
            PublishedAllocation allocation = parsed(cached, workload).allocation();
            if (allocation == null || stamped.equals(allocation.restartHash())) {
                return cached; // current, or refused either way
            }
        }
        try {
            ConfigMap live = reader.read(name);
            return live != null ? live : cached;
        } catch (Exception e) {
            LOG.debug("could not read ConfigMap {} past the cache: {}", name, e.toString());
            return cached;
        }
    }

    /**
     * For a workload whose ConfigMap the cache does not hold: the one {@link FirstAllocation} creates (the workload
     * was created with its policy and this is one of its first pods), else the one on the API server (the cache is
     * behind the operator's publish, or another pod's admission created it meanwhile); null when there is none.
     * Bounded at 1.5 s in all, inside the webhook's 2 s timeout.
     */
    private ConfigMap firstAllocation(String namespace, String name, HasMetadata workload) {
        if (first == null) {
            return null;
        }
        Optional<ConfigMap> created = first.publish(workload);
        if (created.isPresent()) {
            return created.get();
        }
        try {
            return configMapReader(namespace).read(name);
        } catch (Exception e) {
            LOG.debug("could not read ConfigMap {}/{}: {}", namespace, name, e.toString());
            return null;
        }
    }

    private static boolean holdsAllocation(ConfigMap configMap, HasMetadata workload) {
        return configMap != null
                && CachedConfigMaps.data(configMap).get(ALLOCATION_KEY) != null
                && AllocationConfigMap.publishedFor(configMap, workload);
    }

    /**
     * Reads the ConfigMaps of {@code namespace} that a pod's {@code envFrom} names ({@link EnvFromSources}). Only
     * pods with an {@code envFrom} pay for the read; it is bounded well inside the webhook's 2 s timeout, and a
     * read that fails or is late counts as "may set it" (the pod is left uninjected, with the reason).
     */
    public EnvFromSources.ConfigMapReader configMapReader(String namespace) {
        return name -> lookups.liveConfigMap(namespace, name);
    }

    /** The LimitRanges of a namespace (the injected init container must fit them). */
    public List<LimitRange> limitRanges(String namespace) {
        return lookups.limitRanges(namespace);
    }

    /** The Deployment (through its ReplicaSet) or StatefulSet controlling the pod, from the caches. */
    private HasMetadata workload(String namespace, JsonNode pod) {
        JsonNode owner = controllerOwner(pod);
        if (owner == null) {
            return null;
        }
        String hash = pod.path("metadata")
                .path("labels")
                .path(Workload.POD_TEMPLATE_HASH)
                .asText("");
        return Workload.controllingWorkload(
                        owner.path("kind").asText(), owner.path("name").asText(), hash)
                .map(w -> lookups.workload(w.getKey(), namespace, w.getValue()))
                .orElse(null);
    }

    /** The allocation of a ConfigMap the operator published, or why it is refused; cached per resourceVersion. */
    private Parsed parsed(ConfigMap configMap, HasMetadata workload) {
        String key =
                configMap.getMetadata().getUid() + "/" + workload.getMetadata().getUid();
        String version = configMap.getMetadata().getResourceVersion();
        Parsed cached = parsed.get(key);
        if (cached != null && cached.resourceVersion().equals(version)) {
            return cached;
        }
        Parsed fresh;
        String problem = ConfigMapProvenance.problem(configMap, workload);
        if (problem != null) {
            fresh = new Parsed(version, null, problem);
        } else {
            try {
                fresh = new Parsed(
                        version,
                        PublishedAllocation.parse(
                                CachedConfigMaps.data(configMap).get(ALLOCATION_KEY)),
                        null);
            } catch (IllegalArgumentException e) {
                fresh = new Parsed(version, null, "it holds no usable allocation: " + e.getMessage());
            }
        }
        if (parsed.size() > 10_000) {
            parsed.clear();
        }
        parsed.put(key, fresh);
        return fresh;
    }

    private static JsonNode controllerOwner(JsonNode pod) {
        JsonNode owners = pod.path("metadata").path("ownerReferences");
        if (!owners.isArray()) {
            return null;
        }
        for (JsonNode owner : owners) {
            if (owner.path("controller").asBoolean(false)) {
                return owner;
            }
        }
        return null;
    }

    /** The informers' caches, and the API server for a live read. */
    private final class InformerLookups implements Lookups {
        /**
         * From the cache, which holds every workload of the cluster; a miss is one created a moment ago whose watch
         * event has not arrived yet (its controller's first pods can come first: one of three first pods of a
         * Deployment created with its policy went uninjected in two .ci/runs, likely so), read live, bounded like the
         * ConfigMap's read. Null when it does not exist, or the read fails or is late.
         */
        @Override
        public HasMetadata workload(String kind, String namespace, String name) {
            HasMetadata cached = cache.workload(kind, namespace, name);
            if (cached != null || client == null) {
                return cached;
            }
            try {
                return LiveReads.start(() -> kind.equals("Deployment")
                                ? client.apps()
                                        .deployments()
                                        .inNamespace(namespace)
                                        .withName(name)
                                        .get()
                                : client.apps()
                                        .statefulSets()
                                        .inNamespace(namespace)
                                        .withName(name)
                                        .get())
                        .get(LIVE_READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.debug("could not read {} {}/{}: {}", kind, namespace, name, e.toString());
                return null;
            }
        }

        @Override
        public ConfigMap cachedConfigMap(String namespace, String name) {
            return cache.configMap(namespace, name);
        }

        @Override
        public List<LimitRange> limitRanges(String namespace) {
            return limitRanges.getIndexer().byIndex(Cache.NAMESPACE_INDEX, namespace);
        }

        @Override
        public ConfigMap liveConfigMap(String namespace, String name) throws Exception {
            return LiveReads.start(() -> client.configMaps()
                            .inNamespace(namespace)
                            .withName(name)
                            .get())
                    .get(LIVE_READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** True when every cache has been filled (an informer the RBAC does not allow never is). */
    boolean synced() {
        return cache.synced() && limitRanges != null && limitRanges.hasSynced();
    }

    @Override
    public void close() {
        if (limitRanges != null) {
            limitRanges.close();
        }
        if (ownsCache) {
            cache.close();
        }
    }
}
