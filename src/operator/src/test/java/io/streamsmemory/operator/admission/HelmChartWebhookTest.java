package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookOperator.OPERATOR_NAMESPACE;
import static io.streamsmemory.operator.admission.WebhookOperator.WAIT;
import static io.streamsmemory.operator.admission.WebhookOperator.annotation;
import static io.streamsmemory.operator.admission.WebhookOperator.configMap;
import static io.streamsmemory.operator.admission.WebhookOperator.deployment;
import static io.streamsmemory.operator.admission.WebhookOperator.livePods;
import static io.streamsmemory.operator.admission.WebhookOperator.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.Helm;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The webhook as the Helm chart installs it: its configuration, its (empty) TLS Secret and its RBAC, the operator
 * under the chart's ServiceAccount token. The only change for the test is the configuration's clientConfig, pointed
 * at the webhook on this machine instead of the Service (no kubelet or cluster network here), as
 * {@code WebhookRbacTest} does for deploy/.
 */
@EnableLocalControlPlane(controllerManager = true)
class HelmChartWebhookTest {
    static final String NAME = "streams-memory-operator";

    KubernetesClient client;
    LocalControlPlane controlPlane;

    /** What the webhook and the API server say, for a failure message. */
    private String diagnosis(WebhookOperator operator) {
        StringBuilder out = new StringBuilder(String.format(
                "webhook: reviews %d, injected %d, skipped %d, errors %d," + " handshakes %d, caches synced %s%n",
                operator.webhook.reviews(),
                operator.webhook.injected(),
                operator.webhook.skipped(),
                operator.webhook.errors(),
                operator.webhook.handshakes(),
                operator.webhook.cachesSynced()));
        try {
            Files.readAllLines(controlPlane.stateDir().resolve("logs/apiserver.log")).stream()
                    .filter(l -> l.contains("calling webhook"))
                    .limit(5)
                    .forEach(l -> out.append(l).append('\n'));
        } catch (IOException e) {
            out.append(e);
        }
        return out.toString();
    }

    @Test
    void aPodIsAdmittedThroughTheChartsWebhookConfiguration() {
        Helm helm = Helm.locate(Path.of("target/helm-chart/helm-home"), controlPlane.kubeconfigPath());
        // A webhook value changed from its default: the first reviews of a cold webhook JVM on a loaded machine took
        // more than the default 2 s here (the API server then fails open and the pod is not injected).
        helm.run(
                        "install",
                        NAME,
                        Helm.CHART.toString(),
                        "--namespace",
                        OPERATOR_NAMESPACE,
                        "--create-namespace",
                        "--set",
                        "webhook.timeoutSeconds=10")
                .orFail("helm install");
        int port = WebhookOperator.freePort();
        Fixtures.webhookConfiguration(client, NAME).edit(configuration -> {
            for (MutatingWebhook webhook : configuration.getWebhooks()) {
                webhook.setClientConfig(new WebhookClientConfigBuilder()
                        .withUrl("https://127.0.0.1:" + port + WebhookSettings.PATH)
                        .build());
            }
            return configuration;
        });
        KubernetesClient asOperator = controlPlane.clientAs(OPERATOR_NAMESPACE, NAME);
        String ns = "shop";
        Fixtures.namespace(client, ns);
        try (WebhookOperator operator = WebhookOperator.start(asOperator, WebhookOperator.localSettings(port))) {
            assertThat(Fixtures.webhookConfiguration(client, NAME).get().getWebhooks())
                    .extracting(MutatingWebhook::getTimeoutSeconds)
                    .containsOnly(10);
            // The operator filled the chart's empty Secret (and the caBundle, which the API server's calls below need).
            assertThat(client.secrets()
                            .inNamespace(OPERATOR_NAMESPACE)
                            .withName(NAME + "-webhook-tls")
                            .get()
                            .getData())
                    .containsKeys("ca.crt", "tls.crt");
            client.resource(policy(ns, "orders", Rollout.Automatic)).create();
            client.resource(deployment(ns, "orders-app", "orders", 1, List.of()))
                    .create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            // The webhook is called in the policy's namespace only once the operator has added it to the selector.
            await().atMost(WAIT)
                    .until(() -> client
                            .admissionRegistration()
                            .v1()
                            .mutatingWebhookConfigurations()
                            .withName(NAME)
                            .get()
                            .getWebhooks()
                            .get(0)
                            .getNamespaceSelector()
                            .getMatchExpressions()
                            .stream()
                            .anyMatch(e -> e.getOperator().equals("In")
                                    && e.getValues().contains(ns)));
            // A pod created while the webhook's first reviews are still slower than the timeout (a cold JVM on a busy
            // machine) is admitted uninjected (failing open): delete such pods, their ReplicaSets make new ones.
            await().atMost(WAIT)
                    .pollInterval(Duration.ofSeconds(3))
                    .conditionEvaluationListener(c -> {
                        if (c.getRemainingTimeInMS() < 3000) {
                            System.err.println(diagnosis(operator));
                        }
                    })
                    .until(() -> {
                        String hash = annotation(configMap(client, ns, "orders-app"), MetadataKeys.ALLOCATION_HASH);
                        // Two ReplicaSets: the operator stamped its restart hash, and without a kubelet the rollout
                        // never ends.
                        List<Pod> uninjected = livePods(client, ns, "orders-app").stream()
                                .filter(p -> !hash.equals(annotation(p, MetadataKeys.ALLOCATION_HASH)))
                                .toList();
                        uninjected.forEach(
                                p -> client.resource(p).withGracePeriod(0).delete());
                        return uninjected.isEmpty()
                                && !livePods(client, ns, "orders-app").isEmpty();
                    });
            assertThat(operator.webhook.injected()).isPositive();
            Pod pod = livePods(client, ns, "orders-app").get(0);
            assertThat(pod.getSpec().getInitContainers())
                    .extracting(c -> c.getImage())
                    .contains("example.test/streams-memory-agent:test");
            assertThat(operator.webhook.errors()).isZero();
        }

        helm.run("uninstall", NAME, "--namespace", OPERATOR_NAMESPACE, "--wait").orFail("helm uninstall");
        assertThat(Fixtures.webhookConfiguration(client, NAME).get()).isNull();
        assertThat(client.secrets()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withName(NAME + "-webhook-tls")
                        .get())
                .isNull();
        // Without the operator and its webhook, pods are still created and the policy deletes at once.
        client.pods()
                .inNamespace(ns)
                .withLabel("app", "orders-app")
                .withGracePeriod(0)
                .delete();
        await().atMost(WAIT)
                .until(() -> !livePods(client, ns, "orders-app").isEmpty()
                        && livePods(client, ns, "orders-app").stream()
                                .allMatch(p -> annotation(p, MetadataKeys.ALLOCATION_HASH) == null));
        Fixtures.deletePolicy(client, ns, "orders");
    }
}
