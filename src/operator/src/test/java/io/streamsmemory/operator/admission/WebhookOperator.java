package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.observe.MemoryObserver;
import io.streamsmemory.operator.observe.ObserveSettings;
import io.streamsmemory.operator.reconcile.PolicyReconciler;
import io.streamsmemory.operator.reconcile.StatusSettings;
import io.streamsmemory.operator.reconcile.act.AllocationMetrics;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.reconcile.decide.WebhookServing;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.WorkloadCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The operator as the Quarkus app runs it, on a plain java-operator-sdk Operator: the policy reconciler
 * and the admission webhook, against whatever API server (and identity) the client points at. Plus the
 * objects the webhook tests create.
 */
final class WebhookOperator implements AutoCloseable {
    static final String OPERATOR_NAMESPACE = "streams-memory-system";
    static final Duration WAIT = Duration.ofSeconds(60);

    /** The workloads and ConfigMaps, one cache for the reconciler and the webhook as the operator keeps it. */
    private final WorkloadCache cache;

    private final KubernetesClient client;
    Operator operator;
    final EventRecorder events;
    final AdmissionWebhook webhook;

    private WebhookOperator(KubernetesClient client, WebhookSettings settings) {
        this.client = client;
        events = new EventRecorder(client);
        cache = new WorkloadCache(client);
        webhook = AdmissionWebhook.start(client, events, settings, new SimpleMeterRegistry(), cache);
    }

    /** The webhook and the reconciler, as the operator runs them. */
    static WebhookOperator start(KubernetesClient client, WebhookSettings settings) {
        WebhookOperator started = webhookOnly(client, settings);
        started.startReconciler();
        return started;
    }

    /** The webhook alone, serving; the reconciler starts at {@link #startReconciler}. */
    static WebhookOperator webhookOnly(KubernetesClient client, WebhookSettings settings) {
        return new WebhookOperator(client, settings);
    }

