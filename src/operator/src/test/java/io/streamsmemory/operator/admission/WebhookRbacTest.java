package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.Fixtures.allowed;
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
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The webhook under deploy/'s ServiceAccount and RBAC, with deploy/webhook.yaml as shipped (the empty
 * Secret included): it fills the Secret, sets the caBundle, injects pods, and rotates its serving
 * certificate while the API server keeps calling it. A permission missing from deploy/ fails here.
 */
@EnableLocalControlPlane(controllerManager = true, scheduler = true, kwok = true)
class WebhookRbacTest {
    static KubernetesClient client;
    LocalControlPlane controlPlane;

    static final List<String> DEPLOYED = List.of("namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "webhook.yaml");

    /** deploy/'s manifests this class applied (cluster roles, the webhook configuration) must not meet the next class. */
    @AfterAll
    static void removeTheDeployedManifests() {
        Fixtures.deleteDeployFiles(client, DEPLOYED);
    }

    @Test
    void theWebhookDoesItsJobUnderTheDeployedRbacAndRotatesItsCertificate() throws Exception {
        installDeployed();
        int port = WebhookOperator.freePort();
        Fixtures.installWebhookConfiguration(client, port);
        KubernetesClient asOperator = controlPlane.clientAs(OPERATOR_NAMESPACE, "streams-memory-operator");

        // Least privilege: its own Secret and webhook configuration only; pods read, never deleted.
        assertThat(allowed(asOperator, "", "secrets", "get", OPERATOR_NAMESPACE, "streams-memory-operator-webhook-tls"))
                .isTrue();
        assertThat(allowed(asOperator, "", "secrets", "get", OPERATOR_NAMESPACE, "other"))
                .isFalse();
        assertThat(allowed(asOperator, "", "secrets", "list", OPERATOR_NAMESPACE, null))
                .isFalse();
        // Create a Secret in its own namespace only (to recreate a missing TLS Secret; create cannot name one).
        assertThat(allowed(asOperator, "", "secrets", "create", OPERATOR_NAMESPACE, null))
                .isTrue();
        assertThat(allowed(asOperator, "", "secrets", "create", "shop", null)).isFalse();
        assertThat(allowed(asOperator, "", "secrets", "get", "shop", "streams-memory-operator-webhook-tls"))
                .isFalse();
        assertThat(allowed(
                        asOperator,
                        "admissionregistration.k8s.io",
                        "mutatingwebhookconfigurations",
                        "patch",
                        null,
                        "someone-else"))
                .isFalse();
        assertThat(allowed(
                        asOperator,
                        "admissionregistration.k8s.io",
                        "mutatingwebhookconfigurations",
                        "create",
                        null,
                        null))
                .isFalse();
        assertThat(allowed(
                        asOperator,
                        "admissionregistration.k8s.io",
                        "validatingwebhookconfigurations",
                        "patch",
                        null,
                        "streams-memory-operator"))
                .isFalse();
        assertThat(allowed(asOperator, "", "pods", "delete", "shop", null)).isFalse();
        assertThat(allowed(asOperator, "", "pods", "patch", "shop", null)).isFalse();
        // LimitRanges: read in every namespace (the webhook checks its init container against them), never written.
        assertThat(allowed(asOperator, "", "limitranges", "watch", null, null)).isTrue();
        assertThat(allowed(asOperator, "", "limitranges", "create", "shop", null))
                .isFalse();
        // Autoscalers: read for their replica range, never changed.
        assertThat(allowed(asOperator, "autoscaling", "horizontalpodautoscalers", "watch", null, null))
                .isTrue();
        assertThat(allowed(asOperator, "autoscaling", "horizontalpodautoscalers", "patch", "shop", null))
                .isFalse();

        // A serving certificate valid for 30 s, renewed 20 s before it ends: a rotation every ~10 s.
        WebhookSettings settings =
                WebhookOperator.localSettings(port).certificateValidity(Duration.ofSeconds(30), Duration.ofSeconds(20));
        String ns = "shop";
        Fixtures.namespace(client, ns);
        try (WebhookOperator operator = WebhookOperator.start(asOperator, settings)) {
            // Every cache it answers from could be listed and watched (LimitRanges included).
            assertThat(operator.webhook.cachesSynced()).isTrue();
            assertThat(client.secrets()
                            .inNamespace(OPERATOR_NAMESPACE)
                            .withName("streams-memory-operator-webhook-tls")
                            .get()
                            .getData())
                    .containsKeys("ca.crt", "tls.crt");
            String caBundle = Fixtures.webhookConfiguration(client, "streams-memory-operator")
                    .get()
                    .getWebhooks()
                    .get(1)
                    .getClientConfig()
                    .getCaBundle();
            assertThat(new String(Base64.getDecoder().decode(caBundle), StandardCharsets.UTF_8))
                    .isEqualTo(operator.webhook.caBundlePem());

            client.resource(policy(ns, "orders", Rollout.Automatic)).create();
            client.resource(deployment(ns, "orders-app", "orders", 1, List.of()))
                    .create();
            String hash = awaitInjected(ns);

            BigInteger first = operator.webhook.servingCertificate().getSerialNumber();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> !operator.webhook
                            .servingCertificate()
                            .getSerialNumber()
                            .equals(first));
            // The API server verifies the renewed certificate with the unchanged caBundle: a new pod is injected.
            assertThat(Fixtures.webhookConfiguration(client, "streams-memory-operator")
                            .get()
                            .getWebhooks()
                            .get(0)
                            .getClientConfig()
                            .getCaBundle())
                    .isEqualTo(caBundle);
            client.pods()
                    .inNamespace(ns)
                    .withLabel("app", "orders-app")
                    .withGracePeriod(0)
                    .delete();
            await().atMost(WAIT).until(() -> {
                List<Pod> pods = livePods(client, ns, "orders-app");
                return pods.size() == 1
                        && hash.equals(annotation(pods.get(0), MetadataKeys.ALLOCATION_HASH))
                        && !pods.get(0).getMetadata().getUid().equals(firstPodUid);
            });
            assertThat(operator.webhook.errors()).isZero();
        }
    }

