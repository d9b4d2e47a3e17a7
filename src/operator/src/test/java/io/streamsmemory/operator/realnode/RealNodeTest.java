package io.streamsmemory.operator.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.Helm;
import io.streamsmemory.operator.admission.DoNoHarm;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

    @Test
    @Order(3)
    void theChartUpgradesWithTheBuiltImagesAndTheWebhookStillInjects() throws IOException {
        String before = operatorPodNames().toString();
        Files.writeString(OUT.resolve("upgrade.txt"), installChart("upgrade").output());
        awaitOperatorReady();
        assertThat(operatorPodNames().toString()).isNotEqualTo(before);
        // The install check a user runs (make verify-install): the API server reaches the upgraded webhook, and a
        // namespace holding no policy is reported as not served.
        Fixtures.namespace(client, "no-policy");
        Helm.Result unselected = verifyInstall("no-policy", "1");
        assertThat(unselected.exitCode()).as(unselected.output()).isEqualTo(1);
        assertThat(unselected.output()).contains("install-check: FAILED", "namespace no-policy");
        Helm.Result check = verifyInstall("apps", "30").orFail("verify-install.sh apps");
        assertThat(check.output()).contains("install-check: ok", "answered by " + RELEASE);
        Files.writeString(OUT.resolve("verify-install.txt"), check.output() + unselected.output());
        // A new pod of the example after the upgrade: injected by the upgraded operator.
        client.pods().inNamespace("apps").withLabel("app", "orders-streams").delete();
        Pod pod = RealPods.awaitRunning(client, "apps", "orders-streams", POD_START);
        assertThat(RealPods.initContainerReason(pod)).isEqualTo("Completed");
        RealPods.awaitLog(client, pod, "streams", AGENT_LOADED, POD_START);
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

    static Helm.Result installChart(String verb) {
        return OperatorChart.install(OperatorChart.helm, controlPlane, verb);
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
        try (InputStream in = Files.newInputStream(Path.of("../../examples/kafka-streams-app.yaml"))) {
            app = client.apps().deployments().load(in).item();
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
