package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static io.streamsmemory.operator.Fixtures.templateRestartHash;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.admission.WorkloadIndex;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The policy reconciler against a real kube-apiserver (and kube-controller-manager for garbage collection). */
@EnableLocalControlPlane(controllerManager = true)
@WithRunningOperator
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyReconcilerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    KubernetesClient client;
    private RunningOperator operator;

    /** Policy "orders" (2Gi) and Deployment "orders-app" (3 replicas) in a new namespace, once published. */
    private ConfigMap publishedWorkload(String ns) {
        return publishedWorkload(ns, policy(ns, "orders", "2Gi"));
    }

    /** The fixture's Deployment under {@code policy} (named "orders"), once its ConfigMap is published. */
    private ConfigMap publishedWorkload(String ns, StreamsMemoryPolicy policy) {
        Fixtures.namespace(client, ns);
        client.resource(policy).create();
        client.resource(deployment(ns, "orders-app", "orders", 3, "2Gi")).create();
        await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
        return configMap(client, ns, "orders-app");
    }

    /** In a new namespace: the fixture's policy "orders" (2Gi) and a Deployment naming it. */
    private void ordersPolicyAndDeployment(String ns, String deployment, int replicas, String memoryLimit) {
        Fixtures.namespace(client, ns);
        client.resource(policy(ns, "orders", "2Gi")).create();
        client.resource(deployment(ns, deployment, "orders", replicas, memoryLimit))
                .create();
    }

    private StreamsMemoryPolicy policyIn(String namespace, String name) {
        return Fixtures.policyIn(client, namespace, name);
    }

    /** The policy's status.workloadCount; null until the operator first writes the status. */
    private Integer workloadCount(String namespace, String name) {
        StreamsMemoryPolicy policy = policyIn(namespace, name);
        return policy == null || policy.getStatus() == null
                ? null
                : policy.getStatus().getWorkloadCount();
    }

    /** The policy's status.workloads; empty until the operator first writes the status. */
    private List<WorkloadAllocationStatus> rows(String namespace, String name) {
        StreamsMemoryPolicy policy = policyIn(namespace, name);
        return policy == null
                        || policy.getStatus() == null
                        || policy.getStatus().getWorkloads() == null
                ? List.of()
                : policy.getStatus().getWorkloads();
    }

    private static Optional<Condition> condition(StreamsMemoryPolicy policy, String type) {
        return Fixtures.condition(policy, type);
    }

    private static boolean isReady(StreamsMemoryPolicy policy, String status) {
        return condition(policy, "Ready").map(c -> c.getStatus().equals(status)).orElse(false);
    }

    /** The API server refuses to create {@code policy} as Invalid (422), naming {@code field}. */
    private void assertInvalid(StreamsMemoryPolicy policy, String field) {
        assertThatThrownBy(() -> client.resource(policy).create())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(422))
                .hasMessageContaining(field);
    }

    private List<Event> events(String namespace, String objectName, String reason) {
        return Fixtures.events(client, namespace, objectName, reason);
    }

    @Test
    void policyWithoutWorkloadsIsReadyWithItsNumbersInStatus() {
        String ns = "lifecycle";
        Fixtures.namespace(client, ns);
        client.resource(policy(ns, "orders", "2Gi")).create();

        await().atMost(WAIT).until(() -> isReady(policyIn(ns, "orders"), "True"));
        StreamsMemoryPolicy policy = policyIn(ns, "orders");
        assertThat(policy.getStatus().getObservedGeneration())
                .isEqualTo(policy.getMetadata().getGeneration());
        assertThat(policy.getStatus().getHeap()).endsWith("MiB");
        assertThat(policy.getStatus().getRocksDb()).endsWith("MiB");
        assertThat(policy.getStatus().getRecordCache()).endsWith("MiB");
        assertThat(policy.getStatus().getWorkloadCount()).isZero();
        assertThat(condition(policy, "InvalidSpec"))
                .get()
                .extracting(Condition::getStatus)
                .isEqualTo("False");
        assertThat(condition(policy, "Ready").get().getObservedGeneration())
                .isEqualTo(policy.getMetadata().getGeneration());
    }

    @Test
    void crdRejectsMalformedPolicies() {
        String ns = "validation";
        Fixtures.namespace(client, ns);
        StreamsMemoryPolicy badQuantity = policy(ns, "bad-memory", "two gigs");
        assertInvalid(badQuantity, "spec.memory");
        StreamsMemoryPolicy both = policy(ns, "both", "2Gi");
        both.getSpec().getStreams().setTasksPerPod(4);
        assertThatThrownBy(() -> client.resource(both).create())
                .hasMessageContaining("set at most one of partitions and tasksPerPod");
        StreamsMemoryPolicy zeroThreads = policy(ns, "zero", "2Gi");
        zeroThreads.getSpec().getStreams().setThreads(0);
        assertThatThrownBy(() -> client.resource(zeroThreads).create()).hasMessageContaining("spec.streams.threads");
    }

    @Test
    void optInPublishesTheAllocationAndStampsTheTemplateThenOptOutRemovesIt() {
        String ns = "opt-in";
        ConfigMap published = publishedWorkload(ns);
        AllocationDocument document = AllocationJson.read(published.getData().get(MetadataKeys.ALLOCATION_KEY));
        assertThat(document.memoryBytes()).isEqualTo(2L << 30);
        assertThat(document.inputs().replicas()).isEqualTo(3);
        assertThat(document.topology().activeTasksPerPod()).isEqualTo(8);
        assertThat(published.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(owner -> assertThat(owner.getName()).isEqualTo("orders-app"));
        await().atMost(WAIT)
                .until(() -> document.restartHash()
                        .equals(templateRestartHash(client.apps()
                                .deployments()
                                .inNamespace(ns)
                                .withName("orders-app")
                                .get())));
        // The status is written after the stamp, in the same reconcile: it may not be there yet.
        await().atMost(WAIT).until(() -> Integer.valueOf(1).equals(workloadCount(ns, "orders")));
        var row = policyIn(ns, "orders").getStatus().getWorkloads().get(0);
        assertThat(row.getKind()).isEqualTo("Deployment");
        assertThat(row.getTasksPerPod()).isEqualTo(8);
        assertThat(row.getAllocationHash()).isEqualTo(document.hash());
        assertThat(row.getRestartPending()).isFalse();
        await().atMost(WAIT).until(() -> !events(ns, "orders-app", "Allocated").isEmpty());
        // Prometheus gauges carry each part of the allocation.
        assertThat(operator.registry.scrape())
                .contains(String.format(
                        "streamsmemory_allocation_bytes{namespace=\"%s\",part=\"heap\",workload=\"orders-app\",} %s",
                        ns, (double) document.parts().stream()
                                .filter(p -> p.name().equals("heap"))
                                .findFirst()
                                .orElseThrow()
                                .bytes()));

        // The user's own field survives the operator's apply: the operator owns only its annotation.
        Deployment live = client.apps()
                .deployments()
                .inNamespace(ns)
                .withName("orders-app")
                .get();
        assertThat(live.getSpec().getTemplate().getSpec().getContainers())
                .singleElement()
                .satisfies(c -> assertThat(c.getImage()).isEqualTo("example/streams-app:1"));

        Fixtures.edit(client.apps().deployments().inNamespace(ns).withName("orders-app"), d -> {
            d.getMetadata().getAnnotations().remove(MetadataKeys.POLICY);
            return d;
        });
        await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") == null);
        await().atMost(WAIT).until(() -> policyIn(ns, "orders").getStatus().getWorkloadCount() == 0);
    }

    @Test
    void instancesPerPodReachesThePublishedAllocation() {
        String ns = "two-instances";
        StreamsMemoryPolicy policy = policy(ns, "orders", "2Gi");
        policy.getSpec().getStreams().setInstancesPerPod(2);
        AllocationDocument document =
                AllocationJson.read(publishedWorkload(ns, policy).getData().get(MetadataKeys.ALLOCATION_KEY));
        // The agent divides the instance-scoped bounds by this number (see src/agent/README.md).
        assertThat(document.inputs().instancesPerPod()).isEqualTo(2);
    }

    @Test
    void jvmNeedsReachThePublishedJvmFlagsAndTheCrdBoundsTheClassCount() {
        String ns = "jvm-needs";
        StreamsMemoryPolicy policy = policy(ns, "orders", "2Gi");
        JvmSpec jvm = new JvmSpec();
        jvm.setLoadedClasses(25_000);
        jvm.setExtraDirectMemory("64Mi");
        policy.getSpec().setJvm(jvm);
        AllocationDocument document =
                AllocationJson.read(publishedWorkload(ns, policy).getData().get(MetadataKeys.ALLOCATION_KEY));
        assertThat(document.inputs().loadedClasses()).isEqualTo(25_000);
        assertThat(document.inputs().extraDirectMemoryBytes()).isEqualTo(64L << 20);
        // ceil((25,000 x 5,800 B + 14,000,000 B) / MiB) = 152 MiB, where the default 15,000 classes give 97 MiB.
        assertThat(document.jvmOptions()).contains("-XX:MaxMetaspaceSize=152m");
        assertThat(document.parts().stream()
                        .filter(p -> p.name().equals("jvm-direct-memory"))
                        .findFirst()
                        .orElseThrow()
                        .reason())
                .contains("64 MiB the application's own libraries use");

        StreamsMemoryPolicy tooFew = policy(ns, "too-few-classes", "2Gi");
        tooFew.getSpec().setJvm(new JvmSpec());
        tooFew.getSpec().getJvm().setLoadedClasses(10);
        assertInvalid(tooFew, "spec.jvm.loadedClasses");
        StreamsMemoryPolicy badQuantity = policy(ns, "bad-direct", "2Gi");
        badQuantity.getSpec().setJvm(new JvmSpec());
        badQuantity.getSpec().getJvm().setExtraDirectMemory("a lot");
        assertThatThrownBy(() -> client.resource(badQuantity).create())
                .hasMessageContaining("spec.jvm.extraDirectMemory");
    }

    @Test
    void transactionalStateStoresReachThePublishedAllocation() {
        String ns = "transactional";
        StreamsMemoryPolicy policy = policy(ns, "orders", "2Gi");
        policy.getSpec().getStreams().setTransactionalStateStores(true);
        AllocationDocument document =
                AllocationJson.read(publishedWorkload(ns, policy).getData().get(MetadataKeys.ALLOCATION_KEY));
        assertThat(document.inputs().transactionalStateStores()).isTrue();
        assertThat(Long.parseLong(document.streamsConfig().get("statestore.uncommitted.max.bytes")))
                .isPositive();
        assertThat(document.parts()).extracting(p -> p.name()).contains("uncommitted-write-batches");
    }

    @Test
    void statefulSetOptsInLikeADeployment() {
        String ns = "statefulsets";
        Fixtures.namespace(client, ns);
        client.resource(policy(ns, "orders", "2Gi")).create();
        client.resource(Fixtures.statefulSet(ns, "orders-sts", "orders", 4, "2Gi"))
                .create();

        await().atMost(WAIT).until(() -> configMap(client, ns, "StatefulSet", "orders-sts") != null);
        AllocationDocument document = AllocationJson.read(
                configMap(client, ns, "StatefulSet", "orders-sts").getData().get(MetadataKeys.ALLOCATION_KEY));
        assertThat(document.topology().activeTasksPerPod()).isEqualTo(6); // 24 partitions over 4 pods
        assertThat(configMap(client, ns, "StatefulSet", "orders-sts")
                        .getMetadata()
                        .getOwnerReferences())
                .singleElement()
                .satisfies(owner -> assertThat(owner.getKind()).isEqualTo("StatefulSet"));
        await().atMost(WAIT)
                .until(() -> document.restartHash()
                        .equals(client.apps()
                                .statefulSets()
                                .inNamespace(ns)
                                .withName("orders-sts")
                                .get()
                                .getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations()
                                .get(MetadataKeys.RESTART_HASH)));
        await().atMost(WAIT)
                .until(() -> rows(ns, "orders").stream()
                        .anyMatch(w ->
                                w.getKind().equals("StatefulSet") && w.getName().equals("orders-sts")));
    }

    @Test
    void scalingResplitsWithoutRollingAndManualOnlyReports() {
        String ns = "scaling";
        Fixtures.namespace(client, ns);
        StreamsMemoryPolicy manual = policy(ns, "manual", "2Gi");
        manual.getSpec().setRollout(Rollout.Manual);
        client.resource(manual).create();
        client.resource(policy(ns, "automatic", "2Gi")).create();
        client.resource(deployment(ns, "auto-app", "automatic", 3, "2Gi")).create();
        client.resource(deployment(ns, "manual-app", "manual", 3, "2Gi")).create();
        await().atMost(WAIT)
                .until(() -> configMap(client, ns, "auto-app") != null && configMap(client, ns, "manual-app") != null);
        await().atMost(WAIT).until(() -> templateRestartHash(deploymentIn(ns, "auto-app")) != null);
        String autoBefore = templateRestartHash(deploymentIn(ns, "auto-app"));
        assertThat(templateRestartHash(deploymentIn(ns, "manual-app"))).isNull();

        client.apps().deployments().inNamespace(ns).withName("auto-app").scale(6);
        client.apps().deployments().inNamespace(ns).withName("manual-app").scale(6);

        // 24 partitions over 6 pods: 4 tasks per pod, re-published for both.
        for (String app : List.of("auto-app", "manual-app")) {
            await().atMost(WAIT)
                    .until(() -> AllocationJson.read(
                                            configMap(client, ns, app).getData().get(MetadataKeys.ALLOCATION_KEY))
                                    .topology()
                                    .activeTasksPerPod()
                            == 4);
        }
        // Planned for the replica range (1 to 6 now): scaling restarts no pod (ScalingTest has the rest). The status
        // is written after any stamp of the same reconcile.
        await().atMost(WAIT)
                .until(() -> rows(ns, "automatic").stream()
                        .findFirst()
                        .map(row -> Integer.valueOf(6).equals(row.getReplicas()))
                        .orElse(false));
        assertThat(templateRestartHash(deploymentIn(ns, "auto-app"))).isEqualTo(autoBefore);
        assertThat(templateRestartHash(deploymentIn(ns, "manual-app"))).isNull();
        // Manual still reports the restart its opt-in needs, and never stamps.
        await().atMost(WAIT)
                .until(() -> rows(ns, "manual").stream()
                        .findFirst()
                        .map(row -> Boolean.TRUE.equals(row.getRestartPending()))
                        .orElse(false));
        await().atMost(WAIT)
                .untilAsserted(() ->
                        assertThat(events(ns, "manual-app", "RestartPending")).isNotEmpty());
        // the opt-in's, posted after the stamp it tells of
        await().atMost(WAIT)
                .untilAsserted(() ->
                        assertThat(events(ns, "auto-app", "RollingRestart")).hasSize(1));

        // A re-split that needs a restart is told in the restart's Event, one Event per workload (a re-split of
        // 1,000 workloads posts 1,000 Events, not 2,000).
        Fixtures.edit(
                client.resources(StreamsMemoryPolicy.class).inNamespace(ns).withName("manual"), p -> {
                    p.getSpec().getStreams().setThreads(2);
                    return p;
                });
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events(ns, "manual-app", "RestartPending"))
                        .extracting(Event::getMessage)
                        .anyMatch(message -> message.startsWith("re-split (")
                                && message.contains("threads=2")
                                && message.contains("rollout is Manual")));
        assertThat(events(ns, "manual-app", "Resplit")).isEmpty();
    }

    @Test
    void aChangeThatNeedsNoRestartDoesNotRollThePods() {
        String ns = "no-restart";
        ordersPolicyAndDeployment(ns, "orders-app", 3, "2Gi");
        await().atMost(WAIT).until(() -> templateRestartHash(deploymentIn(ns, "orders-app")) != null);
        Deployment before = deploymentIn(ns, "orders-app");
        String hashBefore = configMap(client, ns, "orders-app")
                .getMetadata()
                .getAnnotations()
                .get(MetadataKeys.ALLOCATION_HASH);

        // Much larger records change only buffered.records.per.partition: Kafka Streams config, no JVM flag.
        Fixtures.edit(
                client.resources(StreamsMemoryPolicy.class).inNamespace(ns).withName("orders"), p -> {
                    p.getSpec().getStreams().setRecordSize("64Ki");
                    return p;
                });
        await().atMost(WAIT)
                .until(() -> !hashBefore.equals(configMap(client, ns, "orders-app")
                        .getMetadata()
                        .getAnnotations()
                        .get(MetadataKeys.ALLOCATION_HASH)));
        Deployment after = deploymentIn(ns, "orders-app");
        assertThat(templateRestartHash(after)).isEqualTo(templateRestartHash(before));
        assertThat(after.getMetadata().getGeneration())
                .isEqualTo(before.getMetadata().getGeneration());
        // No restart to tell it in: the re-split has an Event of its own.
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events(ns, "orders-app", "Resplit"))
                        .extracting(Event::getMessage)
                        .singleElement()
                        .asString()
                        .startsWith("re-split ("));
    }

    @Test
    void unsatisfiablePolicyIsNotReadyAndChangesNothingPublished() {
        String ns = "unsatisfiable";
        ordersPolicyAndDeployment(ns, "orders-app", 3, "4Gi");
        // The ConfigMap is published before the template is stamped, in the same reconcile: wait for both.
        await().atMost(WAIT)
                .until(() -> configMap(client, ns, "orders-app") != null
                        && templateRestartHash(deploymentIn(ns, "orders-app")) != null);
        String published = configMap(client, ns, "orders-app").getData().get(MetadataKeys.ALLOCATION_KEY);
        String stamped = templateRestartHash(deploymentIn(ns, "orders-app"));

        Fixtures.edit(
                client.resources(StreamsMemoryPolicy.class).inNamespace(ns).withName("orders"), p -> {
                    p.getSpec().setMemory("256Mi");
                    p.getSpec().getStreams().setThreads(8);
                    p.getSpec().getStreams().getStores().setKeyValue(40);
                    return p;
                });
        await().atMost(WAIT).until(() -> isReady(policyIn(ns, "orders"), "False"));
        StreamsMemoryPolicy policy = policyIn(ns, "orders");
        assertThat(condition(policy, "Ready").get().getMessage()).contains("raise memory to at least");
        assertThat(condition(policy, "Degraded").get().getStatus()).isEqualTo("True");
        assertThat(configMap(client, ns, "orders-app").getData().get(MetadataKeys.ALLOCATION_KEY))
                .isEqualTo(published);
        assertThat(templateRestartHash(deploymentIn(ns, "orders-app"))).isEqualTo(stamped);
        await().atMost(WAIT)
                .until(() -> !events(ns, "orders-app", "AllocationFailed").isEmpty());
    }

    @Test
    void lowerContainerLimitWinsWithAWarningAndBadAnnotationsAreReported() {
        String ns = "limits";
        Fixtures.namespace(client, ns);
        client.resource(policy(ns, "orders", "2Gi")).create();
        Deployment app = deployment(ns, "orders-app", "orders", 3, "1536Mi");
        app.getMetadata().getAnnotations().put(MetadataKeys.STREAM_THREADS, "many");
        client.resource(app).create();
        await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
        AllocationDocument document = AllocationJson.read(
                configMap(client, ns, "orders-app").getData().get(MetadataKeys.ALLOCATION_KEY));
        assertThat(document.memoryBytes()).isEqualTo(1536L << 20);
        assertThat(document.inputs().streamThreads()).isEqualTo(4);
        await().atMost(WAIT)
                .until(() -> condition(policyIn(ns, "orders"), "Warning")
                        .map(c -> c.getStatus().equals("True")
                                && c.getMessage().contains("below the policy's 2 GiB")
                                && c.getMessage().contains("stream-threads=\"many\""))
                        .orElse(false));
        await().atMost(WAIT)
                .until(() -> events(ns, "orders-app", "WorkloadWarning").size() >= 2);
    }

    @Test
    void workloadNamingAMissingPolicyIsToldAndPickedUpWhenThePolicyAppears() {
        String ns = "missing";
        Fixtures.namespace(client, ns);
        client.resource(deployment(ns, "orders-app", "later", 2, "2Gi")).create();
        await().atMost(WAIT)
                .until(() -> !events(ns, "orders-app", "PolicyNotFound").isEmpty());
        assertThat(configMap(client, ns, "orders-app")).isNull();

        client.resource(policy(ns, "later", "2Gi")).create();
        await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
    }

    @Test
    void deletingThePolicyLeavesWorkloadsRunningAndTellsThem() {
        String ns = "policy-deleted";
        publishedWorkload(ns);
        Fixtures.deletePolicy(client, ns, "orders");
        await().atMost(WAIT)
                .until(() -> !events(ns, "orders-app", "PolicyDeleted").isEmpty());
        assertThat(configMap(client, ns, "orders-app")).isNotNull();
        assertThat(templateRestartHash(deploymentIn(ns, "orders-app"))).isNotNull();
    }

    @Test
    void deletingTheWorkloadDeletesItsConfigMapThroughOwnership() {
        String ns = "workload-deleted";
        publishedWorkload(ns);
        client.apps().deployments().inNamespace(ns).withName("orders-app").delete();
        await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") == null);
        await().atMost(WAIT).until(() -> Integer.valueOf(0).equals(workloadCount(ns, "orders")));
    }

    @Test
    void concurrentEditsOfTheWorkloadConverge() {
        String ns = "conflicts";
        ordersPolicyAndDeployment(ns, "orders-app", 2, "2Gi");
        // Someone else keeps editing the workload while the operator reconciles it.
        // Someone else keeps editing the workload while the operator reconciles it; like kubectl, they retry
        // when their optimistic update loses to the operator's.
        for (int i = 0; i < 10; i++) {
            int round = i;
            Fixtures.edit(client.apps().deployments().inNamespace(ns).withName("orders-app"), d -> {
                d.getMetadata().setLabels(new HashMap<>(Map.of("edited", Integer.toString(round))));
                d.getSpec().setReplicas(2 + round % 3);
                return d;
            });
        }
        await().atMost(WAIT).until(() -> {
            Deployment live = deploymentIn(ns, "orders-app");
            ConfigMap cm = configMap(client, ns, "orders-app");
            if (cm == null) {
                return false;
            }
            AllocationDocument document = AllocationJson.read(cm.getData().get(MetadataKeys.ALLOCATION_KEY));
            return document.inputs().replicas() == live.getSpec().getReplicas()
                    && document.restartHash().equals(templateRestartHash(live));
        });
        assertThat(deploymentIn(ns, "orders-app").getMetadata().getLabels()).containsEntry("edited", "9");
    }

    // Issue 10, case 1: one workload's trouble stays its own.
    @Test
    void aFailingWorkloadIsReportedOnItsRowWhileTheOthersAreAllocatedAndLongNamesAreHashedIntoLabels() {
        String ns = "isolation";
        Fixtures.namespace(client, ns);
        client.resource(policy(ns, "orders", "2Gi")).create();
        String longName = "b-" + "long".repeat(17); // 70 characters: too long for a label value
        client.resource(deployment(ns, "a-zero-limit", "orders", 3, "0")).create();
        Deployment longNamed = deployment(ns, longName, "orders", 3, "2Gi");
        longNamed.getSpec().getSelector().setMatchLabels(Map.of("app", "b-long"));
        longNamed.getSpec().getTemplate().getMetadata().setLabels(Map.of("app", "b-long"));
        client.resource(longNamed).create();
        client.resource(deployment(ns, "c-normal", "orders", 3, "2Gi")).create();
        String longPolicy = "p-" + "olicy".repeat(13); // 67 characters
        client.resource(policy(ns, longPolicy, "2Gi")).create();
        client.resource(deployment(ns, "d-app", longPolicy, 3, "2Gi")).create();

        await().atMost(WAIT)
                .until(() -> configMap(client, ns, "c-normal") != null
                        && configMap(client, ns, longName) != null
                        && configMap(client, ns, "d-app") != null);
        assertThat(configMap(client, ns, longName).getMetadata().getLabels().values())
                .allSatisfy(value -> assertThat(value).hasSizeLessThanOrEqualTo(63));
        await().atMost(WAIT)
                .until(() -> condition(policyIn(ns, "orders"), "Degraded")
                        .map(c -> c.getStatus().equals("True") && c.getMessage().contains("1 of 3"))
                        .orElse(false));
        StreamsMemoryPolicy policy = policyIn(ns, "orders");
        assertThat(policy.getStatus().getWorkloads()).hasSize(3);
        assertThat(policy.getStatus().getWorkloads())
                .filteredOn(w -> w.getName().equals("a-zero-limit"))
                .singleElement()
                .satisfies(w -> assertThat(w.getMessage()).isNotBlank());
        assertThat(policy.getStatus().getWorkloads())
                .filteredOn(w -> !w.getName().equals("a-zero-limit"))
                .allSatisfy(w -> assertThat(w.getAllocationHash()).isNotNull());
        assertThat(condition(policy, "InvalidSpec")).isPresent();
        assertThat(condition(policy, "Warning")).isPresent();
        await().atMost(WAIT)
                .until(() -> !events(ns, "a-zero-limit", "AllocationFailed").isEmpty()
                        || !events(ns, "a-zero-limit", "WorkloadFailed").isEmpty());
        await().atMost(WAIT).until(() -> isReady(policyIn(ns, longPolicy), "True"));
    }

    // Issue 10, case 2: a Deployment and a StatefulSet of the same name.
    @Test
    void aDeploymentAndAStatefulSetOfTheSameNameEachGetTheirOwnConfigMap() {
        String ns = "twins";
        ordersPolicyAndDeployment(ns, "twin", 3, "2Gi");
        client.resource(Fixtures.statefulSet(ns, "twin", "orders", 4, "2Gi")).create();

        await().atMost(WAIT)
                .until(() -> policyIn(ns, "orders").getStatus() != null
                        && Integer.valueOf(2)
                                .equals(policyIn(ns, "orders").getStatus().getWorkloadCount()));
        await().atMost(WAIT)
                .until(() -> configMap(client, ns, "Deployment", "twin") != null
                        && configMap(client, ns, "StatefulSet", "twin") != null
                        && replicasOf(configMap(client, ns, "Deployment", "twin")) == 3
                        && replicasOf(configMap(client, ns, "StatefulSet", "twin")) == 4);
        for (String kind : List.of("Deployment", "StatefulSet")) {
            assertThat(configMap(client, ns, kind, "twin").getMetadata().getOwnerReferences())
                    .singleElement()
                    .satisfies(owner -> assertThat(owner.getKind()).isEqualTo(kind));
        }
        assertThat(policyIn(ns, "orders").getStatus().getWorkloads())
                .extracting(w -> w.getConfigMap())
                .doesNotHaveDuplicates();

        // The webhook gives each workload's pods that workload's own allocation.
        try (WorkloadIndex index = new WorkloadIndex(client, null, null)) {
            index.start(WAIT);
            for (String kind : List.of("Deployment", "StatefulSet")) {
                ConfigMap own = configMap(client, ns, kind, "twin");
                String pod = kind.equals("Deployment")
                        ? "{\"metadata\":{\"labels\":{\"pod-template-hash\":\"5d8f\"},\"ownerReferences\":"
                                + "[{\"kind\":\"ReplicaSet\",\"name\":\"twin-5d8f\",\"controller\":true}]}}"
                        : "{\"metadata\":{\"ownerReferences\":[{\"kind\":\"StatefulSet\",\"name\":\"twin\","
                                + "\"controller\":true}]}}";
                await().atMost(WAIT)
                        .untilAsserted(() -> assertThat(index.resolve(ns, JSON.readTree(pod), false))
                                .hasValueSatisfying(resolution -> {
                                    assertThat(resolution.target().workload().getKind())
                                            .isEqualTo(kind);
                                    assertThat(resolution.target().configMapName())
                                            .isEqualTo(own.getMetadata().getName());
                                    assertThat(resolution.target().allocation()).isNotNull();
                                    assertThat(resolution.target().allocation().hash())
                                            .isEqualTo(own.getMetadata()
                                                    .getAnnotations()
                                                    .get(MetadataKeys.ALLOCATION_HASH));
                                }));
            }
        }
    }

    // Issue 10, case 2 (upgrade): the name the previous version published under.
    @Test
    void aConfigMapUnderThePreviousNameIsDeletedWhenItIsTheOperatorsAndKeptWhenItIsNot() {
        String ns = "upgrade";
        Fixtures.namespace(client, ns);
        Deployment old =
                client.resource(deployment(ns, "old-app", null, 2, "2Gi")).create();
        Deployment users =
                client.resource(deployment(ns, "users-app", null, 2, "2Gi")).create();
        // What the previous version published for old-app, and a ConfigMap a user wrote under users-app's old name.
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(AllocationConfigMap.legacyConfigMapName("old-app"))
                        .withNamespace(ns)
                        .addToLabels(MetadataKeys.MANAGED_BY_LABEL, MetadataKeys.MANAGED_BY)
                        .addToLabels(MetadataKeys.POLICY_LABEL, "orders")
                        .addToLabels(MetadataKeys.WORKLOAD_KIND_LABEL, "Deployment")
                        .addToLabels(MetadataKeys.WORKLOAD_NAME_LABEL, "old-app")
                        .addToOwnerReferences(Fixtures.appsOwner(
                                "Deployment", "old-app", old.getMetadata().getUid()))
                        .endMetadata()
                        .addToData(MetadataKeys.ALLOCATION_KEY, "{}")
                        .build())
                .create();
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(AllocationConfigMap.legacyConfigMapName("users-app"))
                        .withNamespace(ns)
                        .endMetadata()
                        .addToData("note", "the user's own")
                        .build())
                .create();
        client.resource(policy(ns, "orders", "2Gi")).create();
        for (Deployment d : List.of(old, users)) {
            Fixtures.edit(
                    client.apps()
                            .deployments()
                            .inNamespace(ns)
                            .withName(d.getMetadata().getName()),
                    live -> {
                        live.getMetadata().setAnnotations(Map.of(MetadataKeys.POLICY, "orders"));
                        return live;
                    });
        }

        await().atMost(WAIT)
                .until(() -> configMap(client, ns, "old-app") != null && configMap(client, ns, "users-app") != null);
        await().atMost(WAIT)
                .until(() -> client.configMaps()
                                .inNamespace(ns)
                                .withName(AllocationConfigMap.legacyConfigMapName("old-app"))
                                .get()
                        == null);
        assertThat(client.configMaps()
                        .inNamespace(ns)
                        .withName(AllocationConfigMap.legacyConfigMapName("users-app"))
                        .get()
                        .getData())
                .containsExactly(Map.entry("note", "the user's own"));
    }

    // Issue 10, case 3: a ConfigMap the operator did not create.
    @Test
    void aConfigMapTheOperatorDidNotCreateIsNeitherTakenOverNorDeleted() {
        String ns = "users-own";
        Fixtures.namespace(client, ns);
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(AllocationConfigMap.configMapName("Deployment", "mine"))
                        .withNamespace(ns)
                        .endMetadata()
                        .addToData("note", "mine")
                        .build())
                .create();
        client.resource(policy(ns, "orders", "2Gi")).create();
        client.resource(deployment(ns, "mine", "orders", 3, "2Gi")).create();

        await().atMost(WAIT)
                .until(() -> !events(ns, "mine", "ConfigMapConflict").isEmpty());
        await().atMost(WAIT)
                .until(() -> policyIn(ns, "orders").getStatus() != null
                        && policyIn(ns, "orders").getStatus().getWorkloads().stream()
                                .anyMatch(w -> w.getName().equals("mine")
                                        && w.getMessage() != null
                                        && w.getMessage().contains("not created by the operator")));
        assertThat(configMap(client, ns, "mine").getData()).containsExactly(Map.entry("note", "mine"));
        assertThat(configMap(client, ns, "mine").getMetadata().getLabels()).isNullOrEmpty();

        Fixtures.edit(client.apps().deployments().inNamespace(ns).withName("mine"), d -> {
            d.getMetadata().getAnnotations().remove(MetadataKeys.POLICY);
            return d;
        });
        await().atMost(WAIT).until(() -> policyIn(ns, "orders").getStatus().getWorkloadCount() == 0);
        assertThat(configMap(client, ns, "mine").getData()).containsExactly(Map.entry("note", "mine"));
    }

    // Issue 10, case 4: a hand-edited allocation is restored.
    @Test
    void aHandEditedAllocationIsRestored() {
        String ns = "hand-edited";
        ConfigMap published = publishedWorkload(ns);
        String allocation = published.getData().get(MetadataKeys.ALLOCATION_KEY);
        ConfigMap edited = client.configMaps()
                .inNamespace(ns)
                .withName(published.getMetadata().getName())
                .edit(cm -> {
                    cm.getData()
                            .put(MetadataKeys.ALLOCATION_KEY, allocation.replace("\"formatVersion\"", "\"edited\""));
                    return cm;
                });
        assertThat(edited.getData().get(MetadataKeys.ALLOCATION_KEY)).isNotEqualTo(allocation);
        // Restored: written again after the edit, with the operator's data.
        await().atMost(WAIT).until(() -> {
            ConfigMap now = configMap(client, ns, "orders-app");
            return !now.getMetadata()
                            .getResourceVersion()
                            .equals(edited.getMetadata().getResourceVersion())
                    && allocation.equals(now.getData().get(MetadataKeys.ALLOCATION_KEY));
        });
    }

    private static long replicasOf(ConfigMap configMap) {
        return AllocationJson.read(configMap.getData().get(MetadataKeys.ALLOCATION_KEY))
                .inputs()
                .replicas();
    }

    private Deployment deploymentIn(String namespace, String name) {
        return client.apps().deployments().inNamespace(namespace).withName(name).get();
    }
}
