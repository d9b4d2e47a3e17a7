package io.streamsmemory.operator.faults;

import static io.streamsmemory.operator.workload.MetadataKeys.ALLOCATION_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.ALLOCATION_KEY;
import static io.streamsmemory.operator.workload.MetadataKeys.APPLIED_RESTART_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.MANAGED_BY;
import static io.streamsmemory.operator.workload.MetadataKeys.MANAGED_BY_LABEL;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.StoresSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.faults.FaultLedger.Convergence;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One namespace with a policy and {@code count} opted-in Deployments, and the checks that say whether the operator
 * converged after a fault: every workload's ConfigMap carries the latest policy's allocation, its template the
 * matching restart hash, no ConfigMap is duplicated or orphaned, the policy's status is true, and no workload was
 * stamped more than once for the change. With 0 replicas the faults are about what the operator publishes and
 * stamps; with pods, every pod must also run with the agent and the current allocation.
 */
final class ManagedWorkloads {
    static final String POLICY_NAME = "orders";
    private final KubernetesClient client;
    private final String namespace;
    private final int count;
    private final int replicas;
    /** Each Deployment's generation once the first allocation settled: the baseline for counting rollouts. */
    private final Map<String, Long> settledGenerations = new HashMap<>();

    private ManagedWorkloads(KubernetesClient client, String namespace, int count, int replicas) {
        this.client = client;
        this.namespace = namespace;
        this.count = count;
        this.replicas = replicas;
    }

    /** {@code count} workloads without pods. */
    static ManagedWorkloads create(KubernetesClient client, String namespace, int count, Duration wait)
            throws InterruptedException {
        return create(client, namespace, count, 0, wait);
    }

