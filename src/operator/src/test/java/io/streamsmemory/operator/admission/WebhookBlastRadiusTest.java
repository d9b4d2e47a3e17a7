package io.streamsmemory.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Pods in a namespace without a StreamsMemoryPolicy never reach the webhook (the API server does not call it),
 * and a namespace starts and stops reaching it as policies come and go there.
 */
@EnableLocalControlPlane
class WebhookBlastRadiusTest {
    private static final String SHOP = "shop";
    private static final String QUIET = "quiet";
    private static final String HASH = "6b7c8d9f5";

    static KubernetesClient client;

    /** The webhook configuration this class installed must not call into the next class's cluster. */
    @AfterAll
    static void removeTheWebhookConfiguration() {
        Fixtures.deleteWebhookConfiguration(client);
    }

    @Test
    void onlyNamespacesWithAPolicyReachTheWebhookAsPoliciesComeAndGo() throws Exception {
        int port = WebhookOperator.prepareLocal(client, SHOP, QUIET);
        try (WebhookOperator operator = WebhookOperator.start(client, WebhookOperator.localSettings(port))) {
            client.resource(WebhookOperator.policy(SHOP, "orders", Rollout.Manual))
                    .create();
            Pod optedIn = WebhookOperator.replicaSetPod(
                    client.resource(WebhookOperator.deployment(SHOP, "orders-app", "orders", 1, List.of()))
                            .create(),
                    HASH);
            Pod elsewhere = WebhookOperator.replicaSetPod(
                    client.resource(WebhookOperator.deployment(QUIET, "web", null, 1, List.of()))
                            .create(),
                    HASH);
            await().atMost(WebhookOperator.WAIT).until(() -> WebhookOperator.injected(create(optedIn)));

            // A Deployment's pods in a namespace without a policy: the API server never calls the webhook. (The
            // operator's own install check, a dry run in the namespace with the policy, may run meanwhile.)
            long reviews = operator.webhook.podReviews();
            for (int i = 0; i < 5; i++) {
                assertThat(WebhookOperator.injected(create(elsewhere))).isFalse();
            }
            assertThat(operator.webhook.podReviews())
                    .as("reviews for pods of a namespace without a policy")
                    .isEqualTo(reviews);
            assertThat(WebhookOperator.injected(create(optedIn))).isTrue();

            // A policy arrives there: its pods reach the webhook (answered unchanged: this one does not opt in).
            client.resource(WebhookOperator.policy(QUIET, "later", Rollout.Manual))
                    .create();
            await().atMost(WebhookOperator.WAIT).until(() -> {
                long before = operator.webhook.podReviews();
                create(elsewhere);
                return operator.webhook.podReviews() > before;
            });

            // It goes again: so do the calls, while the namespace that keeps its policy is still injected.
            client.resources(StreamsMemoryPolicy.class)
                    .inNamespace(QUIET)
                    .withName("later")
                    .delete();
            await().atMost(WebhookOperator.WAIT).until(() -> {
                long before = operator.webhook.podReviews();
                create(elsewhere);
                return operator.webhook.podReviews() == before;
            });
            assertThat(WebhookOperator.injected(create(optedIn))).isTrue();
        }
    }

    private Pod create(Pod template) {
        return client.resource(new PodBuilder(template).build()).create();
    }
}
