package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicyStatus;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A policy's reconcile lists its namespace's pods at most once, whatever the number of its workloads (drift is
 * counted from one list, {@code NamespacePods}): counted by the kube-apiserver itself
 * ({@code apiserver_request_total} on its /metrics), against the policy's status writes (one per reconcile).
 */
@EnableLocalControlPlane
@WithRunningOperator
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodListsPerReconcileTest {
    private static final int WORKLOADS = 20;
    private static final String NS = "many";
    KubernetesClient client;
    private RunningOperator operator;

    @Test
    void aPolicyChangeListsPodsOncePerReconcileNotOncePerWorkload() throws InterruptedException {
        Fixtures.namespace(client, NS);
        StreamsMemoryPolicy policy = Fixtures.policy(NS, "orders", "2Gi");
        policy.getSpec().setRollout(Rollout.Manual);
        client.resource(policy).create();
        IntStream.range(0, WORKLOADS)
                .parallel()
                .forEach(i -> client.resource(Fixtures.deployment(NS, String.format("app-%02d", i), "orders", 0, "2Gi"))
                        .create());
        await().atMost(WAIT).until(() -> allRowsHaveThreads(4));
        settle();

        double listsBefore = requests(PodListsPerReconcileTest::podList);
        double reconcilesBefore = requests(PodListsPerReconcileTest::policyStatusWrite);
        client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NS)
                .withName("orders")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"streams\":{\"threads\":2}}}");
        await().atMost(WAIT).until(() -> allRowsHaveThreads(2));
        settle();
        double podLists = requests(PodListsPerReconcileTest::podList) - listsBefore;
        double reconciles = requests(PodListsPerReconcileTest::policyStatusWrite) - reconcilesBefore;

        System.out.printf(
                "re-split of %d workloads: %.0f pod LIST(s) in %.0f policy reconcile(s)%n",
                WORKLOADS, podLists, reconciles);
        assertThat(reconciles).as("policy reconciles (status writes)").isPositive();
        assertThat(podLists).as("pod LISTs: drift is counted, from one list").isPositive();
        assertThat(podLists)
                .as("pod LISTs, at most one per policy reconcile")
                .isLessThanOrEqualTo(reconciles)
                .isLessThan(WORKLOADS);
    }

    /** Lets the reconciles the last changes started (ConfigMap and status events) finish. */
    private static void settle() throws InterruptedException {
        Thread.sleep(2000);
    }

    private boolean allRowsHaveThreads(int threads) {
        StreamsMemoryPolicy policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NS)
                .withName("orders")
                .get();
        StreamsMemoryPolicyStatus status = policy == null ? null : policy.getStatus();
        return status != null
                && status.getWorkloads() != null
                && status.getWorkloads().size() == WORKLOADS
                && status.getWorkloads().stream().allMatch(row -> Objects.equals(row.getThreads(), threads));
    }

    private static boolean podList(Map<String, String> labels) {
        return "pods".equals(labels.get("resource")) && "LIST".equals(labels.get("verb"));
    }

    private static boolean policyStatusWrite(Map<String, String> labels) {
        return "streamsmemorypolicies".equals(labels.get("resource"))
                && "status".equals(labels.get("subresource"))
                && !Set.of("GET", "LIST", "WATCH").contains(labels.get("verb"));
    }

    private double requests(Predicate<Map<String, String>> which) {
        return ApiServerRequests.sum(client, which);
    }
}