    void startReconciler() {
        operator = new Operator(o -> o.withKubernetesClient(client)
                .withCloseClientOnStop(false)
                .withCacheSyncTimeout(Duration.ofSeconds(30))
                .withReconciliationTerminationTimeout(Duration.ofSeconds(2)));
        operator.register(new PolicyReconciler(
                client,
                events,
                new AllocationMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)),
                checkedAsTheAppChecksIt(),
                new RolloutGate(Duration.ZERO),
                new MemoryObserver(client, ObserveSettings.OFF),
                new StatusSettings(100),
                cache));
        operator.start();
    }

    /**
     * The webhook as the Quarkus app's WebhookLifecycle shows it to the reconciler: serving (it started before the
     * reconciler), and rollouts held where its install check says the API server does not call it.
     */
    private WebhookServing checkedAsTheAppChecksIt() {
        return new WebhookServing() {
            @Override
            public Optional<String> problem() {
                return Optional.empty();
            }

            @Override
            public WebhookReach reach(String namespace) {
                return webhook.reach(namespace);
            }
        };
    }

    /** Settings for a webhook the API server reaches on https://127.0.0.1:port. */
    static WebhookSettings localSettings(int port) {
        return new WebhookSettings()
                .host("127.0.0.1")
                .port(port)
                .namespace(OPERATOR_NAMESPACE)
                .extraSans(List.of("IP:127.0.0.1"))
                .refreshPeriod(Duration.ofSeconds(1))
                .agentImage("example.test/streams-memory-agent:test");
    }

    @Override
    public void close() {
        if (operator != null) {
            operator.stop();
        }
        webhook.close();
        cache.close();
        events.close();
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An API server ready for a local webhook: the CRD, the operator's namespace and {@code namespaces}, and
     * deploy/webhook.yaml's configuration pointed at a free local port, which is returned.
     */
    static int prepareLocal(KubernetesClient client, String... namespaces) throws IOException {
        Fixtures.installCrd(client);
        Fixtures.namespace(client, OPERATOR_NAMESPACE);
        for (String namespace : namespaces) {
            Fixtures.namespace(client, namespace);
        }
        int port = freePort();
        Fixtures.installWebhookConfiguration(client, port);
        return port;
    }

    /** The Secret holding the webhook's CA and serving certificate. */
    static Resource<Secret> tlsSecret(KubernetesClient client) {
        return client.secrets().inNamespace(OPERATOR_NAMESPACE).withName(WebhookSettings.DEFAULT_SECRET_NAME);
    }

    /** {@link Fixtures#policy}'s 2Gi policy with the given rollout. */
    static StreamsMemoryPolicy policy(String namespace, String name, Rollout rollout) {
        StreamsMemoryPolicy policy = Fixtures.policy(namespace, name, "2Gi");
        policy.getSpec().setRollout(rollout);
        return policy;
    }

    /**
     * A Deployment whose pods pass the restricted Pod Security Standard: a "proxy" sidecar first, then the
     * "streams" container (named by streamsmemory.io/container) with a 2Gi limit and {@code env}.
     */
    static Deployment deployment(String namespace, String name, String policy, int replicas, List<EnvVar> env) {
        Deployment shape = Fixtures.deployment(namespace, name, null, replicas, "2Gi");
        SecurityContext restricted = new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .build();
        Container proxy = new ContainerBuilder()
                .withName("proxy")
                .withImage("example.test/proxy:1")
                .withSecurityContext(restricted)
                .build();
        Container streams = new ContainerBuilder(
                        shape.getSpec().getTemplate().getSpec().getContainers().get(0))
                .withImage("example.test/streams-app:1")
                .withEnv(env)
                .withSecurityContext(restricted)
                .build();
        DeploymentBuilder builder = new DeploymentBuilder(shape)
                .editSpec()
                .editTemplate()
                .editSpec()
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withRunAsUser(1000L)
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .withContainers(proxy, streams)
                .endSpec()
                .endTemplate()
                .endSpec();
        if (policy != null) {
            builder.editMetadata()
                    .addToAnnotations(MetadataKeys.POLICY, policy)
                    .addToAnnotations(MetadataKeys.CONTAINER, "streams")
                    .endMetadata();
        }
        return builder.build();
    }

    /** The ConfigMap published for the Deployment named {@code workload}, or else for the StatefulSet of that name. */
    static ConfigMap configMap(KubernetesClient client, String namespace, String workload) {
        ConfigMap published = client.configMaps()
                .inNamespace(namespace)
                .withName(AllocationConfigMap.configMapName("Deployment", workload))
                .get();
        return published != null
                ? published
                : client.configMaps()
                        .inNamespace(namespace)
                        .withName(AllocationConfigMap.configMapName("StatefulSet", workload))
                        .get();
    }

    /** The workload's pods that are not being deleted. */
    static List<Pod> livePods(KubernetesClient client, String namespace, String app) {
        return client.pods().inNamespace(namespace).withLabel("app", app).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    /** A pod as the Deployment's ReplicaSet {@code <name>-<hash>} would create it, for tests without a controller-manager. */
    static Pod replicaSetPod(Deployment deployment, String hash) {
        String app = deployment.getMetadata().getName();
        return new PodBuilder()
                .withNewMetadata()
                .withGenerateName(app + "-" + hash + "-")
                .withNamespace(deployment.getMetadata().getNamespace())
                .addToLabels("app", app)
                .addToLabels("pod-template-hash", hash)
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName(app + "-" + hash)
                .withUid(UUID.randomUUID().toString())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .endOwnerReference()
                .endMetadata()
                .withSpec(deployment.getSpec().getTemplate().getSpec())
                .build();
    }

    /** True when the webhook injected the pod (it carries the allocation hash). */
    static boolean injected(Pod pod) {
        return annotation(pod, MetadataKeys.ALLOCATION_HASH) != null;
    }

    /** The annotation's value; null when the object (a ConfigMap not published yet, say) or the annotation is not there. */
    static String annotation(HasMetadata object, String key) {
        if (object == null) {
            return null;
        }
        Map<String, String> annotations = object.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(key);
    }
}
