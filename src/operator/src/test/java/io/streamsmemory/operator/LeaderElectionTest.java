package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Two operator instances: one Lease holder reconciles; when it stops, the other takes over. */
@EnableLocalControlPlane
class LeaderElectionTest {
    KubernetesClient client;

    @Test
    void onlyTheLeaderReconcilesAndTheStandbyTakesOver() throws Exception {
        Fixtures.installCrd(client);
        String lockNamespace = "operators";
        Fixtures.namespace(client, lockNamespace);
        String ns = "apps";
        Fixtures.namespace(client, ns);

        RunningOperator first = RunningOperator.startWithLeaderElection(client, lockNamespace, "first");
        await().atMost(WAIT).until(() -> holder(lockNamespace) != null);
        RunningOperator second = RunningOperator.startWithLeaderElection(client, lockNamespace, "second");
        try {
            assertThat(holder(lockNamespace)).isEqualTo("first");
            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "one", "orders", 3, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "one") != null);

            first.close();
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> "second".equals(holder(lockNamespace)));
            client.resource(deployment(ns, "two", "orders", 3, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "two") != null);
        } finally {
            second.close();
        }
    }

    private String holder(String namespace) {
        var lease = client.leases().inNamespace(namespace).withName("streams-memory-operator").get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }
}
