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
import java.net.http.HttpResponse;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * The packaged operator whose webhook cannot start (its port is taken): the reconciler still reconciles,
 * readiness says the webhook is the part that is down, and the webhook starts once the port is free.
 */
@EnableLocalControlPlane(controllerManager = true)
class WebhookStartFailureIT {
    KubernetesClient client;
    LocalControlPlane controlPlane;

    @Test
    void theReconcilerRunsWhileTheWebhookCannotStartAndReadinessSaysWhy() throws Exception {
        Fixtures.installCrd(client);
        String ns = "app";
        Fixtures.namespace(client, ns);
        // The webhook's port, taken by someone else (0.0.0.0, as the webhook binds).
        ServerSocket squatter = new ServerSocket();
        squatter.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
        PackagedOperator operator = PackagedOperator.start(
                controlPlane.kubeconfigPath(),
                ns,
                "operator-webhook-down",
                Files.createTempFile("operator", ".log"),
                PackagedOperator.C1_ONLY,
                "-Dstreamsmemory.webhook.port=" + squatter.getLocalPort(),
                "-Dstreamsmemory.webhook.start-retry-period=PT1S");
        try {
            // Alive and reconciling, not ready: the webhook check is the one down, with the reason.
            operator.awaitAnswering("/q/health/live", 200);
            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 1, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            await().atMost(WAIT).untilAsserted(() -> {
                HttpResponse<String> ready = operator.get("/q/health/ready");
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body())
                        .contains(
                                "streams-memory-webhook",
                                "\"DOWN\"",
                                "Address already in use",
                                "port " + squatter.getLocalPort());
            });

            // The port comes free: the webhook starts on a retry, and the operator turns ready.
            squatter.close();
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .until(() -> operator.get("/q/health/ready").statusCode() == 200);
            assertThat(operator.process().isAlive()).isTrue();
        } finally {
            squatter.close();
            operator.stop();
            System.out.println(operator.logLines("operator log (webhook, errors):", "ERROR", "webhook"));
        }
    }
}
