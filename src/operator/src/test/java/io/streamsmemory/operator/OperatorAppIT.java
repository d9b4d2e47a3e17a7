package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.controlplane.LocalControlPlane;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The packaged operator ({@code target/quarkus-app/quarkus-run.jar}, as {@code make run} and the image run
 * it) against a real API server: Quarkus wiring, health and readiness, Prometheus metrics, and a
 * reconcile end to end. Runs in the integration-test phase, after the jar is built.
 */
@EnableLocalControlPlane(controllerManager = true)
class OperatorAppIT {
    private static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");

    KubernetesClient client;
    LocalControlPlane controlPlane;

    @Test
    void packagedOperatorIsHealthyReconcilesAndExportsMetrics() throws Exception {
        assertThat(JAR).as("built by the package phase").exists();
        Fixtures.installCrd(client);
        String ns = "app";
        Fixtures.namespace(client, ns);
        int httpPort = freePort();
        Path log = Files.createTempFile("operator", ".log");
        ProcessBuilder builder = new ProcessBuilder("java", "-Dquarkus.http.port=" + httpPort,
                "-Dstreamsmemory.webhook.port=" + freePort(), "-jar", JAR.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("KUBECONFIG", controlPlane.kubeconfigPath().toString());
        builder.environment().put("POD_NAMESPACE", ns);
        builder.environment().put("POD_NAME", "operator-it");
        Process operator = builder.start();
        HttpClient http = HttpClient.newHttpClient();
        try {
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> get(http, httpPort, "/q/health/ready").statusCode() == 200);
            assertThat(get(http, httpPort, "/q/health/live").statusCode()).isEqualTo(200);

            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 3, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            assertThat(client.leases().inNamespace(ns).withName("streams-memory-operator").get().getSpec()
                    .getHolderIdentity()).isEqualTo("operator-it");

            await().atMost(WAIT).untilAsserted(() -> assertThat(get(http, httpPort, "/q/metrics").body())
                    .contains("streamsmemory_allocation_bytes{", "part=\"heap\"", "workload=\"orders-app\"")
                    .contains("streamsmemory_workloads_managed{")
                    .containsPattern("operator_sdk_reconciliations\\w*\\{"));
        } finally {
            operator.destroy();
            boolean exited = operator.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
            if (!exited) {
                operator.destroyForcibly();
            }
            System.out.println(Files.readString(log).lines().filter(l -> l.contains("ERROR"))
                    .reduce("operator errors:", (a, b) -> a + "\n" + b));
            assertThat(exited).as("SIGTERM ends the operator").isTrue();
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
