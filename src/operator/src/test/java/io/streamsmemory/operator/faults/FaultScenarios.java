package io.streamsmemory.operator.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.OnAControlPlaneOfItsOwn;
import io.streamsmemory.operator.PackagedOperator;
import io.streamsmemory.operator.app.LeaseLeaderElection;
import io.streamsmemory.operator.faults.FaultLedger.Convergence;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The packaged operator under faults, on a real control plane of its own, in the lane beside the main thread's classes
 * ({@code make test}; {@code make test-faults} runs it alone): the first four scenarios publish 50 workloads, change the policy, hit the operator
 * or the control plane once the operator has begun re-splitting, and then require that it converged with nothing
 * lost and no workload rolled twice (see {@link ManagedWorkloads} for what is checked); the fifth stops the webhook
 * while pods are created. The operator runs as deploy/ runs it, supervised as the kubelet would (an exited process is
 * started again). The summary line goes to {@code target/faults/summary.txt}; {@code make test} prints it.
 */
@OnAControlPlaneOfItsOwn
@EnableLocalControlPlane(ownControlPlane = true, controllerManager = true, scheduler = true, kwok = true)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultScenarios {
    private static final int WORKLOADS = 50;
    /** The webhook scenario's workloads and their pods (kwok runs them). */
    private static final int WORKLOADS_WITH_PODS = 10;

    private static final int REPLICAS = 2;
    private static final String OPERATOR_NAMESPACE = "streams-memory-system";
    /** Generous: a follower takes over only once the killed leader's Lease expires. */
    private static final Duration CONVERGE = Duration.ofSeconds(120);

    KubernetesClient client;
    LocalControlPlane controlPlane;
    private final FaultLedger ledger = new FaultLedger();
    /** One operator replica for all scenarios, as in a cluster; the last scenario ends it for good. */
    private OperatorProcess operator;

    @BeforeAll
    void installCrd() throws Exception {
        Fixtures.installCrd(client);
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(OPERATOR_NAMESPACE)
                        .endMetadata()
                        .build())
                .serverSideApply();
        operator = operator("operator-0");
    }

    @AfterAll
    void writeSummary() throws Exception {
        operator.close();
        ledger.write();
    }

    @Test
    @Order(1)
    void operatorKilledWhileReSplitting() throws Exception {
        ReSplit reSplit = startReSplit("kill-operator");
        operator.kill9();
        record(
                "operator killed -9 with " + reSplit.done() + "/" + WORKLOADS + " re-split",
                reSplit.workloads().awaitConverged(2, CONVERGE));
        assertThat(operator.starts()).as("started again after kill -9").isGreaterThan(reSplit.operatorStarts());
    }

    @Test
    @Order(2)
    void apiServerRestartedWhileReSplitting() throws Exception {
        ReSplit reSplit = startReSplit("restart-apiserver");
        new ControlPlaneFaults(controlPlane).restartApiServer();
        record(
                "kube-apiserver restarted with " + reSplit.done() + "/" + WORKLOADS + " re-split",
                reSplit.workloads().awaitConverged(2, CONVERGE));
    }

    @Test
    @Order(3)
    void etcdFrozenForTenSeconds() throws Exception {
        ReSplit reSplit = startReSplit("freeze-etcd");
        new ControlPlaneFaults(controlPlane).freezeEtcd(Duration.ofSeconds(10));
        Convergence result = reSplit.workloads().awaitConverged(2, CONVERGE);
        record(
                "etcd frozen 10 s with " + reSplit.done() + "/" + WORKLOADS + " re-split (operator restarted "
                        + (operator.starts() - reSplit.operatorStarts()) + "x)",
                result);
    }

    @Test
    @Order(4)
    void leaderKilledFollowerTakesOver() throws Exception {
        ManagedWorkloads workloads = ManagedWorkloads.create(client, "kill-leader", WORKLOADS, CONVERGE);
        try (OperatorProcess follower = operator("operator-1")) {
            assertThat(leaseHolder()).isEqualTo(operator.identity());
            // The leader's node is gone: no SIGTERM, no Lease release; only the follower can finish the change.
            operator.killForGood();
            workloads.changeThreads(2);
            record("leader killed, follower took over", workloads.awaitConverged(2, CONVERGE));
            assertThat(leaseHolder()).isEqualTo(follower.identity());
        }
    }

    @Test
    @Order(5)
    void webhookStoppedWhilePodsAreCreated() throws Exception {
        int port = PackagedOperator.freePort();
        Fixtures.installWebhookConfiguration(client, port);
        try (OperatorProcess withWebhook = operator(
                "operator-2",
                "-Dstreamsmemory.webhook.enabled=true",
                "-Dstreamsmemory.webhook.port=" + port,
                "-Dstreamsmemory.webhook.extra-sans=IP:127.0.0.1",
                "-Dstreamsmemory.webhook.refresh-period=PT1S")) {
            operator = withWebhook; // its log goes with a failure
            ManagedWorkloads workloads =
                    ManagedWorkloads.create(client, "stop-webhook", WORKLOADS_WITH_PODS, REPLICAS, CONVERGE);
            int[] created = new int[1];
            // failurePolicy Ignore: the pods start without the agent; the operator, back, rolls each workload once.
            withWebhook.downWhile(() -> created[0] = workloads.recreatePods(CONVERGE));
            record("webhook stopped while " + created[0] + " pods were created", workloads.awaitConverged(4, CONVERGE));
        }
    }

    private OperatorProcess operator(String identity, String... jvmArgs) throws Exception {
        return new OperatorProcess(identity, controlPlane.kubeconfigPath(), OPERATOR_NAMESPACE, jvmArgs);
    }

    private String leaseHolder() {
        var lease = client.leases()
                .inNamespace(OPERATOR_NAMESPACE)
                .withName(LeaseLeaderElection.LEASE_NAME)
                .get();
        return lease == null ? "" : lease.getSpec().getHolderIdentity();
    }

    private void record(String scenario, Convergence result) {
        ledger.record(scenario, result);
        assertThat(result.converged())
                .as(scenario + ": " + result.detail() + " (operator log: " + operator.log() + ")")
                .isTrue();
        assertThat(result.extraRollouts())
                .as(scenario + ": workloads rolled more than once")
                .isZero();
    }

    /**
     * A scenario's workloads once their move to 2 threads has begun: how many were re-split by then, and how many
     * times the operator had started before.
     */
    private record ReSplit(ManagedWorkloads workloads, int done, int operatorStarts) {}

    /** Creates the workloads, moves them to 2 threads and waits (60 s at most) until one is re-split. */
    private ReSplit startReSplit(String namespace) throws InterruptedException {
        ManagedWorkloads workloads = ManagedWorkloads.create(client, namespace, WORKLOADS, CONVERGE);
        int operatorStarts = operator.starts();
        workloads.changeThreads(2);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (workloads.publishedFor(2) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return new ReSplit(workloads, workloads.publishedFor(2), operatorStarts);
    }
}
