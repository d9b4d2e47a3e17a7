package io.streamsmemory.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.admission.WebhookSettings;
import io.streamsmemory.operator.api.StoresSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Objects the operator tests create, the way a user would write them. */
public final class Fixtures {
    /** The committed CRD; CrdIsUpToDateTest keeps it equal to the one generated from the model. */
    static final Path CRD = Path.of("../../crds/streamsmemorypolicies.streamsmemory.io-v1.yml");

    static final Duration WAIT = Duration.ofSeconds(30);
    static final Path DEPLOY = Path.of("../../deploy");

    /** What the operator runs under, as a user applies it from deploy/ without the Deployment. */
    static final List<String> RBAC_MANIFESTS =
            List.of("namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "writepolicy.yaml");

    private Fixtures() {}

    /** deploy/'s namespace, ServiceAccount, RBAC and write policy, applied server-side. */
    static void applyRbacManifests(KubernetesClient client) {
        applyDeployFiles(client, RBAC_MANIFESTS);
    }

    /** deploy/'s {@code files}, applied server-side as a user would. */
    public static void applyDeployFiles(KubernetesClient client, List<String> files) {
        files.forEach(file ->
                deployFile(client, file).forEach(item -> client.resource(item).serverSideApply()));
    }

    /**
     * deploy/'s {@code files}, deleted: their cluster roles, webhook configuration and admission policies must not meet
     * the next class in the control plane it shares.
     */
    public static void deleteDeployFiles(KubernetesClient client, List<String> files) {
        files.forEach(file ->
                deployFile(client, file).forEach(item -> client.resource(item).delete()));
    }

    /** What {@link #installWebhookConfiguration} installed, deleted, for the same reason. */
    public static void deleteWebhookConfiguration(KubernetesClient client) {
        deleteDeployFiles(client, List.of("webhook.yaml"));
    }

    public static void installCrd(KubernetesClient client) throws IOException {
        try (InputStream in = Files.newInputStream(CRD)) {
            CustomResourceDefinition crd = client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .load(in)
                    .item();
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .resource(crd)
                    .serverSideApply();
            await().atMost(WAIT)
                    .until(() -> isEstablished(client.apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .withName(crd.getMetadata().getName())
                            .get()));
        }
    }

    /**
     * Whether the API server serves the CRD yet. The status, and its conditions, appear a moment after the CRD is
     * stored, so an early read finds neither.
     */
    private static boolean isEstablished(CustomResourceDefinition crd) {
        return crd != null
                && crd.getStatus() != null
                && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The objects of one file of deploy/, as a user would {@code kubectl apply} them. */
    public static List<HasMetadata> deployFile(KubernetesClient client, String file) {
        try (InputStream in = Files.newInputStream(DEPLOY.resolve(file))) {
            return client.load(in).items();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** deploy/webhook.yaml's configuration, pointed at an operator on this machine instead of the Service. */
    public static MutatingWebhookConfiguration installWebhookConfiguration(KubernetesClient client, int port) {
        MutatingWebhookConfiguration configuration = deployFile(client, "webhook.yaml").stream()
                .filter(MutatingWebhookConfiguration.class::isInstance)
                .map(MutatingWebhookConfiguration.class::cast)
                .findFirst()
                .orElseThrow();
        for (MutatingWebhook webhook : configuration.getWebhooks()) {
            webhook.setClientConfig(new WebhookClientConfigBuilder()
                    .withUrl("https://127.0.0.1:" + port + WebhookSettings.PATH)
                    .build());
        }
        return client.resource(configuration).serverSideApply();
    }

    /** The MutatingWebhookConfiguration named {@code name}, to read, edit or delete. */
    public static Resource<MutatingWebhookConfiguration> webhookConfiguration(KubernetesClient client, String name) {
        return client.admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName(name);
    }

    /**
     * Every pod webhook of {@code webhooks} fails with {@code failurePolicy}, and every webhook after
     * {@code timeoutSeconds}; the install check's entry always fails closed (its dry run then returns the API server's
     * own error).
     */
    public static void assertFailureAndTimeout(
            MutatingWebhookConfiguration webhooks, String failurePolicy, int timeoutSeconds) {
        assertThat(webhooks.getWebhooks())
                .filteredOn(w -> w.getName().endsWith("-pods.streamsmemory.io"))
                .hasSize(2)
                .extracting(MutatingWebhook::getFailurePolicy)
                .containsOnly(failurePolicy);
        assertThat(webhooks.getWebhooks())
                .filteredOn(w -> w.getName().equals("install-check.streamsmemory.io"))
                .extracting(MutatingWebhook::getFailurePolicy)
                .containsExactly("Fail");
        assertThat(webhooks.getWebhooks())
                .extracting(MutatingWebhook::getTimeoutSeconds)
                .containsOnly(timeoutSeconds);
    }

    /**
     * Whether {@code as} may {@code verb} the {@code resource} of API {@code group} ("" for the core API) in
     * {@code namespace} (null: cluster-wide), the object named {@code name} (null: any), as the API server answers.
     */
    public static boolean allowed(
            KubernetesClient as, String group, String resource, String verb, String namespace, String name) {
        return as.authorization()
                .v1()
                .selfSubjectAccessReview()
                .create(new SelfSubjectAccessReviewBuilder()
                        .withNewSpec()
                        .withNewResourceAttributes()
                        .withGroup(group)
                        .withResource(resource)
                        .withVerb(verb)
                        .withNamespace(namespace)
                        .withName(name)
                        .endResourceAttributes()
                        .endSpec()
                        .build())
                .getStatus()
                .getAllowed();
    }

    /** The Events of {@code namespace} about the object named {@code objectName} with {@code reason}. */
    public static List<Event> events(KubernetesClient client, String namespace, String objectName, String reason) {
        return events(client, namespace, reason).stream()
                .filter(e -> e.getInvolvedObject().getName().equals(objectName))
                .toList();
    }

    /** The Events of {@code namespace} with {@code reason}, about any object. */
    public static List<Event> events(KubernetesClient client, String namespace, String reason) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> e.getReason().equals(reason))
                .toList();
    }

    /** The policy as the API server has it now; null when there is none. */
    public static StreamsMemoryPolicy policyIn(KubernetesClient client, String namespace, String name) {
        return client.resources(StreamsMemoryPolicy.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    /** Waits until the policy's status counts {@code count} workloads (the operator has written it since). */
    public static void awaitWorkloadCount(KubernetesClient client, String namespace, String policy, int count) {
        await().atMost(WAIT).until(() -> {
            StreamsMemoryPolicy p = policyIn(client, namespace, policy);
            return p.getStatus() != null
                    && Integer.valueOf(count).equals(p.getStatus().getWorkloadCount());
        });
    }

    /** The policy's condition of {@code type}; empty while the policy, its status or that condition is missing. */
    public static Optional<Condition> condition(StreamsMemoryPolicy policy, String type) {
        if (policy == null || policy.getStatus() == null || policy.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return policy.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst();
    }

    public static void namespace(KubernetesClient client, String name) {
        namespace(client, name, Map.of());
    }

    /** The namespace, created or updated with these labels (a Pod Security level, say). */
    public static void namespace(KubernetesClient client, String name, Map<String, String> labels) {
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withLabels(labels)
                        .endMetadata()
                        .build())
                .serverSideApply();
    }

    /** The engine's plan for {@code memoryBytes}, 2 threads, 8 partitions over 2 pods and 1 key-value store per task. */
    public static Allocation smallAllocation(long memoryBytes) {
        return smallAllocation(memoryBytes, 2);
    }

    /** {@link #smallAllocation(long)} with {@code threads} stream threads. */
    public static Allocation smallAllocation(long memoryBytes, int threads) {
        return new AllocationEngine()
                .allocate(WorkloadFacts.builder()
                        .memoryBytes(memoryBytes)
                        .streamThreads(threads)
                        .partitions(8)
                        .replicas(2)
                        .stores(new StoreCounts(1, 0, 0))
                        .build())
                .allocation();
    }

    /** 2Gi, 4 threads, 24 partitions, 2 key-value + 1 window store per task. */
    public static StreamsMemoryPolicy policy(String namespace, String name, String memory) {
        StreamsMemoryPolicy policy = new StreamsMemoryPolicy();
        policy.getMetadata().setName(name);
        policy.getMetadata().setNamespace(namespace);
        StreamsMemoryPolicySpec spec = new StreamsMemoryPolicySpec();
        spec.setMemory(memory);
        StreamsSpec streams = new StreamsSpec();
        streams.setThreads(4);
        streams.setPartitions(24);
        StoresSpec stores = new StoresSpec();
        stores.setKeyValue(2);
        stores.setWindow(1);
        streams.setStores(stores);
        spec.setStreams(streams);
        policy.setSpec(spec);
        return policy;
    }

    public static Deployment deployment(
            String namespace, String name, String policy, int replicas, String memoryLimit) {
        DeploymentBuilder builder = new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("streams")
                .withImage("example/streams-app:1")
                .withNewResources()
                .addToLimits("memory", new Quantity(memoryLimit))
                .endResources()
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec();
        if (policy != null) {
            builder.editMetadata().addToAnnotations(MetadataKeys.POLICY, policy).endMetadata();
        }
        return builder.build();
    }

    /** A StatefulSet shaped as {@link #deployment} is. */
    static StatefulSet statefulSet(String namespace, String name, String policy, int replicas, String memoryLimit) {
        return statefulSetLike(deployment(namespace, name, policy, replicas, memoryLimit));
    }

    /** A StatefulSet of the Deployment's metadata, replicas, selector and pod template, its service of its name. */
    public static StatefulSet statefulSetLike(Deployment shape) {
        return new StatefulSetBuilder()
                .withMetadata(shape.getMetadata())
                .withNewSpec()
                .withServiceName(shape.getMetadata().getName())
                .withReplicas(shape.getSpec().getReplicas())
                .withSelector(shape.getSpec().getSelector())
                .withTemplate(shape.getSpec().getTemplate())
                .endSpec()
                .build();
    }

    /** A reference to the apps/v1 {@code kind} {@code name} of {@code uid}, as an owner that is not the controller. */
    public static OwnerReference appsOwner(String kind, String name, String uid) {
        return new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind(kind)
                .withName(name)
                .withUid(uid)
                .build();
    }

    /** The same reference as the controller: how a ReplicaSet owns its pods. */
    public static OwnerReference appsController(String kind, String name, String uid) {
        return new OwnerReferenceBuilder(appsOwner(kind, name, uid))
                .withController(true)
                .build();
    }

    /**
     * Edits an object the operator may be updating at the same moment, retrying on a conflict as kubectl
     * users do (the operator writes status, finalizers and annotations of the same objects).
     */
    public static <T extends HasMetadata> void edit(Resource<T> resource, UnaryOperator<T> change) {
        await().atMost(WAIT)
                .ignoreExceptionsMatching(e -> e instanceof KubernetesClientException k && k.getCode() == 409)
                .until(() -> {
                    resource.edit(change);
                    return true;
                });
    }

    /** Deletes a policy and waits until the API server no longer has it (it must carry no finalizer). */
    public static void deletePolicy(KubernetesClient client, String namespace, String name) {
        Resource<StreamsMemoryPolicy> policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(namespace)
                .withName(name);
        policy.delete();
        await().atMost(WAIT).until(() -> policy.get() == null);
    }

    /** The allocation ConfigMap of Deployment {@code workload}. */
    static ConfigMap configMap(KubernetesClient client, String namespace, String workload) {
        return configMap(client, namespace, "Deployment", workload);
    }

    static ConfigMap configMap(KubernetesClient client, String namespace, String kind, String workload) {
        return client.configMaps()
                .inNamespace(namespace)
                .withName(AllocationConfigMap.configMapName(kind, workload))
                .get();
    }

    public static String templateRestartHash(Deployment deployment) {
        Map<String, String> annotations =
                deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(MetadataKeys.RESTART_HASH);
    }
}
