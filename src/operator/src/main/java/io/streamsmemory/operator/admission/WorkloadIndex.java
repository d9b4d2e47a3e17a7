package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.reconcile.WorkloadAnnotations.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the opted-in workload of a pod under admission from in-memory caches only, so answering costs no
 * API call: the pod's controller owner is a ReplicaSet (named {@code <deployment>-<pod-template-hash>},
 * the hash also being the pod's label) or a StatefulSet; the workload must carry
 * {@code streamsmemory.io/policy}; its allocation is the ConfigMap the operator published for it.
 *
 * <p>The owner chain needs nothing stamped on the user's pod template, so opting in never rolls a
 * workload by itself (which a {@code rollout: Manual} policy promises), and pods restarted by hand are
 * injected as well.
 */
public final class WorkloadIndex implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadIndex.class);
    static final String POD_TEMPLATE_HASH = "pod-template-hash";

    private final KubernetesClient client;
    private SharedIndexInformer<Deployment> deployments;
    private SharedIndexInformer<StatefulSet> statefulSets;
    private SharedIndexInformer<ConfigMap> configMaps;
    /** Parsed documents by ConfigMap uid, with the resourceVersion they were parsed at. */
    private final Map<String, Parsed> parsed = new ConcurrentHashMap<>();

    private record Parsed(String resourceVersion, PublishedAllocation allocation) {
    }

    /** Why a pod of an opted-in workload could not get an allocation (none published yet). */
    public record Resolution(InjectionTarget target, String problem) {
    }

    public WorkloadIndex(KubernetesClient client) {
        this.client = client;
    }

    public void start(Duration syncTimeout) {
        deployments = client.apps().deployments().inAnyNamespace().runnableInformer(0);
        statefulSets = client.apps().statefulSets().inAnyNamespace().runnableInformer(0);
        configMaps = client.configMaps().inAnyNamespace().withLabel(MANAGED_BY_LABEL, MANAGED_BY).runnableInformer(0);
        for (SharedIndexInformer<?> informer : new SharedIndexInformer<?>[] {deployments, statefulSets, configMaps}) {
            try {
                informer.start().toCompletableFuture().get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.warn("webhook cache not synced within {}: {}", syncTimeout, e.toString());
            }
        }
    }

    /** The target of a pod, empty when the pod does not belong to an opted-in workload. */
    public Optional<Resolution> resolve(String namespace, JsonNode pod) {
        JsonNode owner = controllerOwner(pod);
        if (owner == null) {
            return Optional.empty();
        }
        String kind = owner.path("kind").asText();
        String name = owner.path("name").asText();
        HasMetadata workload = null;
        if ("ReplicaSet".equals(kind)) {
            String hash = pod.path("metadata").path("labels").path(POD_TEMPLATE_HASH).asText("");
            if (hash.isEmpty() || !name.endsWith("-" + hash)) {
                return Optional.empty();
            }
            workload = deployments.getStore().getByKey(namespace + "/" + name.substring(0, name.length() - hash.length() - 1));
        } else if ("StatefulSet".equals(kind)) {
            workload = statefulSets.getStore().getByKey(namespace + "/" + name);
        }
        if (workload == null || workload.getMetadata().getAnnotations() == null) {
            return Optional.empty();
        }
        Map<String, String> annotations = workload.getMetadata().getAnnotations();
        String policy = annotations.get(POLICY);
        if (policy == null || policy.isBlank()) {
            return Optional.empty();
        }
        String workloadName = workload.getMetadata().getName();
        String configMapName = configMapName(workloadName);
        ConfigMap configMap = configMaps.getStore().getByKey(namespace + "/" + configMapName);
        if (configMap == null || configMap.getData() == null || configMap.getData().get(ALLOCATION_KEY) == null
                || !workloadName.equals(configMap.getMetadata().getLabels().get(WORKLOAD_NAME_LABEL))) {
            return Optional.of(new Resolution(new InjectionTarget(workload, annotations.get(CONTAINER), configMapName, null),
                    "no allocation is published for " + workload.getKind() + " " + workloadName + " yet (ConfigMap "
                            + configMapName + "); the pod starts without the agent and is reported as drift"));
        }
        PublishedAllocation allocation;
        try {
            allocation = allocation(configMap);
        } catch (IllegalArgumentException e) {
            return Optional.of(new Resolution(new InjectionTarget(workload, annotations.get(CONTAINER), configMapName, null),
                    "ConfigMap " + configMapName + " holds no usable allocation: " + e.getMessage()));
        }
        return Optional.of(new Resolution(new InjectionTarget(workload, annotations.get(CONTAINER), configMapName,
                allocation), null));
    }

    private PublishedAllocation allocation(ConfigMap configMap) {
        String uid = configMap.getMetadata().getUid();
        String version = configMap.getMetadata().getResourceVersion();
        Parsed cached = parsed.get(uid);
        if (cached != null && cached.resourceVersion().equals(version)) {
            return cached.allocation();
        }
        PublishedAllocation allocation = PublishedAllocation.parse(configMap.getData().get(ALLOCATION_KEY));
        if (parsed.size() > 10_000) {
            parsed.clear();
        }
        parsed.put(uid, new Parsed(version, allocation));
        return allocation;
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

    @Override
    public void close() {
        for (SharedIndexInformer<?> informer : new SharedIndexInformer<?>[] {deployments, statefulSets, configMaps}) {
            if (informer != null) {
                informer.close();
            }
        }
    }
}
