package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.admission.WebhookSettings;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart (deploy/helm/streams-memory-operator) with the pinned helm from the Go module proxy: it lints,
 * renders deploy/ exactly (one source), renders its variants, refuses a typo in a value, and installs, runs the
 * operator under its own ServiceAccount, upgrades and uninstalls without orphans on a real API server.
 * What helm printed is kept in target/helm-chart/ (install.txt, get-smp.txt).
 */
@EnableLocalControlPlane
class HelmChartTest {
    static final String NAMESPACE = "streams-memory-system";
    static final String RELEASE = "streams-memory-operator";
    static final String NAME = "streams-memory-operator";
    static final Path OUT = Path.of("target/helm-chart");

    KubernetesClient client;
    LocalControlPlane controlPlane;
    Helm helm;

    @BeforeEach
    void locateHelm() {
        helm = Helm.locate(OUT.resolve("helm-home"), controlPlane.kubeconfigPath());
    }

    @Test
    void lintPasses() {
        assertThat(helm.run("lint", "--strict", Helm.CHART.toString())
                        .orFail("helm lint")
                        .output())
                .contains("1 chart(s) linted, 0 chart(s) failed");
    }

    @Test
    void deployIsTheChartRenderedWithItsDefaults() throws Exception {
        Path rendered = OUT.resolve("manifests");
        helm.script(
                        Path.of("../scripts/manifests.sh"),
                        rendered.toAbsolutePath().toString())
                .orFail("manifests.sh");
        for (String file :
                List.of("serviceaccount.yaml", "rbac.yaml", "operator.yaml", "service.yaml", "webhook.yaml")) {
            assertThat(Files.readString(Fixtures.DEPLOY.resolve(file)))
                    .as("deploy/%s differs from the chart rendered with its defaults: run make manifests", file)
                    .isEqualTo(Files.readString(rendered.resolve(file)));
        }
        assertThat(Files.readString(Helm.CHART.resolve("crds").resolve(Fixtures.CRD.getFileName())))
                .as("the chart's crds/ is stale: run make manifests")
                .isEqualTo(Files.readString(Fixtures.CRD));
    }