    @Test
    void aMissingTlsSecretIsCreatedInTheOperatorsNamespaceUnderTheDeployedRbac() throws Exception {
        installDeployed();
        int port = WebhookOperator.freePort();
        Fixtures.installWebhookConfiguration(client, port);
        // Deleted by hand, or never applied (webhook.yaml left out of a kustomization).
        WebhookOperator.tlsSecret(client).delete();
        await().atMost(WAIT).until(() -> WebhookOperator.tlsSecret(client).get() == null);
        KubernetesClient asOperator = controlPlane.clientAs(OPERATOR_NAMESPACE, "streams-memory-operator");
        try (AdmissionWebhook webhook = AdmissionWebhook.start(
                asOperator, new EventRecorder(asOperator), WebhookOperator.localSettings(port))) {
            assertThat(WebhookOperator.tlsSecret(client).get().getData())
                    .containsKeys("ca.crt", "ca.key", "tls.crt", "tls.key");
            assertThat(webhook.servingCertificate()).isNotNull();
        } finally {
            // The other test of this class starts from the shipped (empty) Secret, with its own certificate validity.
            WebhookOperator.tlsSecret(client).delete();
        }
    }

    /** The CRD and deploy/'s namespace, ServiceAccount, RBAC and webhook manifests (the empty Secret included). */
    private void installDeployed() throws Exception {
        Fixtures.installCrd(client);
        Fixtures.applyDeployFiles(client, DEPLOYED);
    }

    private String firstPodUid;

    private String awaitInjected(String ns) {
        await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
        await().atMost(WAIT).until(() -> {
            String hash = annotation(configMap(client, ns, "orders-app"), MetadataKeys.ALLOCATION_HASH);
            List<Pod> pods = livePods(client, ns, "orders-app");
            return pods.size() == 1 && hash.equals(annotation(pods.get(0), MetadataKeys.ALLOCATION_HASH));
        });
        firstPodUid = livePods(client, ns, "orders-app").get(0).getMetadata().getUid();
        return annotation(configMap(client, ns, "orders-app"), MetadataKeys.ALLOCATION_HASH);
    }
}