    /**
     * Creates the namespace, a policy (4 threads) and the workloads of {@code replicas} pods each; returns once all
     * are published (and their pods injected).
     */
    static ManagedWorkloads create(KubernetesClient client, String namespace, int count, int replicas, Duration wait)
            throws InterruptedException {
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .endMetadata()
                        .build())
                .serverSideApply();
        client.resource(policy(namespace, 4)).create();
        for (int i = 0; i < count; i++) {
            client.resource(Fixtures.deployment(namespace, String.format("app-%03d", i), POLICY_NAME, replicas, "2Gi"))
                    .create();
        }
        ManagedWorkloads workloads = new ManagedWorkloads(client, namespace, count, replicas);
        Convergence first = workloads.awaitConverged(4, wait);
        if (!first.converged()) {
            throw new IllegalStateException("the first allocation never settled: " + first.detail());
        }
        workloads.settledGenerations.putAll(workloads.stableGenerations(wait));
        return workloads;
    }

    /**
     * Each Deployment's generation once two reads 2 s apart agree: the baseline of the rollout count. A Deployment's
     * generation moves with its annotations too, and a write of the operator's to a workload's metadata can land just
     * after the read that saw the first allocation converge; counted from before it, it would be an "extra rollout"
     * (the likely cause of the one in .ci/run W4, 2026-12-06, in the webhook scenario; not proven).
     */
    private Map<String, Long> stableGenerations(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        Map<String, Long> before = generations();
        while (true) {
            Thread.sleep(2000);
            Map<String, Long> now = generations();
            if (now.equals(before) || System.nanoTime() > deadline) {
                return now;
            }
            before = now;
        }
    }

    private Map<String, Long> generations() {
        Map<String, Long> generations = new HashMap<>();
        for (Deployment deployment : deployments()) {
            generations.put(
                    deployment.getMetadata().getName(), deployment.getMetadata().getGeneration());
        }
        return generations;
    }

    /** The change the faults interrupt: the policy's stream threads (heap and client buffers follow: a restart). */
    void changeThreads(int threads) {
        // A merge patch, as `kubectl patch` sends: no resourceVersion, so the operator's own writes cannot conflict.
        client.resources(StreamsMemoryPolicy.class)
                .inNamespace(namespace)
                .withName(POLICY_NAME)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"streams\":{\"threads\":" + threads + "}}}");
    }

    /**
     * Deletes every pod, as a node drain or an eviction would, and waits until the ReplicaSets have created all of
     * them again: call it while the webhook is down, so they start without the agent ({@code failurePolicy: Ignore}).
     * Returns how many pods were created.
     */
    int recreatePods(Duration wait) throws InterruptedException {
        Set<String> before = pods().stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
        client.pods().inNamespace(namespace).withGracePeriod(0).delete();
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            List<Pod> pods = pods();
            if (pods.size() == count * replicas
                    && pods.stream()
                            .noneMatch(p -> before.contains(p.getMetadata().getUid()))) {
                if (pods.stream().anyMatch(p -> annotations(p).containsKey(ALLOCATION_HASH))) {
                    throw new IllegalStateException("a pod was injected although the webhook is down");
                }
                return pods.size();
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the ReplicaSets did not recreate " + count * replicas + " pods in " + wait);
    }

    /** How many workloads already carry an allocation for {@code threads}. */
    int publishedFor(int threads) {
        Map<String, AllocationDocument> documents = documentsByOwner(managedConfigMaps());
        return (int) documents.values().stream()
                .filter(d -> d.inputs().streamThreads() == threads)
                .count();
    }

    /** Polls until converged on {@code threads} or {@code wait} passes; then measures. */
    Convergence awaitConverged(int threads, Duration wait) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + wait.toNanos();
        Convergence result = measure(threads, start);
        while (!result.converged() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            try {
                result = measure(threads, start);
            } catch (RuntimeException apiNotBackYet) {
                // the API server may still be restarting: measure again
            }
        }
        return result;
    }

    private Convergence measure(int threads, long start) {
        List<Deployment> deployments = deployments();
        List<ConfigMap> configMaps = managedConfigMaps();
        Map<String, AllocationDocument> documents = documentsByOwner(configMaps);
        int lost = 0;
        int extraRollouts = 0;
        int unstamped = 0;
        int withoutAgent = 0;
        Map<String, List<Pod>> podsByApp = pods().stream()
                .collect(Collectors.groupingBy(p -> p.getMetadata().getLabels().get("app")));
        for (Deployment deployment : deployments) {
            AllocationDocument document = documents.get(deployment.getMetadata().getUid());
            if (document == null || document.inputs().streamThreads() != threads) {
                lost++;
                continue;
            }
            if (!Objects.equals(document.restartHash(), templateRestartHash(deployment))) {
                unstamped++;
            }
            withoutAgent +=
                    withoutAgent(podsByApp.getOrDefault(deployment.getMetadata().getName(), List.of()), document);
            Long settled = settledGenerations.get(deployment.getMetadata().getName());
            if (settled != null) {
                extraRollouts += (int) Math.max(0, deployment.getMetadata().getGeneration() - settled - 1);
            }
        }
        // A second ConfigMap for one workload, or one whose owner is gone.
        int strayConfigMaps = configMaps.size() - matched(deployments, documents);
        String status = policyStatusProblem();
        boolean converged = deployments.size() == count
                && lost == 0
                && unstamped == 0
                && withoutAgent == 0
                && strayConfigMaps == 0
                && status == null;
        String detail = String.format(
                "%d workloads, %d not on the latest allocation, %d templates not stamped, "
                        + "%d pods missing or without the agent, %d duplicated or orphaned ConfigMaps, status: %s",
                deployments.size(), lost, unstamped, withoutAgent, strayConfigMaps, status == null ? "true" : status);
        return new Convergence(
                converged, (System.nanoTime() - start) / 1_000_000, lost + strayConfigMaps, extraRollouts, detail);
    }

    /** Pods missing from {@code replicas}, plus pods not injected with {@code document}'s restart hash. */
    private int withoutAgent(List<Pod> pods, AllocationDocument document) {
        int notInjected = (int) pods.stream()
                .filter(p ->
                        !Objects.equals(document.restartHash(), annotations(p).get(APPLIED_RESTART_HASH)))
                .count();
        return Math.max(0, replicas - pods.size()) + notInjected;
    }

    private static int matched(List<Deployment> deployments, Map<String, AllocationDocument> documents) {
        return (int) deployments.stream()
                .filter(d -> documents.containsKey(d.getMetadata().getUid()))
                .count();
    }

    /** Why the policy's status is not the truth about the workloads, or null. */
    private String policyStatusProblem() {
        StreamsMemoryPolicy policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(namespace)
                .withName(POLICY_NAME)
                .get();
        if (policy.getStatus() == null) {
            return "no status";
        }
        if (!Objects.equals(
                policy.getStatus().getObservedGeneration(), policy.getMetadata().getGeneration())) {
            return "observedGeneration " + policy.getStatus().getObservedGeneration() + " of "
                    + policy.getMetadata().getGeneration();
        }
        if (!Objects.equals(policy.getStatus().getWorkloadCount(), count)) {
            return "workloadCount " + policy.getStatus().getWorkloadCount();
        }
        boolean ready = policy.getStatus().getConditions() != null
                && policy.getStatus().getConditions().stream()
                        .anyMatch(c ->
                                c.getType().equals("Ready") && c.getStatus().equals("True"));
        return ready ? null : "not Ready";
    }

    private List<Deployment> deployments() {
        return client.apps().deployments().inNamespace(namespace).list().getItems();
    }

    /** The pods that are not being deleted. */
    private List<Pod> pods() {
        return client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private static Map<String, String> annotations(Pod pod) {
        return pod.getMetadata().getAnnotations() == null
                ? Map.of()
                : pod.getMetadata().getAnnotations();
    }

    private List<ConfigMap> managedConfigMaps() {
        return client.configMaps()
                .inNamespace(namespace)
                .withLabel(MANAGED_BY_LABEL, MANAGED_BY)
                .list()
                .getItems();
    }

    /** The published allocation of each workload, by the workload's uid (its ConfigMap's owner). */
    private static Map<String, AllocationDocument> documentsByOwner(List<ConfigMap> configMaps) {
        Map<String, AllocationDocument> documents = new HashMap<>();
        for (ConfigMap configMap : configMaps) {
            List<OwnerReference> owners = configMap.getMetadata().getOwnerReferences();
            String data =
                    configMap.getData() == null ? null : configMap.getData().get(ALLOCATION_KEY);
            if (owners == null || owners.size() != 1 || data == null) {
                continue;
            }
            documents.put(owners.get(0).getUid(), AllocationJson.read(data));
        }
        return documents;
    }

    /**
     * The restart hash the workload's pods run: stamped on the template, or, for a workload whose first pods the
     * webhook injected with the allocation, recorded on the workload instead of rolling them.
     */
    private static String templateRestartHash(Deployment deployment) {
        return Workload.of(deployment).flatMap(Workload::appliedRestartHash).orElse(null);
    }

    private static StreamsMemoryPolicy policy(String namespace, int threads) {
        StreamsMemoryPolicy policy = new StreamsMemoryPolicy();
        policy.getMetadata().setName(POLICY_NAME);
        policy.getMetadata().setNamespace(namespace);
        StreamsSpec streams = new StreamsSpec();
        streams.setThreads(threads);
        streams.setPartitions(24);
        StoresSpec stores = new StoresSpec();
        stores.setKeyValue(2);
        streams.setStores(stores);
        StreamsMemoryPolicySpec spec = new StreamsMemoryPolicySpec();
        spec.setMemory("2Gi");
        spec.setStreams(streams);
        policy.setSpec(spec);
        return policy;
    }
}
