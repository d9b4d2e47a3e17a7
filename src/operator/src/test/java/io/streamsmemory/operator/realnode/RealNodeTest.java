package io.streamsmemory.operator.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.controlplane.ControlPlaneBinaries;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.Helm;
import io.streamsmemory.operator.admission.DoNoHarm;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What users run, on a real node (containerd, kubelet, runc, the images of {@code make images}): the chart installs
 * the operator as a real pod, the API server calls its webhook through the Service, the real init container copies
 * the agent into a real pod whose JVM loads it, the operator reads that pod's report over the pod network, a
 * namespace enforcing the {@code restricted} Pod Security Standard runs an injected pod, and the chart upgrades.
 * kubectl's views of the run are kept in target/real-node/.
 */
@OnTheRealNode
@Order(3) // its place in the real-node lane (junit-platform.properties)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeTest extends ChartOnTheRealNode {
    static final String OPERATOR_NAMESPACE = OperatorChart.NAMESPACE;
    static final String RELEASE = OperatorChart.RELEASE;
    static final Path OUT = OperatorChart.OUT;
    static final Duration POD_START = Duration.ofMinutes(3);
    static final String AGENT_LOADED = "[streams-memory-agent] INFO streams-memory-agent ";

    @BeforeAll
    static void startABroker() throws IOException {
        startBroker("apps", POD_START);
    }

    @Test
    @Order(1)
    void anInjectedPodStartsAndItsAgentLogsTheAllocationTheOperatorThenReadsItsReport() throws IOException {
        Pod pod = runInjectedApp("apps", "orders", false);
        assertThat(RealPods.initContainerReason(pod)).isEqualTo("Completed");
        assertThat(pod.getMetadata().getAnnotations()).containsKey(MetadataKeys.ALLOCATION_HASH);
        RealPods.awaitLog(client, pod, "streams", AGENT_LOADED, POD_START);
        // The operator (a pod) reads the agent's report at the pod's IP on the bridge.
        await().atMost(POD_START)
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> observedThreads("apps", "orders") > 0);
        Files.writeString(
                OUT.resolve("pods.txt"),
                controlPlane.kubectl("get", "pods", "-A", "-o", "wide") + "\n"
                        + controlPlane.kubectl("get", "smp", "-A", "-o", "wide"));
    }

    @Test
    @Order(2)
    void anInjectedPodRunsWithTheAgentInANamespaceEnforcingTheRestrictedStandard(TestInfo test) throws IOException {
        Fixtures.namespace(client, "restricted", Map.of("pod-security.kubernetes.io/enforce", "restricted"));
        Pod pod = runInjectedApp("restricted", "orders", true);
        assertThat(RealPods.initContainerReason(pod)).isEqualTo("Completed");
        RealPods.awaitLog(client, pod, "streams", AGENT_LOADED, POD_START);
        Container init = pod.getSpec().getInitContainers().get(0);
        assertThat(init.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(init.getSecurityContext().getCapabilities().getDrop()).contains("ALL");
        // Do-no-harm case 7 on a real pod: the pod against its Deployment's template (as the API server holds it).
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Deployment app = client.apps()
                .deployments()
                .inNamespace("restricted")
                .withName("orders-streams")
                .get();
        assertThat(harm.record(app.getSpec().getTemplate().getSpec(), pod, true).settingsLost())
                .isZero();
        harm.write(7, test);
    }

    /**
     * The user's path from a registry: version A (the fixture published and installed it from {@code oci://}, unsigned;
     * signed here by src/scripts/sign.sh, as a user signs a version pushed earlier), then B, signed by publish.sh,
     * a chart whose CRD has a new optional field, published at 0.1.1; the CRD applied as docs/upgrade.md says, helm
     * upgrade to B, helm rollback to A. Each time the operator runs from the recorded digest and the API server reaches
     * its webhook; no workload rolls unless its plan changed; a pod made after it all is injected, the agent pulled by
     * its recorded digest. Writes the install-oci line to target/real-node/install-oci.txt.
     */
    @Test
    @Order(3)
    void versionsPublishedToTheRegistryUpgradeAndRollBackAndTheWebhookStillInjects() throws IOException {
        PublishedRelease a = OperatorChart.installed;
        Cosign cosign = OperatorChart.signing();
        assertThat(operatorImage(a)).endsWith("@" + a.digest("operator"));
        WorkloadAllocationStatus rowBefore = RealPods.statusRow(client, "apps", "orders", "orders-streams");
        String podBefore = RealPods.awaitRunning(client, "apps", "orders-streams", POD_START)
                .getMetadata()
                .getUid();

        Path chartB = chartWithANewOptionalCrdField(OUT.resolve("chart-0.1.1"));
        PublishedRelease b = PublishedRelease.publish(OperatorChart.helm, a.registry(), "0.1.1", chartB, cosign);
        controlPlane.kubectl(
                "apply",
                "--server-side",
                "--force-conflicts",
                "-k",
                chartB.resolve("crds").toAbsolutePath().toString());
        assertThat(controlPlane.kubectl("explain", "streamsmemorypolicies.spec." + NEW_CRD_FIELD))
                .contains(NEW_CRD_FIELD);
        String before = operatorPodNames().toString();
        Files.writeString(
                OUT.resolve("upgrade.txt"),
                OperatorChart.install(OperatorChart.helm, controlPlane, "upgrade", b)
                        .output());
        awaitOperatorReady();
        assertThat(operatorPodNames().toString()).isNotEqualTo(before);
        assertThat(operatorImage(b)).endsWith("@" + b.digest("operator"));
        verifyInstall("apps", "30").orFail("verify-install.sh apps, after the upgrade");

        Files.writeString(
                OUT.resolve("rollback.txt"),
                OperatorChart.helm
                        .run("rollback", RELEASE, "1", "--namespace", OPERATOR_NAMESPACE, "--wait", "--timeout", "3m")
                        .orFail("helm rollback")
                        .output());
        awaitOperatorReady();
        assertThat(operatorImage(a)).endsWith("@" + a.digest("operator"));
        // The install check a user runs (make verify-install): the API server reaches the webhook, and a namespace
        // holding no policy is reported as not served.
        Fixtures.namespace(client, "no-policy");
        Helm.Result unselected = verifyInstall("no-policy", "1");
        assertThat(unselected.exitCode()).as(unselected.output()).isEqualTo(1);
        assertThat(unselected.output()).contains("install-check: FAILED", "namespace no-policy");
        Helm.Result check = verifyInstall("apps", "30").orFail("verify-install.sh apps, after the rollback");
        assertThat(check.output()).contains("install-check: ok", "answered by " + RELEASE);
        Files.writeString(OUT.resolve("verify-install.txt"), check.output() + unselected.output());
        // The operator's own check (its dry run through the API server and the webhook's Service) says the same.
        await().atMost(POD_START)
                .untilAsserted(() -> assertThat(Fixtures.condition(
                                client.resources(StreamsMemoryPolicy.class)
                                        .inNamespace("apps")
                                        .withName("orders")
                                        .get(),
                                "WebhookReachable"))
                        .hasValueSatisfying(c -> assertThat(c.getMessage()).contains("answered by " + RELEASE)));

        // No roll without a new plan: the same pod runs unless the plan's restart hash moved meanwhile (it learns).
        WorkloadAllocationStatus rowAfter = RealPods.statusRow(client, "apps", "orders", "orders-streams");
        String podAfter = RealPods.awaitRunning(client, "apps", "orders-streams", POD_START)
                .getMetadata()
                .getUid();
        boolean planMoved = !java.util.Objects.equals(rowBefore.getRestartHash(), rowAfter.getRestartHash());
        if (!planMoved) {
            assertThat(podAfter)
                    .as("the example's pod, rolled by the upgrade or the rollback")
                    .isEqualTo(podBefore);
        }

        // A new pod of the example: injected by the rolled-back operator, the agent pulled by its recorded digest.
        client.pods().inNamespace("apps").withLabel("app", "orders-streams").delete();
        Pod pod = RealPods.awaitRunning(client, "apps", "orders-streams", POD_START);
        assertThat(RealPods.initContainerReason(pod)).isEqualTo("Completed");
        assertThat(pod.getStatus().getInitContainerStatuses().get(0).getImageID())
                .endsWith("@" + a.digest("agent"));
        RealPods.awaitLog(client, pod, "streams", AGENT_LOADED, POD_START);

        // Signed: every published digest verifies against the run's key, the SBOMs too; an unsigned image does not.
        for (PublishedRelease release : List.of(a, b)) {
            release.references()
                    .forEach((name, reference) -> assertThat(
                                    cosign.verify(reference).exitCode())
                            .as("cosign verify %s", reference)
                            .isZero());
            for (String name : List.of("agent", "operator", "example-app", "kafka")) {
                cosign.verifySbom(release.references().get(name)).orFail("the SBOM of " + name);
            }
        }
        Helm.Result unsigned = cosign.verify(unsignedCopyOf(a.references().get("operator")));
        assertThat(unsigned.exitCode()).isNotZero();
        assertThat(unsigned.output()).contains("no signatures found");

        int pulled = imagesPulledFromTheRegistry(a);
        String line = "install-oci: images_pulled=" + pulled + "/6 chart=oci signed=yes webhook_reachable=ok upgrade=ok"
                + " rollback=ok workload_rolled=" + (podAfter.equals(podBefore) ? "no" : "after-a-plan-change");
        System.out.println(line);
        Files.writeString(OUT.resolve("install-oci.txt"), line + "\n");
        assertThat(pulled).as("images on the node pulled from %s", a.registry()).isEqualTo(5);
    }

    @Test
    @Order(4)
    void aMissingVersionOrAWrongRegistryFailsWithTheRegistrysErrorAndInstallsNothing() {
        PublishedRelease a = OperatorChart.installed;
        List<String> webhooksBefore = webhookConfigurationNames();
        Helm.Result missing = OperatorChart.helm.run(
                "install",
                "missing-version",
                a.chartReference(),
                "--version",
                "9.9.9",
                "--plain-http",
                "--namespace",
                "missing-version",
                "--create-namespace");
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.output()).contains("9.9.9").containsIgnoringCase("not found");
        Helm.Result wrong = OperatorChart.helm.run(
                "install",
                "wrong-registry",
                "oci://127.0.0.1:1/charts/streams-memory-operator",
                "--version",
                OperatorChart.VERSION,
                "--plain-http",
                "--namespace",
                "wrong-registry",
                "--create-namespace");
        assertThat(wrong.exitCode()).isNotZero();
        assertThat(wrong.output()).contains("connection refused");
        assertThat(OperatorChart.helm
                        .run("list", "-A", "-q")
                        .orFail("helm list")
                        .output())
                .doesNotContain("missing-version", "wrong-registry");
        assertThat(client.namespaces().withName("missing-version").get()).isNull();
        assertThat(client.namespaces().withName("wrong-registry").get()).isNull();
        assertThat(webhookConfigurationNames()).isEqualTo(webhooksBefore);
    }

    static final String NEW_CRD_FIELD = "upgradeProbe";

    /** A copy of the chart whose CRD (in crds/, with the kustomization the docs' command reads) has a new field. */
    static Path chartWithANewOptionalCrdField(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(Helm.CHART)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path copy = dir.resolve(Helm.CHART.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        Path crd = dir.resolve("crds").resolve("streamsmemorypolicies.streamsmemory.io-v1.yml");
        CustomResourceDefinition changed =
                Serialization.unmarshal(Files.readString(crd), CustomResourceDefinition.class);
        changed.getSpec()
                .getVersions()
                .get(0)
                .getSchema()
                .getOpenAPIV3Schema()
                .getProperties()
                .get("spec")
                .getProperties()
                .put(
                        NEW_CRD_FIELD,
                        new JSONSchemaPropsBuilder()
                                .withType("string")
                                .withDescription("A field version 0.1.1 adds (RealNodeTest's upgrade).")
                                .build());
        Files.writeString(crd, Serialization.asYaml(changed));
        Files.copy(
                Path.of("../../crds/kustomization.yaml"),
                dir.resolve("crds").resolve("kustomization.yaml"),
                StandardCopyOption.REPLACE_EXISTING);
        return dir;
    }

    /**
     * Once the operator's one running pod runs {@code release}'s tag: its image as the kubelet ran it, {@code
     * <registry>/<name>:<tag> <registry>/<name>@sha256:...}; fails listing the operator's pods.
     */
    static String operatorImage(PublishedRelease release) {
        try {
            await().atMost(POD_START)
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> operatorImages().stream()
                            .anyMatch(i -> i.contains(":" + release.version() + " ") && i.contains("@sha256:")));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "the operator does not run version " + release.version() + ": " + operatorImages(), e);
        }
        return operatorImages().stream()
                .filter(i -> i.contains(":" + release.version() + " "))
                .findFirst()
                .orElseThrow();
    }

    /**
     * Per started operator pod not being deleted: the image its spec names and the image ID the kubelet ran. Not the
     * status's image: with two tags on one digest (0.1.0 and 0.1.1 here) the kubelet reports the image's first tag.
     */
    static List<String> operatorImages() {
        return client.pods().inNamespace(OPERATOR_NAMESPACE).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> p.getStatus().getContainerStatuses() != null
                        && !p.getStatus().getContainerStatuses().isEmpty())
                .map(p -> p.getSpec().getContainers().get(0).getImage() + " "
                        + p.getStatus().getContainerStatuses().get(0).getImageID())
                .toList();
    }

    /** The image with one label more (a new digest, signed by no one), pushed beside it with crane. */
    static String unsignedCopyOf(String reference) {
        String repository = reference.substring(0, reference.indexOf('@'));
        repository = repository.substring(0, repository.lastIndexOf(':'));
        try {
            Process mutate = new ProcessBuilder(
                            ControlPlaneBinaries.crane().toString(),
                            "mutate",
                            "--insecure",
                            "--label",
                            "signed=no",
                            "-t",
                            repository + ":unsigned",
                            reference)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String copy =
                    new String(mutate.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            assertThat(mutate.waitFor()).as("crane mutate " + reference).isZero();
            return copy;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** How many of the published images the node holds under the registry's name (the node imports none). */
    static int imagesPulledFromTheRegistry(PublishedRelease release) {
        List<String> onTheNode = client.nodes().list().getItems().stream()
                .flatMap(n -> n.getStatus().getImages().stream())
                .flatMap(i -> i.getNames().stream())
                .toList();
        return (int) release.references().keySet().stream()
                .filter(name -> !name.equals("chart"))
                .filter(name -> onTheNode.stream()
                        .anyMatch(n -> n.startsWith(release.registry() + "/streams-memory-" + name + "@")))
                .count();
    }

    static List<String> webhookConfigurationNames() {
        return client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems().stream()
                .map(c -> c.getMetadata().getName())
                .sorted()
                .toList();
    }

    /** src/scripts/verify-install.sh, as make verify-install runs it, with the control plane's kubectl. */
    static Helm.Result verifyInstall(String namespace, String tries) {
        return OperatorChart.helm.script(
                Map.of(
                        "KUBECTL",
                        controlPlane.binaries().dir().resolve("kubectl").toString(),
                        "TRIES",
                        tries),
                Path.of("../scripts/verify-install.sh"),
                namespace);
    }

    static void awaitOperatorReady() {
        OperatorChart.awaitReady(client, POD_START);
    }

    static List<String> operatorPodNames() {
        return client.pods().inNamespace(OPERATOR_NAMESPACE).list().getItems().stream()
                .map(p -> p.getMetadata().getName())
                .sorted()
                .toList();
    }

    /**
     * A policy and one replica of examples/kafka-streams-app.yaml in {@code namespace} (1 GiB, one stream thread,
     * four partitions); waits for the webhook to select the namespace first, then for the pod to run.
     */
    static Pod runInjectedApp(String namespace, String policyName, boolean restricted) throws IOException {
        client.resource(RealPods.policy(namespace, policyName, "1Gi", 1, 4)).create();
        RealPods.awaitWebhookSelects(client, RELEASE, namespace, POD_START);
        Deployment app;
        try (InputStream in = Files.newInputStream(RealPods.EXAMPLE_APP)) {
            app = RealPods.fromRegistry(client.apps().deployments().load(in).item());
        }
        app.getMetadata().setNamespace(namespace);
        app.getMetadata().getAnnotations().put(MetadataKeys.POLICY, policyName);
        app.getMetadata().getAnnotations().remove("streamsmemory.io/stream-threads");
        app.getSpec().setReplicas(1);
        Container streams =
                app.getSpec().getTemplate().getSpec().getContainers().get(0);
        streams.setEnv(List.of(
                new EnvVar("BOOTSTRAP_SERVERS", bootstrapServers, null),
                new EnvVar("APPLICATION_ID", "orders-" + namespace, null),
                new EnvVar("STREAM_THREADS", "1", null),
                new EnvVar("INPUT_PARTITIONS", "4", null)));
        streams.getResources().getLimits().put("memory", new Quantity("1Gi"));
        streams.getResources().getRequests().put("memory", new Quantity("1Gi"));
        assertThat(restricted || streams.getSecurityContext().getReadOnlyRootFilesystem())
                .isTrue();
        client.resource(app).create();
        return RealPods.awaitRunning(client, namespace, "orders-streams", POD_START);
    }

    static int observedThreads(String namespace, String policyName) {
        WorkloadAllocationStatus row = RealPods.statusRow(client, namespace, policyName, "orders-streams");
        return row == null || row.getObserved() == null || row.getObserved().getStreamThreads() == null
                ? 0
                : row.getObserved().getStreamThreads().intValue();
    }
}
