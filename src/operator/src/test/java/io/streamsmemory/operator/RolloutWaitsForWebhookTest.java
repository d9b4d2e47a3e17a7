package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * An operator that just became leader while its own webhook still starts (its certificate not yet made) must not
 * roll: the new pods would be admitted without the agent, a restart for nothing that also spent the workload's one
 * drift rollout (FaultScenarios caught it when the Lease came before the certificate). It publishes, says why it
 * waits, and rolls once the webhook serves.
 */
@EnableLocalControlPlane
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RolloutWaitsForWebhookTest {
    KubernetesClient client;

    @BeforeAll
    void installCrd() throws Exception {
        Fixtures.installCrd(client);
    }

    private String templateRestartHash(String namespace, String name) {
        return Fixtures.templateRestartHash(client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(name)
                .get());
    }

    @Test
    void noRolloutWhileTheWebhookOfThisProcessDoesNotServe() {
        String ns = "webhook-starting";
        Fixtures.namespace(client, ns);
        AtomicReference<String> webhookProblem = new AtomicReference<>("starting");
        try (RunningOperator operator =
                RunningOperator.start(client, () -> Optional.ofNullable(webhookProblem.get()))) {
            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 2, "2Gi")).create();

            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            await().atMost(WAIT)
                    .until(() -> Fixtures.events(client, ns, "orders-app", "RestartPending").stream()
                            .anyMatch(e ->
                                    e.getMessage().contains("the admission webhook does not serve yet (starting)")));
            // A reconcile more (the operator retries every 5 s while it waits): still not rolled.
            await().pollDelay(Duration.ofSeconds(6)).atMost(WAIT).until(() -> true);
            assertThat(templateRestartHash(ns, "orders-app")).isNull();
            assertThat(Fixtures.events(client, ns, "orders-app", "RollingRestart"))
                    .isEmpty();

            webhookProblem.set(null);
            String restartHash = configMap(client, ns, "orders-app")
                    .getMetadata()
                    .getAnnotations()
                    .get(MetadataKeys.RESTART_HASH);
            await().atMost(WAIT).until(() -> restartHash.equals(templateRestartHash(ns, "orders-app")));
            // The Event is posted after the stamp it tells of.
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(Fixtures.events(client, ns, "orders-app", "RollingRestart"))
                            .hasSize(1));
        }
    }
}
