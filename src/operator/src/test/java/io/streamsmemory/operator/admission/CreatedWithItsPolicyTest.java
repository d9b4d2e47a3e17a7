package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookOperator.WAIT;
import static io.streamsmemory.operator.admission.WebhookOperator.annotation;
import static io.streamsmemory.operator.admission.WebhookOperator.configMap;
import static io.streamsmemory.operator.admission.WebhookOperator.deployment;
import static io.streamsmemory.operator.admission.WebhookOperator.livePods;
import static io.streamsmemory.operator.admission.WebhookOperator.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A policy and its Deployment applied together: the Deployment's controller creates the pods before the operator's
 * first reconcile has published anything (in a namespace the webhook already serves). The webhook plans their allocation with the reconciler's engine and
 * publishes it, so every pod starts with the agent; the reconciler then finds the pods running its plan and records
 * that instead of stamping the template, so no pod is rolled, for drift or for the opt-in. Run in that order (the
 * webhook serving, the reconciler started once the pods exist) so the test tells both halves apart; with the
 * reconciler first there is nothing to tell (it publishes before any pod exists, and stamping a template without
 * pods rolls no pod).
 */
@EnableLocalControlPlane(controllerManager = true, scheduler = true, kwok = true)
class CreatedWithItsPolicyTest {
    private static final String NS = "together";
    private static final String APP = "orders-app";
    private static final int REPLICAS = 3;

    static KubernetesClient client;

    /** The webhook configuration this class installed must not call into the next class's cluster. */
    @AfterAll
    static void removeTheWebhookConfiguration() {
        Fixtures.deleteWebhookConfiguration(client);
    }

