package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookOperator.WAIT;
import static io.streamsmemory.operator.admission.WebhookOperator.configMap;
import static io.streamsmemory.operator.admission.WebhookOperator.deployment;
import static io.streamsmemory.operator.admission.WebhookOperator.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The operator checks, with a dry run through the real API server, that the API server calls its webhook (readiness
 * cannot: its warm-up goes over 127.0.0.1), says so in the policy's WebhookReachable condition, and starts no rollout
 * while the API server cannot reach it: the new pods would start without the agent. Here the configuration is pointed
 * at a port nobody listens on, as a firewall between the control plane and the nodes would leave it.
 */
@EnableLocalControlPlane
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookReachTest {
    static final String NS = "reach";

    KubernetesClient client;

    @AfterAll
    void removeTheWebhookConfiguration() {
        Fixtures.deleteWebhookConfiguration(client);
    }

    @Test
    void anUnreachableWebhookIsSaidAndHoldsRollouts() throws Exception {
        int port = WebhookOperator.prepareLocal(client, NS);
        WebhookSettings settings = WebhookOperator.localSettings(port).reachGrace(Duration.ZERO);
        try (WebhookOperator operator = WebhookOperator.start(client, settings)) {
            client.resource(policy(NS, "orders", Rollout.Automatic)).create();
            client.resource(deployment(NS, "orders-app", "orders", 1, List.of()))
                    .create();
            Condition reached = awaitReach("True");
            assertThat(reached.getReason()).isEqualTo("ApiServerCalledWebhook");
            assertThat(reached.getMessage()).contains("answered by ");
            awaitRolled("orders-app");

            pointTheWebhooksAt(WebhookOperator.freePort());
            // A reconcile once the last answer is older than the refresh period (1 s here) checks again.
            Condition unreached = awaitReachTouching("False");
            assertThat(unreached.getReason()).isEqualTo("ApiServerCannotReachWebhook");
            // The API server's own words, which the entry's failurePolicy Fail returns to the dry run.
            assertThat(unreached.getMessage())
                    .contains("failed calling webhook \"install-check.streamsmemory.io\"")
                    .contains("start without the agent");
            await().atMost(WAIT)
                    .until(() -> !Fixtures.events(client, NS, "orders", "WebhookUnreachable")
                            .isEmpty());
            // A new workload is published, but its rollout waits: the new pods would be admitted without the agent.
            client.resource(deployment(NS, "payments-app", "orders", 1, List.of()))
                    .create();
            await().atMost(WAIT).until(() -> configMap(client, NS, "payments-app") != null);
            await().atMost(WAIT)
                    .until(() -> Fixtures.events(client, NS, "payments-app", "RestartPending").stream()
                            .anyMatch(e ->
                                    e.getMessage().contains("the API server does not call the admission webhook")));
            assertThat(templateRestartHash("payments-app")).isNull();

            pointTheWebhooksAt(port);
            awaitReachTouching("True");
            await().atMost(WAIT)
                    .until(() -> !Fixtures.events(client, NS, "orders", "WebhookReachable")
                            .isEmpty());
            awaitRolled("payments-app");

            // A configuration from before the check (no install-check entry): no verdict, and nothing held.
            Fixtures.edit(Fixtures.webhookConfiguration(client, MetadataKeys.WEBHOOK_CONFIGURATION), c -> {
                c.getWebhooks().removeIf(w -> w.getName().equals(WebhookReachCheck.ENTRY));
                return c;
            });
            Condition unchecked = awaitReachTouching("Unknown");
            assertThat(unchecked.getReason()).isEqualTo("NoInstallCheckEntry");
        }
    }

    /** Its template carries the restart hash its published ConfigMap asks for. */
    private void awaitRolled(String deployment) {
        await().atMost(WAIT).until(() -> {
            var published = configMap(client, NS, deployment);
            return published != null
                    && published
                            .getMetadata()
                            .getAnnotations()
                            .get(MetadataKeys.RESTART_HASH)
                            .equals(templateRestartHash(deployment));
        });
    }

    /** As {@link #awaitReach}, annotating a workload of the policy at every poll: each change reconciles the policy. */
    private Condition awaitReachTouching(String status) {
        return await().atMost(WAIT)
                .pollInterval(Duration.ofSeconds(1))
                .ignoreExceptionsInstanceOf(
                        KubernetesClientException.class) // a conflict on the edit, a closed connection
                .until(
                        () -> {
                            client.apps()
                                    .deployments()
                                    .inNamespace(NS)
                                    .withName("orders-app")
                                    .edit(d -> {
                                        d.getMetadata()
                                                .getAnnotations()
                                                .put("touched", String.valueOf(System.nanoTime()));
                                        return d;
                                    });
                            return reachCondition().orElse(null);
                        },
                        c -> c != null && status.equals(c.getStatus()));
    }

    private void pointTheWebhooksAt(int port) {
        Fixtures.edit(Fixtures.webhookConfiguration(client, MetadataKeys.WEBHOOK_CONFIGURATION), c -> {
            for (MutatingWebhook webhook : c.getWebhooks()) {
                webhook.getClientConfig().setUrl("https://127.0.0.1:" + port + WebhookSettings.PATH);
            }
            return c;
        });
    }

    private Condition awaitReach(String status) {
        return await().atMost(WAIT)
                .ignoreExceptionsInstanceOf(KubernetesClientException.class)
                .until(() -> reachCondition().orElse(null), c -> c != null && status.equals(c.getStatus()));
    }

    private Optional<Condition> reachCondition() {
        return Fixtures.condition(
                client.resources(StreamsMemoryPolicy.class)
                        .inNamespace(NS)
                        .withName("orders")
                        .get(),
                "WebhookReachable");
    }

    private String templateRestartHash(String deployment) {
        return Fixtures.templateRestartHash(
                client.apps().deployments().inNamespace(NS).withName(deployment).get());
    }
}