    @Test
    void defaultsRenderTheOperatorsOwnCertificatesAndFailOpen() {
        List<HasMetadata> objects = template();
        MutatingWebhookConfiguration webhooks = one(objects, MutatingWebhookConfiguration.class);
        Fixtures.assertFailureAndTimeout(webhooks, "Ignore", 2);
        assertThat(webhooks.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(objects)
                .anyMatch(o -> o.getKind().equals("Secret")
                        && o.getMetadata().getName().equals(NAME + "-webhook-tls"));
        assertThat(objects)
                .noneMatch(o -> o.getKind().equals("Certificate") || o.getKind().equals("ServiceMonitor"));
        Map<String, String> env = env(one(objects, Deployment.class));
        assertThat(env)
                .containsEntry("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true")
                .containsEntry("MALLOC_ARENA_MAX", "2")
                .containsEntry("STREAMSMEMORY_WEBHOOK_AGENT_IMAGE", WebhookSettings.DEFAULT_AGENT_IMAGE)
                .doesNotContainKeys(
                        "QUARKUS_OPERATOR_SDK_CONTROLLERS_STREAMSMEMORYPOLICY_NAMESPACES",
                        "STREAMSMEMORY_WEBHOOK_CERT_FILE",
                        "STREAMSMEMORY_WEBHOOK_AGENT_IMAGE_PULL_SECRETS");
    }

    @Test
    void certManagerReplacesTheOperatorsOwnCertificates() {
        List<HasMetadata> objects =
                template("--set", "certManager.enabled=true", "--set", "metrics.serviceMonitor.enabled=true");
        GenericKubernetesResource certificate = (GenericKubernetesResource) objects.stream()
                .filter(o -> o.getKind().equals("Certificate"))
                .findFirst()
                .orElseThrow();
        assertThat(certificate.get("spec", "secretName").toString()).isEqualTo(NAME + "-webhook-cert");
        assertThat(certificate.<List<String>>get("spec", "dnsNames")).contains(NAME + "-webhook." + NAMESPACE + ".svc");
        assertThat(objects).anyMatch(o -> o.getKind().equals("Issuer"));
        assertThat(objects).anyMatch(o -> o.getKind().equals("ServiceMonitor"));
        // The operator's own TLS Secret and the Role that writes it are gone: nothing writes Secrets.
        assertThat(objects).noneMatch(o -> o.getMetadata().getName().equals(NAME + "-webhook-tls"));
        assertThat(one(objects, MutatingWebhookConfiguration.class)
                        .getMetadata()
                        .getAnnotations())
                .containsEntry("cert-manager.io/inject-ca-from", NAMESPACE + "/" + NAME + "-webhook");
        Deployment operator = one(objects, Deployment.class);
        assertThat(env(operator))
                .containsEntry("STREAMSMEMORY_WEBHOOK_CERT_FILE", "/etc/webhook/tls/tls.crt")
                .containsEntry("STREAMSMEMORY_WEBHOOK_KEY_FILE", "/etc/webhook/tls/tls.key");
        assertThat(operator.getSpec().getTemplate().getSpec().getVolumes())
                .anyMatch(v ->
                        v.getSecret() != null && v.getSecret().getSecretName().equals(NAME + "-webhook-cert"));
        // With an issuer of the user's, the chart makes none.
        assertThat(template(
                        "--set",
                        "certManager.enabled=true",
                        "--set",
                        "certManager.issuerRef.name=corp-ca",
                        "--set",
                        "certManager.issuerRef.kind=ClusterIssuer"))
                .noneMatch(o -> o.getKind().equals("Issuer"));
    }

    @Test
    void customImagesOneWatchedNamespaceAndWebhookSettings() {
        List<HasMetadata> objects = template(
                "--set",
                "operator.image.repository=registry.example/smo/operator",
                "--set",
                "operator.image.tag=1.2.3",
                "--set",
                "webhook.agent.image.repository=registry.example/smo/agent",
                "--set",
                "webhook.agent.image.tag=1.2.4",
                "--set",
                "watchNamespaces={shop}",
                "--set",
                "webhook.agent.runAsUser=-1",
                "--set",
                "webhook.agent.imagePullSecrets={agent-registry}",
                "--set",
                "webhook.agent.resources.limits.cpu=none",
                "--set",
                "logFormat=text",
                "--set",
                "webhook.failurePolicy=Fail",
                "--set",
                "webhook.timeoutSeconds=5",
                "--set",
                "webhook.port=9443");
        Deployment operator = one(objects, Deployment.class);
        assertThat(operator.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isEqualTo("registry.example/smo/operator:1.2.3");
        assertThat(operator.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getPorts())
                .anyMatch(p -> p.getName().equals("webhook") && p.getContainerPort() == 9443);
        assertThat(env(operator))
                .containsEntry("STREAMSMEMORY_WEBHOOK_AGENT_IMAGE", "registry.example/smo/agent:1.2.4")
                .containsEntry("QUARKUS_OPERATOR_SDK_CONTROLLERS_STREAMSMEMORYPOLICY_NAMESPACES", "shop")
                .containsEntry("STREAMSMEMORY_WEBHOOK_AGENT_RUN_AS_USER", "-1")
                .containsEntry("STREAMSMEMORY_WEBHOOK_AGENT_IMAGE_PULL_SECRETS", "agent-registry")
                .containsEntry("STREAMSMEMORY_WEBHOOK_AGENT_RESOURCES_LIMITS_CPU", "none")
                .containsEntry("STREAMSMEMORY_WEBHOOK_PORT", "9443")
                .containsEntry("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false");
        MutatingWebhookConfiguration webhooks = one(objects, MutatingWebhookConfiguration.class);
        Fixtures.assertFailureAndTimeout(webhooks, "Fail", 5);
    }

    @Test
    void theAgentReportNetworkPolicyAdmitsOnlyTheOperatorToTheReportPortAndIsOffByDefault() {
        assertThat(template()).noneMatch(NetworkPolicy.class::isInstance);
        List<NetworkPolicy> policies = template("--set", "agentNetworkPolicy.namespaces={shop,billing}").stream()
                .filter(NetworkPolicy.class::isInstance)
                .map(NetworkPolicy.class::cast)
                .toList();
        assertThat(policies).extracting(p -> p.getMetadata().getNamespace()).containsExactly("shop", "billing");
        NetworkPolicy policy = policies.get(0);
        assertThat(policy.getSpec().getPodSelector().getMatchLabels())
                .containsEntry(MetadataKeys.INJECTED_LABEL, "true");
        var reportRule = policy.getSpec().getIngress().get(0);
        assertThat(reportRule.getPorts())
                .singleElement()
                .satisfies(port -> assertThat(port.getPort().getIntVal()).isEqualTo(9471));
        assertThat(reportRule.getFrom()).singleElement().satisfies(peer -> {
            assertThat(peer.getNamespaceSelector().getMatchLabels())
                    .containsEntry("kubernetes.io/metadata.name", NAMESPACE);
            assertThat(peer.getPodSelector().getMatchLabels())
                    .containsEntry("app.kubernetes.io/name", "streams-memory-operator");
        });
        // Every other TCP port stays open to all: the report port is the one gap between the two ranges.
        var otherPorts = policy.getSpec().getIngress().get(1);
        assertThat(otherPorts.getFrom()).isEmpty();
        assertThat(otherPorts.getPorts())
                .filteredOn(port -> "TCP".equals(port.getProtocol()))
                .extracting(port -> port.getPort().getIntVal() + "-" + port.getEndPort())
                .containsExactly("1-9470", "9472-65535");
        // The API server accepts it as rendered.
        Fixtures.namespace(client, "shop");
        client.resource(policy).dryRun().create();
    }

    @Test
    void theChartNamesTheKubernetesItNeedsAndLeavesTheWritePolicyOutWhereTheApiServerLacksIt() {
        Helm.Result tooOld = helm.run("template", RELEASE, Helm.CHART.toString(), "--kube-version", "1.29.9");
        assertThat(tooOld.exitCode()).isNotZero();
        assertThat(tooOld.output()).contains("chart requires kubeVersion: >=1.30.0-0");
        // A provider's build of 1.30 (a pre-release suffix) is 1.30; offline, helm knows group/versions only.
        assertThat(template("--kube-version", "v1.30.4-gke.1000")).anyMatch(HelmChartTest::isWritePolicy);
        // Discovery lists kinds: without ValidatingAdmissionPolicy among them it is left out, and NOTES say so.
        assertThat(template("--api-versions", "v1/Pod")).noneMatch(HelmChartTest::isWritePolicy);
        assertThat(template(
                        "--api-versions",
                        "v1/Pod",
                        "--api-versions",
                        "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy"))
                .anyMatch(HelmChartTest::isWritePolicy);
    }

    private static boolean isWritePolicy(HasMetadata object) {
        return object.getKind().equals("ValidatingAdmissionPolicy")
                && object.getMetadata().getName().equals(NAME + "-workload-writes");
    }

    @Test
    void aTypoInAValueFailsBeforeAnythingIsInstalled() {
        for (String typo : List.of(
                "webhook.failurPolicy=Fail",
                "webhook.failurePolicy=Sometimes",
                "logFormat=xml",
                "operator.replica=3",
                "webhook.agent.resources.limits.cpu=lots",
                "certManager.issuerRef.kind=ClusterIssuer")) {
            Helm.Result result = helm.run("template", RELEASE, Helm.CHART.toString(), "--set", typo);
            assertThat(result.exitCode()).as("helm template --set %s", typo).isNotZero();
            assertThat(result.output())
                    .as("helm template --set %s", typo)
                    .contains("values don't meet the specifications of the schema");
        }
    }

    @Test
    void installRunUpgradeUninstallOnTheApiServer() throws Exception {
        Helm.Result install = helm.run(
                        "install", RELEASE, Helm.CHART.toString(), "--namespace", NAMESPACE, "--create-namespace")
                .orFail("helm install");
        Files.writeString(
                OUT.resolve("install.txt"),
                "$ helm install " + RELEASE + " deploy/helm/streams-memory-operator" + " --namespace " + NAMESPACE
                        + " --create-namespace\n" + install.output());
        assertThat(install.output()).contains("STATUS: deployed").doesNotContain("WARNING");
        assertCrdPresent();
        // Helm asked the API server (discovery): it serves ValidatingAdmissionPolicy, so the write policy is in.
        assertThat(controlPlane.kubectl("get", "validatingadmissionpolicies", "-o", "name"))
                .contains(NAME + "-workload-writes");

        // The operator under the chart's ServiceAccount and RBAC (no kubelet here: the chart's pods never run).
        KubernetesClient asOperator = controlPlane.clientAs(NAMESPACE, NAME);
        String ns = "shop";
        Fixtures.namespace(client, ns);
        try (RunningOperator operator = RunningOperator.startWithLeaderElection(asOperator, NAMESPACE, "op-a")) {
            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 3, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            Fixtures.awaitWorkloadCount(client, ns, "orders", 1);
            Files.writeString(
                    OUT.resolve("get-smp.txt"), "$ kubectl get smp -A\n" + controlPlane.kubectl("get", "smp", "-A"));

            // The operator's webhook (not run in this test) keeps the policies' namespaces in the configuration's
            // namespaceSelector; an upgrade must keep them, or pods created before its next refresh miss the agent.
            Fixtures.edit(Fixtures.webhookConfiguration(client, NAME), c -> {
                c.getWebhooks()
                        .forEach(w -> w.getNamespaceSelector().getMatchExpressions().stream()
                                .filter(r -> r.getKey().equals("kubernetes.io/metadata.name")
                                        && r.getOperator().equals("In"))
                                .forEach(r -> r.setValues(List.of(ns))));
                return c;
            });
            Helm.Result upgrade = helm.run(
                            "upgrade",
                            RELEASE,
                            Helm.CHART.toString(),
                            "--namespace",
                            NAMESPACE,
                            "--set",
                            "operator.replicas=1",
                            "--set",
                            "webhook.failurePolicy=Fail",
                            "--set",
                            "webhook.timeoutSeconds=5",
                            "--set",
                            "operator.image.tag=0.1.1")
                    .orFail("helm upgrade");
            Files.writeString(OUT.resolve("upgrade.txt"), upgrade.output());
            Deployment deployed = client.apps()
                    .deployments()
                    .inNamespace(NAMESPACE)
                    .withName(NAME)
                    .get();
            assertThat(deployed.getSpec().getReplicas()).isEqualTo(1);
            assertThat(deployed.getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .getImage())
                    .endsWith(":0.1.1");
            MutatingWebhookConfiguration webhooks =
                    Fixtures.webhookConfiguration(client, NAME).get();
            Fixtures.assertFailureAndTimeout(webhooks, "Fail", 5);
            assertThat(webhooks.getWebhooks())
                    .allSatisfy(w -> assertThat(w.getNamespaceSelector().getMatchExpressions())
                            .anySatisfy(r -> {
                                assertThat(r.getKey()).isEqualTo("kubernetes.io/metadata.name");
                                assertThat(r.getOperator()).isEqualTo("In");
                                assertThat(r.getValues()).containsExactly(ns);
                            }));
            // The operator keeps reconciling after the upgrade.
            client.resource(deployment(ns, "payments-app", "orders", 2, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "payments-app") != null);
            operator.awaitKeepsLeading(); // under this RBAC the Lease is renewed
        }

        helm.run("uninstall", RELEASE, "--namespace", NAMESPACE, "--wait").orFail("helm uninstall");
        assertThat(client.rbac().clusterRoles().withName(NAME).get()).isNull();
        assertThat(client.rbac().clusterRoleBindings().withName(NAME).get()).isNull();
        assertThat(Fixtures.webhookConfiguration(client, NAME).get()).isNull();
        assertThat(leftIn(NAMESPACE))
                .as("objects left in %s after helm uninstall", NAMESPACE)
                .isEmpty();
        // A policy is deleted at once without the operator: it carries no finalizer to wait for.
        Fixtures.deletePolicy(client, ns, "orders");
        // Helm keeps the CRDs of crds/ on uninstall (the chart README says how to remove it).
        assertCrdPresent();
    }

    /** The chart's CRD is on the API server (Helm installs crds/ before the templates). */
    private void assertCrdPresent() {
        assertThat(client.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName("streamsmemorypolicies.streamsmemory.io")
                        .get())
                .isNotNull();
    }

    /** The objects of the chart's kinds left in a namespace (the Lease is the operator's, made at run time). */
    private List<String> leftIn(String namespace) {
        List<HasMetadata> left = new ArrayList<>();
        left.addAll(client.apps().deployments().inNamespace(namespace).list().getItems());
        left.addAll(client.services().inNamespace(namespace).list().getItems());
        left.addAll(client.secrets().inNamespace(namespace).list().getItems());
        left.addAll(
                client.serviceAccounts().inNamespace(namespace).withName(NAME).get() == null
                        ? List.of()
                        : List.of(client.serviceAccounts()
                                .inNamespace(namespace)
                                .withName(NAME)
                                .get()));
        left.addAll(client.rbac().roles().inNamespace(namespace).list().getItems());
        left.addAll(client.rbac().roleBindings().inNamespace(namespace).list().getItems());
        return left.stream()
                .map(o -> o.getKind() + "/" + o.getMetadata().getName())
                .toList();
    }

    private List<HasMetadata> template(String... args) {
        List<String> command =
                new ArrayList<>(List.of("template", RELEASE, Helm.CHART.toString(), "--namespace", NAMESPACE));
        command.addAll(List.of(args));
        String yaml = helm.run(command.toArray(String[]::new))
                .orFail("helm template " + String.join(" ", args))
                .output();
        return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
                .items();
    }

    private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type) {
        List<T> found =
                objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as("objects of %s", type.getSimpleName()).hasSize(1);
        return found.get(0);
    }

    private static Map<String, String> env(Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    }
}