    @Test
    void theFirstPodsStartWithTheAgentAndTheWorkloadIsNeverRolled() throws Exception {
        int port = WebhookOperator.prepareLocal(client, NS);
        // The first pod's review plans and publishes its workload's allocation (API calls of its own): on a loaded
        // two-core machine that has outlasted the API server's 2 s, which then admits the pod as it was (CI run W38,
        // 2026-12-06). This class is about who publishes and what is rolled, not about the webhook's speed under load
        // (WebhookAbuseTest's and WebhookOverloadTest's): the API server waits up to 10 s here, as the chart allows.
        Fixtures.edit(Fixtures.webhookConfiguration(client, WebhookSettings.DEFAULT_CONFIGURATION_NAME), c -> {
            c.getWebhooks().forEach(w -> w.setTimeoutSeconds(10));
            return c;
        });
        try (WebhookOperator operator = WebhookOperator.webhookOnly(client, WebhookOperator.localSettings(port))) {
            client.resource(policy(NS, "orders", Rollout.Automatic)).create();
            // The API server calls the webhook for a namespace once the policy's there (PolicyNamespaceSelector);
            // pods created before that start without the agent, and are mended by one rollout (docs/operations.md says
            // so). The stored configuration selecting the namespace is not enough: the API server admits with the
            // copy its informer holds, so the test waits until it has sent the webhook the operator's own dry-run
            // check (WebhookReachCheck) for this namespace.
            await().atMost(WAIT)
                    .ignoreExceptionsInstanceOf(KubernetesClientException.class) // the check's entry fails closed
                    .until(() -> webhookServesTheNamespace() && theApiServerCallsTheWebhook());
            client.resource(deployment(NS, APP, "orders", REPLICAS, List.of())).create();

            // Every pod was injected with the allocation the webhook published for the workload's first pod.
            await().atMost(WAIT).until(() -> livePods(client, NS, APP).size() == REPLICAS);
            ConfigMap published = configMap(client, NS, APP);
            assertThat(published).as("published at the first pod's admission").isNotNull();
            String allocationHash = annotation(published, MetadataKeys.ALLOCATION_HASH);
            String restartHash = annotation(published, MetadataKeys.RESTART_HASH);
            List<String> firstPods = uids();
            for (Pod pod : livePods(client, NS, APP)) {
                // A pod admitted without the agent says why in its annotations (the webhook's reason, or none when
                // the API server gave up on the webhook after its 2 s and admitted the pod as it was).
                assertThat(annotation(pod, MetadataKeys.ALLOCATION_HASH))
                        .as(
                                "pod %s, annotated %s",
                                pod.getMetadata().getName(), pod.getMetadata().getAnnotations())
                        .isEqualTo(allocationHash);
                assertThat(annotation(pod, MetadataKeys.APPLIED_RESTART_HASH)).isEqualTo(restartHash);
            }
            await().atMost(WAIT)
                    .until(() -> Fixtures.events(client, NS, APP, "Allocated").stream()
                            .anyMatch(e -> e.getMessage().contains("at the admission of the workload's first pod")));

            operator.startReconciler();
            await().atMost(WAIT).until(() -> {
                WorkloadAllocationStatus row = row();
                return row != null
                        && Integer.valueOf(REPLICAS).equals(row.getPodsInjected())
                        && Integer.valueOf(0).equals(row.getPodsNotInjected())
                        && Boolean.FALSE.equals(row.getRestartPending())
                        && restartHash.equals(annotation(liveDeployment(), MetadataKeys.ADMITTED_RESTART_HASH));
            });
            // The reconciler planned what the webhook had: nothing re-published, nothing rolled, no drift.
            assertThat(row().getAllocationHash()).isEqualTo(allocationHash);
            Thread.sleep(3000); // a reconcile that would roll has had its chance
            // (Its generation moved: a Deployment's annotations count, being copied to its ReplicaSets.)
            Deployment deployment = liveDeployment();
            assertThat(deployment.getMetadata().getAnnotations())
                    .containsEntry("deployment.kubernetes.io/revision", "1");
            assertThat(Fixtures.templateRestartHash(deployment)).isNull();
            assertThat(client.apps()
                            .replicaSets()
                            .inNamespace(NS)
                            .withLabel("app", APP)
                            .list()
                            .getItems())
                    .hasSize(1);
            assertThat(uids()).containsExactlyInAnyOrderElementsOf(firstPods);
            assertThat(Fixtures.events(client, NS, APP, "Drift")).isEmpty();
            assertThat(Fixtures.events(client, NS, APP, "RollingRestart")).isEmpty();
            assertThat(Fixtures.events(client, NS, APP, "OptedIn")).hasSize(1);

            // A later change that needs a restart rolls the workload as ever: the record holds back nothing.
            client.resources(StreamsMemoryPolicy.class)
                    .inNamespace(NS)
                    .withName("orders")
                    .edit(p -> {
                        p.getSpec().setMemory("1536Mi");
                        return p;
                    });
            await().atMost(WAIT).until(() -> {
                String now = annotation(configMap(client, NS, APP), MetadataKeys.RESTART_HASH);
                return !restartHash.equals(now) && now.equals(Fixtures.templateRestartHash(liveDeployment()));
            });
        }
    }

    private boolean webhookServesTheNamespace() {
        return client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems().stream()
                .flatMap(c -> c.getWebhooks().stream())
                .allMatch(w -> w.getNamespaceSelector().getMatchExpressions().stream()
                        .anyMatch(e -> e.getKey().equals(PolicyNamespaceSelector.NAME_LABEL)
                                && e.getOperator().equals("In")
                                && e.getValues().contains(NS)));
    }

    private boolean theApiServerCallsTheWebhook() {
        ConfigMap answered = client.configMaps()
                .inNamespace(NS)
                .resource(WebhookReachCheck.probe())
                .dryRun()
                .create();
        String answer = annotation(answered, MetadataKeys.INSTALL_CHECK);
        return answer != null && answer.startsWith(InstallCheck.ANSWERED_BY);
    }

    private List<String> uids() {
        return livePods(client, NS, APP).stream()
                .map(p -> p.getMetadata().getUid())
                .toList();
    }

    private Deployment liveDeployment() {
        return client.apps().deployments().inNamespace(NS).withName(APP).get();
    }

    private WorkloadAllocationStatus row() {
        StreamsMemoryPolicy policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NS)
                .withName("orders")
                .get();
        if (policy == null || policy.getStatus() == null || policy.getStatus().getWorkloads() == null) {
            return null;
        }
        return policy.getStatus().getWorkloads().stream()
                .filter(r -> r.getName().equals(APP))
                .findFirst()
                .orElse(null);
    }
}
