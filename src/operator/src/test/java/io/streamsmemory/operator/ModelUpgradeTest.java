package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * An operator upgrade whose model gives every workload a new restart hash for the same facts rolls them one at a
 * time, not all at once: the others keep the plan they run (made for today's facts, so it still fits) and say that a
 * newer plan waits. On a real API server, with the allocations an older operator would have published.
 */
@EnableLocalControlPlane
class ModelUpgradeTest {
    private static final List<String> WORKLOADS = List.of("orders-app", "payments-app");
    private static final String OLDER_RESTART_HASH = "0lder0000000";
    private static final ObjectMapper JSON = new ObjectMapper();
    KubernetesClient client;

    @Test
    void anUpgradeRollsOneWorkloadPerTurnAndTheOthersKeepTheirPlanAndSaySoUntilTheirTurn() throws Exception {
        Fixtures.installCrd(client);
        String ns = "upgrade";
        Fixtures.namespace(client, ns);
        client.resource(Fixtures.policy(ns, "orders", "2Gi")).create();
        for (String name : WORKLOADS) {
            client.resource(Fixtures.deployment(ns, name, "orders", 2, "2Gi")).create();
        }
        try (RunningOperator operator = RunningOperator.start(client)) {
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .until(() -> WORKLOADS.stream()
                            .allMatch(name -> templateRestartHash(ns, name)
                                    .equals(row(ns, name).getRestartHash())));
        }
        String currentRestartHash = row(ns, WORKLOADS.get(0)).getRestartHash();
        // What an older operator published, and its pods run: the same facts, another model's JVM flags.
        for (String name : WORKLOADS) {
            olderModel(ns, name);
        }

        // One model-upgrade rollout an hour: the first workload in turn rolls, the other waits.
        try (RunningOperator operator =
                RunningOperator.start(client, new RolloutGate(Duration.ZERO, Duration.ofHours(1)))) {
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .until(() -> WORKLOADS.stream()
                                    .filter(name ->
                                            templateRestartHash(ns, name).equals(currentRestartHash))
                                    .count()
                            == 1);
            String waiting = WORKLOADS.stream()
                    .filter(name -> templateRestartHash(ns, name).equals(OLDER_RESTART_HASH))
                    .findFirst()
                    .orElseThrow();
            await().atMost(WAIT).ignoreExceptions().until(() -> row(ns, waiting).getNewerPlanPending() != null);
            WorkloadAllocationStatus held = row(ns, waiting);
            assertThat(held.getNewerPlanPending())
                    .contains("only by the operator's model", "still fits the pod", "next turn at");
            assertThat(held.getRestartHash()).isEqualTo(OLDER_RESTART_HASH);
            assertThat(held.getRestartPending()).isFalse();
            // Still so a few reconciles later: its ConfigMap keeps the plan its pods run.
            await().during(Duration.ofSeconds(3)).atMost(WAIT).untilAsserted(() -> {
                assertThat(templateRestartHash(ns, waiting)).isEqualTo(OLDER_RESTART_HASH);
                assertThat(allocation(ns, waiting).get("jvmOptions").toString()).contains("-Xss512k");
            });
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(Fixtures.events(client, ns, waiting, "NewerPlanPending"))
                            .hasSize(1));
        }

        // Its turn comes (here: no pacing): it takes the current model.
        try (RunningOperator operator = RunningOperator.start(client, new RolloutGate(Duration.ZERO, Duration.ZERO))) {
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .until(() -> WORKLOADS.stream()
                            .allMatch(name -> templateRestartHash(ns, name).equals(currentRestartHash)
                                    && row(ns, name).getNewerPlanPending() == null));
        }
    }

    /** Rewrites the workload's ConfigMap and template as an older model would have left them. */
    private void olderModel(String ns, String name) throws Exception {
        String configMapName = AllocationConfigMap.configMapName("Deployment", name);
        ConfigMap published =
                client.configMaps().inNamespace(ns).withName(configMapName).get();
        ObjectNode document = (ObjectNode) JSON.readTree(published.getData().get(MetadataKeys.ALLOCATION_KEY));
        document.put("restartHash", OLDER_RESTART_HASH);
        document.put("hash", "0lder-allocation");
        ArrayNode options = (ArrayNode) document.get("jvmOptions");
        for (int i = 0; i < options.size(); i++) {
            if (options.get(i).asText().startsWith("-Xss")) {
                options.set(i, "-Xss512k");
            }
        }
        published.getData().put(MetadataKeys.ALLOCATION_KEY, JSON.writeValueAsString(document));
        published.getMetadata().getAnnotations().put(MetadataKeys.RESTART_HASH, OLDER_RESTART_HASH);
        published.getMetadata().getAnnotations().put(MetadataKeys.ALLOCATION_HASH, "0lder-allocation");
        published.getMetadata().getAnnotations().remove(MetadataKeys.MODEL); // as the operator before the fingerprint
        client.resource(published).update();
        client.apps().deployments().inNamespace(ns).withName(name).edit(d -> {
            d.getSpec().getTemplate().getMetadata().getAnnotations().put(MetadataKeys.RESTART_HASH, OLDER_RESTART_HASH);
            return d;
        });
    }

    private ObjectNode allocation(String ns, String name) throws Exception {
        ConfigMap published = client.configMaps()
                .inNamespace(ns)
                .withName(AllocationConfigMap.configMapName("Deployment", name))
                .get();
        return (ObjectNode) JSON.readTree(published.getData().get(MetadataKeys.ALLOCATION_KEY));
    }

    private String templateRestartHash(String ns, String name) {
        Deployment d =
                client.apps().deployments().inNamespace(ns).withName(name).get();
        Map<String, String> annotations =
                d.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? "" : Objects.requireNonNullElse(annotations.get(MetadataKeys.RESTART_HASH), "");
    }

    private WorkloadAllocationStatus row(String ns, String name) {
        StreamsMemoryPolicy policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(ns)
                .withName("orders")
                .get();
        return policy.getStatus().getWorkloads().stream()
                .filter(w -> w.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
