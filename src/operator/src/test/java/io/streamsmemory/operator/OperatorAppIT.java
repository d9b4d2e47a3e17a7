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
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * The packaged operator ({@code target/quarkus-app/quarkus-run.jar}, as {@code make run} and the image run
 * it) against a real API server: Quarkus wiring, health and readiness, Prometheus metrics, and a
 * reconcile end to end. The jar is built at process-classes (pom.xml), so the class runs with the others.
 */
@EnableLocalControlPlane(controllerManager = true)
class OperatorAppIT {
    KubernetesClient client;
    LocalControlPlane controlPlane;

    @Test
    void packagedOperatorIsHealthyReconcilesAndExportsMetrics() throws Exception {
        Fixtures.installCrd(client);
        String ns = "app";
        Fixtures.namespace(client, ns);
        PackagedOperator operator = PackagedOperator.start(
                controlPlane.kubeconfigPath(),
                ns,
                "operator-it",
                Files.createTempFile("operator", ".log"),
                PackagedOperator.C1_ONLY,
                "-Dstreamsmemory.webhook.port=" + PackagedOperator.freePort());
        try {
            operator.awaitAnswering("/q/health/ready", 200);
            assertThat(operator.get("/q/health/live").statusCode()).isEqualTo(200);

            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 3, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            assertThat(client.leases()
                            .inNamespace(ns)
                            .withName("streams-memory-operator")
                            .get()
                            .getSpec()
                            .getHolderIdentity())
                    .isEqualTo("operator-it");

            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(operator.get("/q/metrics").body())
                            .contains("streamsmemory_allocation_bytes{", "part=\"heap\"", "workload=\"orders-app\"")
                            .contains("streamsmemory_workloads_managed{")
                            .containsPattern("operator_sdk_reconciliations\\w*\\{"));
        } finally {
            boolean exited = operator.stop();
            System.out.println(operator.logLines("operator errors:", "ERROR"));
            assertThat(exited).as("SIGTERM ends the operator").isTrue();
        }
    }
}
