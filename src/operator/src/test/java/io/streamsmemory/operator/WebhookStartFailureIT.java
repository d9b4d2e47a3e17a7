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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The packaged operator whose webhook cannot start (its port is taken): the reconciler still reconciles,
 * readiness says the webhook is the part that is down, and the webhook starts once the port is free.
 */
@EnableLocalControlPlane(controllerManager = true)
class WebhookStartFailureIT {
    private static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");

    KubernetesClient client;
    LocalControlPlane controlPlane;

    @Test
    void theReconcilerRunsWhileTheWebhookCannotStartAndReadinessSaysWhy() throws Exception {
        assertThat(JAR).as("built by the package phase").exists();
        Fixtures.installCrd(client);
        String ns = "app";
        Fixtures.namespace(client, ns);
        // The webhook's port, taken by someone else (0.0.0.0, as the webhook binds).
        ServerSocket squatter = new ServerSocket();
        squatter.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
        int httpPort = freePort();
        Path log = Files.createTempFile("operator", ".log");
        ProcessBuilder builder = new ProcessBuilder("java", "-Dquarkus.http.port=" + httpPort,
                "-Dstreamsmemory.webhook.port=" + squatter.getLocalPort(),
                "-Dstreamsmemory.webhook.start-retry-period=PT1S", "-jar", JAR.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("KUBECONFIG", controlPlane.kubeconfigPath().toString());
        builder.environment().put("POD_NAMESPACE", ns);
        builder.environment().put("POD_NAME", "operator-webhook-down");
        Process operator = builder.start();
        HttpClient http = HttpClient.newHttpClient();
        try {
            // Alive and reconciling, not ready: the webhook check is the one down, with the reason.
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> get(http, httpPort, "/q/health/live").statusCode() == 200);
            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 1, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            await().atMost(WAIT).untilAsserted(() -> {
                HttpResponse<String> ready = get(http, httpPort, "/q/health/ready");
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body()).contains("streams-memory-webhook", "\"DOWN\"", "Address already in use",
                        "port " + squatter.getLocalPort());
            });

            // The port comes free: the webhook starts on a retry, and the operator turns ready.
            squatter.close();
            await().atMost(WAIT).ignoreExceptions()
                    .until(() -> get(http, httpPort, "/q/health/ready").statusCode() == 200);
            assertThat(operator.isAlive()).isTrue();
        } finally {
            squatter.close();
            operator.destroy();
            if (!operator.waitFor(30, TimeUnit.SECONDS)) {
                operator.destroyForcibly();
            }
            System.out.println(Files.readString(log).lines().filter(l -> l.contains("ERROR") || l.contains("webhook"))
                    .reduce("operator log (webhook, errors):", (a, b) -> a + "\n" + b));
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
