package io.streamsmemory.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** etcd + kube-apiserver only (fast start): version, RBAC, CRD validation, webhook on loopback. */
@EnableLocalControlPlane
class ApiServerTest {

    KubernetesClient client;
    LocalControlPlane controlPlane;

    @Test
    void versionIsThePinnedOne() {
        String pinned = ControlPlaneBinaries.pinnedKubernetesVersion();
        assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo(pinned);
        assertThat(controlPlane.kubectl("version", "-o", "json")).contains("\"gitVersion\": \"" + pinned + "\"");
    }

    @Test
    void serviceAccountNeedsRbac() {
        String ns = "rbac-test";
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ns)
                        .endMetadata()
                        .build())
                .create();
        KubernetesClient sa = controlPlane.clientAs(ns, "reader");

        assertThatThrownBy(() -> sa.configMaps().inNamespace(ns).list())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(403))
                .hasMessageContaining("system:serviceaccount:rbac-test:reader");

        client.rbac()
                .roles()
                .inNamespace(ns)
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("cm-reader")
                        .endMetadata()
                        .addNewRule()
                        .withApiGroups("")
                        .withResources("configmaps")
                        .withVerbs("get", "list")
                        .endRule()
                        .build())
                .create();
        client.rbac()
                .roleBindings()
                .inNamespace(ns)
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("reader-cm-reader")
                        .endMetadata()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("cm-reader")
                        .endRoleRef()
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("reader")
                        .withNamespace(ns)
                        .endSubject()
                        .build())
                .create();

        assertThat(sa.configMaps().inNamespace(ns).list().getItems()).isNotNull();
        // still no write access
        assertThatThrownBy(() -> sa.configMaps()
                        .inNamespace(ns)
                        .resource(new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("x")
                                .endMetadata()
                                .build())
                        .create())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(403));
    }

    @Test
    void crdValidationRejectsBadObjects() throws Exception {
        CustomResourceDefinition crd;
        try (InputStream in = getClass().getResourceAsStream("/widgets-crd.yaml")) {
            crd = client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .load(in)
                    .item();
        }
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(crd.getMetadata().getName())
                .waitUntilCondition(
                        c -> c.getStatus() != null
                                && c.getStatus().getConditions() != null
                                && c.getStatus().getConditions().stream()
                                        .anyMatch(cond -> "Established".equals(cond.getType())
                                                && "True".equals(cond.getStatus())),
                        30,
                        TimeUnit.SECONDS);

        ResourceDefinitionContext widgets = new ResourceDefinitionContext.Builder()
                .withGroup("test.streamsmemory.io")
                .withVersion("v1")
                .withPlural("widgets")
                .withKind("Widget")
                .withNamespaced(true)
                .build();
        client.genericKubernetesResources(widgets)
                .inNamespace("default")
                .resource(widget("good", 3, "red"))
                .create();

        assertThatThrownBy(() -> client.genericKubernetesResources(widgets)
                        .inNamespace("default")
                        .resource(widget("too-big", 11, "blue"))
                        .create())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(422))
                .hasMessageContaining("spec.size")
                .hasMessageContaining("spec.color");
    }

    @Test
    void apiServerCallsAWebhookOnLoopback() throws Exception {
        IssuedCertificate cert = controlPlane.issueCertificate("test-webhook", "IP:127.0.0.1", "DNS:localhost");
        HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(cert.serverSslContext()));
        server.createContext("/validate", exchange -> {
            AdmissionReview review = Serialization.unmarshal(exchange.getRequestBody(), AdmissionReview.class);
            AdmissionReview answer = new AdmissionReviewBuilder()
                    .withApiVersion("admission.k8s.io/v1")
                    .withKind("AdmissionReview")
                    .withResponse(new AdmissionResponseBuilder()
                            .withUid(review.getRequest().getUid())
                            .withAllowed(false)
                            .withStatus(new StatusBuilder()
                                    .withCode(403)
                                    .withMessage("denied by the test webhook")
                                    .build())
                            .build())
                    .build();
            byte[] body = Serialization.asJson(answer).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String url = "https://127.0.0.1:" + server.getAddress().getPort() + "/validate";
            client.admissionRegistration()
                    .v1()
                    .validatingWebhookConfigurations()
                    .resource(new ValidatingWebhookConfigurationBuilder()
                            .withNewMetadata()
                            .withName("test-webhook")
                            .endMetadata()
                            .addNewWebhook()
                            .withName("deny.test.streamsmemory.io")
                            .withNewClientConfig()
                            .withUrl(url)
                            .withCaBundle(controlPlane.caBundle())
                            .endClientConfig()
                            .addNewRule()
                            .withApiGroups("")
                            .withApiVersions("v1")
                            .withOperations("CREATE")
                            .withResources("configmaps")
                            .endRule()
                            .withNewObjectSelector()
                            .withMatchLabels(Map.of("webhook-test", "true"))
                            .endObjectSelector()
                            .withSideEffects("None")
                            .withAdmissionReviewVersions("v1")
                            .withFailurePolicy("Fail")
                            .withTimeoutSeconds(5)
                            .endWebhook()
                            .build())
                    .create();

            // the API server picks the configuration up asynchronously
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            KubernetesClientException denied = null;
            for (int i = 0; denied == null && System.nanoTime() < deadline; i++) {
                try {
                    client.configMaps()
                            .inNamespace("default")
                            .resource(new ConfigMapBuilder()
                                    .withNewMetadata()
                                    .withName("probe-" + i)
                                    .withLabels(Map.of("webhook-test", "true"))
                                    .endMetadata()
                                    .build())
                            .create();
                    Thread.sleep(200);
                } catch (KubernetesClientException e) {
                    denied = e;
                }
            }
            assertThat(denied).isNotNull();
            assertThat(denied.getMessage()).contains("denied by the test webhook");
        } finally {
            server.stop(0);
            // A configuration left behind would meet the next class in the control plane this class shares.
            client.admissionRegistration()
                    .v1()
                    .validatingWebhookConfigurations()
                    .withName("test-webhook")
                    .delete();
        }
    }

    private static GenericKubernetesResource widget(String name, int size, String color) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("test.streamsmemory.io/v1")
                .withKind("Widget")
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("size", size, "color", color)))
                .build();
    }
}
