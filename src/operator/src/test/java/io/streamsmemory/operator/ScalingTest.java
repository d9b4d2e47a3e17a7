package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static io.streamsmemory.operator.Fixtures.templateRestartHash;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.ScalingSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Scaling never restarts pods: the JVM flags and RocksDB settings are planned for the workload's replica range, so
 * a replica change inside it only re-publishes what Kafka Streams reads at its next start; below the range the
 * operator rolls once, for safety; and every operator-initiated rollout waits for its rate limit. On a real API
 * server whose controllers run the pods (kwok), so rollouts complete and "a rollout in progress" is real.
 */
@EnableLocalControlPlane(controllerManager = true, scheduler = true, kwok = true)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScalingTest {
    /** Short, so the tests can watch a rollout wait for it and then start. */
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(15);

    private static final Duration WAIT = Duration.ofSeconds(60);
    KubernetesClient client;
    private RunningOperator operator;

    @BeforeAll
    void startOperator() throws Exception {
        Fixtures.installCrd(client);
        operator = RunningOperator.start(client, new RolloutGate(MIN_INTERVAL));
    }

    @AfterAll
    void stopOperator() {
        operator.close();
    }

    @Test
    void scalingUpAndDownRestartsNoPod() {
        String ns = "scale";
        publish(ns, policy(ns, "orders", "2Gi"), 3);
        String stamped = templateRestartHash(deploymentIn(ns));
        AllocationDocument atThree = document(ns);
        assertThat(row(ns).getReplicaRange()).isEqualTo("1-3");

        for (int replicas : new int[] {4, 6, 2, 1}) {
            scale(ns, replicas);
            AllocationDocument scaled = document(ns);
            assertThat(scaled.restartHash())
                    .as("restart hash at %d replicas", replicas)
                    .isEqualTo(atThree.restartHash());
            assertThat(scaled.jvmOptions()).isEqualTo(atThree.jvmOptions());
            assertThat(scaled.rocksdb()).isEqualTo(atThree.rocksdb());
        }
        // Kafka Streams' input buffers follow the count (published, no roll): 24 tasks on one pod now.
        assertThat(document(ns).topology().activeTasksPerPod()).isEqualTo(24);
        assertThat(templateRestartHash(deploymentIn(ns))).isEqualTo(stamped);
        // the opt-in's (posted after the stamp it tells of), none for scaling
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events(ns, "RollingRestart")).hasSize(1));
        assertThat(row(ns).getRestartPending()).isFalse();
    }

    @Test
    void anAutoscalersRangeIsWhatThePlanHoldsFor() {
        String ns = "autoscaled";
        Fixtures.namespace(client, ns);
        client.resource(new HorizontalPodAutoscalerBuilder()
                        .withNewMetadata()
                        .withName("orders-app")
                        .withNamespace(ns)
                        .endMetadata()
                        .withNewSpec()
                        .withMinReplicas(3)
                        .withMaxReplicas(8)
                        .withNewScaleTargetRef()
                        .withApiVersion("apps/v1")
                        .withKind("Deployment")
                        .withName("orders-app")
                        .endScaleTargetRef()
                        .endSpec()
                        .build())
                .create();
        publish(ns, policy(ns, "orders", "2Gi"), 3);

        await().atMost(WAIT).until(() -> "3-8".equals(row(ns).getReplicaRange()));
        WorkloadAllocationStatus row = row(ns);
        assertThat(row.getReplicaRangeSource()).isEqualTo("HorizontalPodAutoscaler orders-app");
        // Sized for the busiest pod: 2 pods of the fewest (one restarting) hold 12 active tasks, each with 5 RocksDB
        // instances (2 key-value stores + a window store's 3 segments); 3 pods hold 8 tasks each now.
        assertThat(row.getPlannedRocksDbInstances()).isEqualTo(60L);
        assertThat(row.getRocksDbInstances()).isEqualTo(40L);
        assertThat(condition(ns, "Warning").getStatus()).isEqualTo("False");
    }

    @Test
    void belowThePolicysRangeTheWorkloadRollsOnceForSafetyWithinTheRateLimit() {
        String ns = "below-range";
        publish(ns, rangedPolicy(ns, 3, 6), 4);
        String stamped = templateRestartHash(deploymentIn(ns));
        assertThat(row(ns).getReplicaRange()).isEqualTo("3-6");

        scale(ns, 1);
        // Outside the range: a Warning condition, and one rollout for safety, once the rate limit allows it.
        await().atMost(WAIT).until(() -> "True".equals(condition(ns, "Warning").getStatus()));
        assertThat(condition(ns, "Warning").getMessage()).contains("outside the range 3-6");
        await().atMost(WAIT).until(() -> !templateRestartHash(deploymentIn(ns)).equals(stamped));
        assertThat(templateRestartHash(deploymentIn(ns))).isEqualTo(document(ns).restartHash());
        // Events are posted after the stamp they tell of.
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(events(ns, "RollingRestart"))
                    .anyMatch(e -> e.getMessage().contains("below the range 3-6"));
            assertThat(events(ns, "RestartPending"))
                    .anyMatch(e -> e.getMessage().contains("at most once every PT15S"));
            assertThat(events(ns, "RollingRestart")).hasSize(2);
        });
    }

    @Test
    void whenOnePodCannotHoldEveryTaskTheDefaultRangeStartsAtTheFewestThatCan() {
        String ns = "large";
        StreamsMemoryPolicy policy = policy(ns, "orders", "2Gi");
        policy.getSpec().getStreams().setPartitions(480); // 2,400 RocksDB instances: not on one 2Gi pod
        publish(ns, policy, 8);

        WorkloadAllocationStatus row = row(ns);
        // 3 since the model's measured 320 KiB per RocksDB instance (was 4 with the 512 KiB estimate).
        assertThat(row.getReplicaRange()).isEqualTo("3-8");
        assertThat(row.getReplicaRangeSource()).contains("the fewest replicas whose tasks the pod's memory holds");
        assertThat(row.getMessage()).isNull();
        assertThat(condition(ns, "Ready").getStatus()).isEqualTo("True");
    }

    @Test
    void manualRolloutOnlyReportsAScaleBelowTheRange() {
        String ns = "below-range-manual";
        StreamsMemoryPolicy policy = rangedPolicy(ns, 3, null);
        policy.getSpec().setRollout(Rollout.Manual);
        publish(ns, policy, 3);
        String before = templateRestartHash(deploymentIn(ns));

        scale(ns, 1);
        await().atMost(WAIT).until(() -> Boolean.TRUE.equals(row(ns).getRestartPending()));
        assertThat(templateRestartHash(deploymentIn(ns))).isEqualTo(before);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events(ns, "RestartPending"))
                        .anyMatch(e -> e.getMessage().contains("rollout is Manual")));
    }

    /** The policy "orders" of 2Gi, its scaling range from {@code minReplicas} to {@code maxReplicas} (null: unset). */
    private static StreamsMemoryPolicy rangedPolicy(String ns, Integer minReplicas, Integer maxReplicas) {
        StreamsMemoryPolicy policy = policy(ns, "orders", "2Gi");
        ScalingSpec scaling = new ScalingSpec();
        scaling.setMinReplicas(minReplicas);
        scaling.setMaxReplicas(maxReplicas);
        policy.getSpec().setScaling(scaling);
        return policy;
    }

    /** The policy and Deployment "orders-app" at {@code replicas}, once published and stamped. */
    private void publish(String ns, StreamsMemoryPolicy policy, int replicas) {
        Fixtures.namespace(client, ns);
        client.resource(policy).create();
        client.resource(deployment(ns, "orders-app", "orders", replicas, "2Gi")).create();
        await().atMost(WAIT)
                .until(() -> configMap(client, ns, "orders-app") != null
                        && row(ns) != null
                        && (policy.getSpec().getRollout() == Rollout.Manual
                                || templateRestartHash(deploymentIn(ns)) != null));
    }

    /** Scales as {@code kubectl scale} does and waits until the allocation is re-split for the new count. */
    private void scale(String ns, int replicas) {
        client.apps().deployments().inNamespace(ns).withName("orders-app").scale(replicas);
        await().atMost(WAIT).until(() -> document(ns).inputs().replicas() == replicas);
    }

    private Deployment deploymentIn(String ns) {
        return client.apps()
                .deployments()
                .inNamespace(ns)
                .withName("orders-app")
                .get();
    }

    private AllocationDocument document(String ns) {
        ConfigMap configMap = configMap(client, ns, "orders-app");
        return AllocationJson.read(configMap.getData().get(MetadataKeys.ALLOCATION_KEY));
    }

    private WorkloadAllocationStatus row(String ns) {
        StreamsMemoryPolicy policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(ns)
                .withName("orders")
                .get();
        if (policy == null || policy.getStatus() == null || policy.getStatus().getWorkloads() == null) {
            return null;
        }
        return policy.getStatus().getWorkloads().stream().findFirst().orElse(null);
    }

    private Condition condition(String ns, String type) {
        return Fixtures.condition(Fixtures.policyIn(client, ns, "orders"), type).orElseThrow();
    }

    private List<Event> events(String ns, String reason) {
        return Fixtures.events(client, ns, "orders-app", reason);
    }
}
