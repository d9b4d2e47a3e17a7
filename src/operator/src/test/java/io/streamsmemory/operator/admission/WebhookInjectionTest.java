package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookOperator.WAIT;
import static io.streamsmemory.operator.admission.WebhookOperator.annotation;
import static io.streamsmemory.operator.admission.WebhookOperator.configMap;
import static io.streamsmemory.operator.admission.WebhookOperator.deployment;
import static io.streamsmemory.operator.admission.WebhookOperator.livePods;
import static io.streamsmemory.operator.admission.WebhookOperator.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The real API server calls the operator's webhook over TLS (the operator's own CA in the caBundle)
 * for pods that kube-controller-manager creates from Deployments; kube-scheduler and kwok make them run.
 */
@EnableLocalControlPlane(controllerManager = true, scheduler = true, kwok = true)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookInjectionTest {
    static final String NS = "shop";
    static final String USER_JTO = "-Dapp.mode=test -XX:+ExitOnOutOfMemoryError";

    KubernetesClient client;
    int port;
    WebhookOperator operator;

    /** The webhook configuration this class installed must not call into the next class's cluster. */
    @AfterAll
    void removeTheWebhookConfiguration() {
        Fixtures.deleteWebhookConfiguration(client);
    }

    @BeforeAll
    void start() throws Exception {
        // Pods here must pass the restricted Pod Security Standard, the injected init container included.
        Fixtures.namespace(client, NS, Map.of("pod-security.kubernetes.io/enforce", "restricted"));
        port = WebhookOperator.prepareLocal(client);
        operator = WebhookOperator.start(client, WebhookOperator.localSettings(port));

        client.resource(policy(NS, "orders", Rollout.Automatic)).create();
        client.resource(policy(NS, "manual", Rollout.Manual)).create();
        // Everything the tests look at, created at once so the pods come up in parallel.
        client.resource(deployment(
                        NS, "orders-app", "orders", 2, List.of(new EnvVar("JAVA_TOOL_OPTIONS", USER_JTO, null))))
                .create();
        client.resource(deployment(
                        NS,
                        "from-env",
                        "orders",
                        1,
                        List.of(new EnvVarBuilder()
                                .withName("JAVA_TOOL_OPTIONS")
                                .withNewValueFrom()
                                .withNewConfigMapKeyRef("opts", "jvm", true)
                                .endValueFrom()
                                .build())))
                .create();
        client.resource(deployment(NS, "plain", null, 1, List.of(new EnvVar("JAVA_TOOL_OPTIONS", USER_JTO, null))))
                .create();
        client.resource(deployment(NS, "drift-auto", "orders", 2, List.of())).create();
        client.resource(deployment(NS, "drift-manual", "manual", 2, List.of())).create();
        client.resource(new StatefulSetBuilder(
                                Fixtures.statefulSetLike(deployment(NS, "orders-sts", "orders", 2, List.of())))
                        .editSpec()
                        .withPodManagementPolicy("Parallel")
                        .endSpec()
                        .build())
                .create();
    }

    @AfterAll
    void stop() {
        if (operator != null) {
            operator.close();
        }
    }

    private AllocationDocument allocation(String workload) {
        await().atMost(WAIT).until(() -> configMap(client, NS, workload) != null);
        ConfigMap configMap = configMap(client, NS, workload);
        return AllocationJson.read(configMap.getData().get(MetadataKeys.ALLOCATION_KEY));
    }

    /** Waits until the workload's live pods are exactly {@code replicas}, each injected with the current allocation. */
    private List<Pod> injectedPods(String workload, int replicas) {
        await().atMost(WAIT).until(() -> {
            AllocationDocument current = allocation(workload);
            List<Pod> pods = livePods(client, NS, workload);
            return pods.size() == replicas
                    && pods.stream().allMatch(p -> current.hash().equals(annotation(p, MetadataKeys.ALLOCATION_HASH)));
        });
        return livePods(client, NS, workload);
    }

    private List<Event> events(String objectName, String reason) {
        return Fixtures.events(client, NS, objectName, reason);
    }

    private WorkloadAllocationStatus row(String policy, String workload) {
        StreamsMemoryPolicy p = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NS)
                .withName(policy)
                .get();
        if (p == null || p.getStatus() == null || p.getStatus().getWorkloads() == null) {
            return null;
        }
        return p.getStatus().getWorkloads().stream()
                .filter(r -> r.getName().equals(workload))
                .findFirst()
                .orElse(null);
    }

    @Test
    void podsOfAnOptedInDeploymentCarryExactlyTheAgentTheFlagsAndTheHash() {
        AllocationDocument allocation = allocation("orders-app");
        List<Pod> pods = injectedPods("orders-app", 2);
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(NS)
                .withName("orders-app")
                .get();
        Container templateProxy =
                deployment.getSpec().getTemplate().getSpec().getContainers().get(0);

        for (Pod pod : pods) {
            assertThat(pod.getMetadata().getAnnotations())
                    .containsEntry(MetadataKeys.ALLOCATION_HASH, allocation.hash())
                    .containsEntry(MetadataKeys.APPLIED_RESTART_HASH, allocation.restartHash())
                    .containsEntry(MetadataKeys.INJECTED_CONTAINER, "streams");

            assertThat(pod.getSpec().getInitContainers()).hasSize(1);
            Container init = pod.getSpec().getInitContainers().get(0);
            assertThat(init.getName()).isEqualTo("streams-memory-agent");
            assertThat(init.getImage()).isEqualTo("example.test/streams-memory-agent:test");
            assertThat(init.getCommand())
                    .containsExactly(
                            "cp",
                            "/streams-memory/streams-memory-agent.jar",
                            "/streams-memory-agent/streams-memory-agent.jar");
            assertThat(init.getResources().getRequests())
                    .isEqualTo(Map.of("cpu", new Quantity("10m"), "memory", new Quantity("32Mi")));
            assertThat(init.getResources().getLimits())
                    .isEqualTo(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("32Mi")));
            assertThat(init.getSecurityContext().getRunAsNonRoot()).isTrue();
            assertThat(init.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
            assertThat(init.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
            assertThat(init.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            assertThat(init.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
            assertThat(withoutServiceAccountMounts(init.getVolumeMounts()))
                    .containsExactly(new VolumeMountBuilder()
                            .withName("streams-memory-agent")
                            .withMountPath("/streams-memory-agent")
                            .build());

            assertThat(pod.getSpec().getVolumes().stream()
                            .filter(v -> !v.getName().startsWith("kube-api-access")))
                    .containsExactly(
                            new VolumeBuilder()
                                    .withName("streams-memory-agent")
                                    .withNewEmptyDir()
                                    .withSizeLimit(new Quantity("32Mi"))
                                    .endEmptyDir()
                                    .build(),
                            new VolumeBuilder()
                                    .withName("streams-memory-allocation")
                                    .withNewConfigMap()
                                    .withName(AllocationConfigMap.configMapName("Deployment", "orders-app"))
                                    .withOptional(true)
                                    .withDefaultMode(420)
                                    .endConfigMap()
                                    .build());

            // Only the target container changed.
            Container proxy = pod.getSpec().getContainers().get(0);
            assertThat(proxy.getEnv()).isEqualTo(templateProxy.getEnv());
            assertThat(withoutServiceAccountMounts(proxy.getVolumeMounts())).isEmpty();

            Container streams = pod.getSpec().getContainers().get(1);
            String expectedJto = USER_JTO + " -javaagent:/streams-memory-agent/streams-memory-agent.jar "
                    + String.join(" ", allocation.jvmOptions());
            assertThat(streams.getEnv())
                    .containsExactly(
                            new EnvVar("JAVA_TOOL_OPTIONS", expectedJto, null),
                            new EnvVar("STREAMS_MEMORY_ALLOCATION", "/etc/streams-memory/allocation.json", null),
                            new EnvVar("MALLOC_ARENA_MAX", "2", null),
                            new EnvVar("STREAMS_MEMORY_REPORT_PORT", "9471", null));
            assertThat(pod.getMetadata().getLabels()).containsEntry(MetadataKeys.INJECTED_LABEL, "true");
            assertThat(withoutServiceAccountMounts(streams.getVolumeMounts()))
                    .containsExactly(
                            new VolumeMountBuilder()
                                    .withName("streams-memory-agent")
                                    .withMountPath("/streams-memory-agent")
                                    .withReadOnly(true)
                                    .build(),
                            new VolumeMountBuilder()
                                    .withName("streams-memory-allocation")
                                    .withMountPath("/etc/streams-memory")
                                    .withReadOnly(true)
                                    .build());
            // The heap fits the container: -Xmx below the 2Gi limit.
            long xmx = EngineJvmFlags.valueOf(allocation.jvmOptions(), "-Xmx");
            assertThat(xmx).isPositive().isLessThan(2L << 30);
        }

        // The API server trusted the operator's own CA: it is what the configuration's caBundle holds.
        String bundle = new String(
                Base64.getDecoder()
                        .decode(Fixtures.webhookConfiguration(client, "streams-memory-operator")
                                .get()
                                .getWebhooks()
                                .get(0)
                                .getClientConfig()
                                .getCaBundle()),
                StandardCharsets.UTF_8);
        X509Certificate ca = Certificates.parseCertificates(bundle).get(0);
        assertThat(Certificates.signedBy(operator.webhook.servingCertificate(), ca))
                .isTrue();
        assertThat(WebhookOperator.tlsSecret(client).get().getData())
                .containsKeys("ca.crt", "ca.key", "tls.crt", "tls.key");
    }

    @Test
    void theWebhookAnsweredItsOwnWarmUpReviewsOverTlsBeforeItServed() {
        assertThat(operator.webhook.warmUpAnswered()).isEqualTo(WarmUp.REVIEWS);
        // And planned a workload as a first pod's admission does, so the engine is not cold for that pod.
        assertThat(WarmUp.planOnce()).isTrue();
    }

    @Test
    void aSecondAdmissionOfAnInjectedPodChangesNothing() {
        Pod injected = injectedPods("orders-app", 2).get(0);
        // The same pod, admitted again: same owner, labels, annotations and spec, only a new name.
        Pod copy = new PodBuilder(injected)
                .withStatus(null)
                .editMetadata()
                .withName(injected.getMetadata().getName() + "-again")
                .withResourceVersion(null)
                .withUid(null)
                .withCreationTimestamp(null)
                .withManagedFields(List.of())
                .withGenerateName(null)
                .endMetadata()
                .build();
        long injectedBefore = operator.webhook.injected();
        Pod created = client.resource(copy).create();
        assertThat(created.getSpec().getInitContainers())
                .isEqualTo(injected.getSpec().getInitContainers());
        assertThat(created.getSpec().getContainers())
                .isEqualTo(injected.getSpec().getContainers());
        assertThat(created.getSpec().getVolumes()).isEqualTo(injected.getSpec().getVolumes());
        assertThat(created.getMetadata().getAnnotations())
                .isEqualTo(injected.getMetadata().getAnnotations());
        assertThat(operator.webhook.injected()).isEqualTo(injectedBefore);
        assertThat(operator.webhook.errors()).isZero();
    }

    @Test
    void aContainerTakingJavaToolOptionsFromValueFromIsLeftAloneAndAnEventSaysWhy() {
        allocation("from-env");
        await().atMost(WAIT).until(() -> {
            List<Pod> pods = livePods(client, NS, "from-env");
            return pods.size() == 1 && annotation(pods.get(0), MetadataKeys.INJECTION_SKIPPED) != null;
        });
        Pod pod = livePods(client, NS, "from-env").get(0);
        assertThat(annotation(pod, MetadataKeys.INJECTION_SKIPPED)).contains("valueFrom");
        assertThat(annotation(pod, MetadataKeys.ALLOCATION_HASH)).isNull();
        assertThat(pod.getSpec().getInitContainers()).isEmpty();
        Container streams = pod.getSpec().getContainers().get(1);
        assertThat(streams.getEnv()).hasSize(1);
        assertThat(streams.getEnv().get(0).getValueFrom().getConfigMapKeyRef().getName())
                .isEqualTo("jvm");
        assertThat(withoutServiceAccountMounts(streams.getVolumeMounts())).isEmpty();
        await().atMost(WAIT).until(() -> !events("from-env", "InjectionSkipped").isEmpty());
        assertThat(events("from-env", "InjectionSkipped").get(0).getMessage())
                .contains("container streams takes JAVA_TOOL_OPTIONS from valueFrom");
        await().atMost(WAIT).until(() -> {
            WorkloadAllocationStatus row = row("orders", "from-env");
            return row != null && Integer.valueOf(1).equals(row.getPodsSkipped());
        });
        assertThat(row("orders", "from-env").getPodsNotInjected()).isZero();
    }

    @Test
    void podsOfAnOptedInStatefulSetAreInjectedToo() {
        AllocationDocument allocation = allocation("orders-sts");
        for (Pod pod : injectedPods("orders-sts", 2)) {
            assertThat(pod.getMetadata().getAnnotations())
                    .containsEntry(MetadataKeys.APPLIED_RESTART_HASH, allocation.restartHash());
            assertThat(pod.getSpec().getInitContainers())
                    .singleElement()
                    .satisfies(init -> assertThat(init.getName()).isEqualTo("streams-memory-agent"));
            Container streams = pod.getSpec().getContainers().get(1);
            assertThat(streams.getEnv()).anySatisfy(env -> {
                assertThat(env.getName()).isEqualTo("JAVA_TOOL_OPTIONS");
                assertThat(env.getValue())
                        .contains("-javaagent:")
                        .contains(allocation.jvmOptions().get(0));
            });
            assertThat(pod.getSpec().getContainers().get(0).getEnv()).isNullOrEmpty(); // the sidecar is untouched
        }
    }

    @Test
    void podsOfAWorkloadThatDoesNotOptInAreUntouched() {
        await().atMost(WAIT).until(() -> livePods(client, NS, "plain").size() == 1);
        Pod pod = livePods(client, NS, "plain").get(0);
        Deployment plain =
                client.apps().deployments().inNamespace(NS).withName("plain").get();
        assertThat(pod.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(pod.getSpec().getInitContainers()).isEmpty();
        assertThat(pod.getSpec().getVolumes()).allMatch(v -> v.getName().startsWith("kube-api-access"));
        for (int i = 0; i < 2; i++) {
            assertThat(pod.getSpec().getContainers().get(i).getEnv())
                    .isEqualTo(plain.getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(i)
                            .getEnv());
        }
    }

    @Test
    void withTheWebhookDownPodsAreStillCreatedAndReportedAsDriftOnceItIsBack() throws Exception {
        List<Pod> autoBefore = injectedPods("drift-auto", 2);
        allocation("drift-manual");
        await().atMost(WAIT).until(() -> livePods(client, NS, "drift-manual").size() == 2);

        operator.close();
        operator = null;
        try {
            for (String app : List.of("drift-auto", "drift-manual")) {
                client.pods()
                        .inNamespace(NS)
                        .withLabel("app", app)
                        .withGracePeriod(0)
                        .delete();
            }
            // failurePolicy Ignore: the ReplicaSets recreate the pods without the webhook.
            for (String app : List.of("drift-auto", "drift-manual")) {
                await().atMost(WAIT).until(() -> {
                    List<Pod> pods = livePods(client, NS, app);
                    return pods.size() == 2
                            && pods.stream()
                                    .allMatch(p -> annotation(p, MetadataKeys.ALLOCATION_HASH) == null
                                            && autoBefore.stream()
                                                    .noneMatch(b -> b.getMetadata()
                                                            .getUid()
                                                            .equals(p.getMetadata()
                                                                    .getUid())));
                });
            }
        } finally {
            operator = WebhookOperator.start(client, WebhookOperator.localSettings(port));
        }

        // Manual: reported in status and by an Event, not rolled.
        await().atMost(WAIT).until(() -> {
            WorkloadAllocationStatus row = row("manual", "drift-manual");
            return row != null && Integer.valueOf(2).equals(row.getPodsNotInjected());
        });
        StreamsMemoryPolicy manual = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NS)
                .withName("manual")
                .get();
        assertThat(manual.getStatus().getDriftedPods()).isEqualTo(2);
        await().atMost(WAIT)
                .until(() -> events("drift-manual", "Drift").stream()
                        .anyMatch(e -> e.getMessage().startsWith("2 of 2 pod(s) run without the agent")));

        // Automatic: rolled once, the new pods are injected, and it stays at one rollout.
        AllocationDocument allocation = allocation("drift-auto");
        await().atMost(WAIT)
                .until(() ->
                        allocation.restartHash().equals(templateAnnotation("drift-auto", MetadataKeys.DRIFT_ROLLOUT)));
        // The Event is posted after the stamp it tells of: waited for, not read at once.
        await().atMost(WAIT)
                .until(() -> events("drift-auto", "Drift").stream()
                        .anyMatch(e -> e.getMessage().contains("rolling the workload once")));
        injectedPods("drift-auto", 2);
        await().atMost(WAIT).until(() -> {
            WorkloadAllocationStatus row = row("orders", "drift-auto");
            return row != null
                    && Integer.valueOf(0).equals(row.getPodsNotInjected())
                    && Integer.valueOf(2).equals(row.getPodsInjected());
        });
        long generation = client.apps()
                .deployments()
                .inNamespace(NS)
                .withName("drift-auto")
                .get()
                .getMetadata()
                .getGeneration();
        await().during(Duration.ofSeconds(3))
                .atMost(WAIT)
                .until(() -> client.apps()
                                .deployments()
                                .inNamespace(NS)
                                .withName("drift-auto")
                                .get()
                                .getMetadata()
                                .getGeneration()
                        == generation);
        assertThat(events("drift-auto", "Drift")).hasSize(1);
    }

    private String templateAnnotation(String deployment, String key) {
        Deployment d =
                client.apps().deployments().inNamespace(NS).withName(deployment).get();
        Map<String, String> annotations =
                d.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(key);
    }

    private static List<VolumeMount> withoutServiceAccountMounts(List<VolumeMount> mounts) {
        List<VolumeMount> result = new ArrayList<>();
        for (VolumeMount mount : mounts == null ? List.<VolumeMount>of() : mounts) {
            if (!Objects.requireNonNullElse(mount.getName(), "").startsWith("kube-api-access")) {
                result.add(mount);
            }
        }
        return result;
    }
}
