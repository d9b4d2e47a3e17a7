package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 10, case 5: deleting a policy never waits for the operator, which may be down or uninstalled.
 * Each test starts and stops its own operator.
 */
@EnableLocalControlPlane
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyDeletionTest {
    /** The finalizer the previous version added to every policy (java-operator-sdk's default name). */
    static final String PREVIOUS_FINALIZER = "streamsmemorypolicies.streamsmemory.io/finalizer";

    KubernetesClient client;

    @BeforeAll
    void installCrd() throws Exception {
        Fixtures.installCrd(client);
    }

    private StreamsMemoryPolicy policyIn(String namespace, String name) {
        return Fixtures.policyIn(client, namespace, name);
    }

    private boolean told(String namespace, String workload, String reason) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .anyMatch(e -> e.getInvolvedObject().getName().equals(workload)
                        && e.getReason().equals(reason));
    }

    @Test
    void aPolicyDeletedWhileTheOperatorIsStoppedDisappearsAndItsWorkloadsAreToldLater() {
        String ns = "operator-down";
        Fixtures.namespace(client, ns);
        try (RunningOperator operator = RunningOperator.start(client)) {
            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 3, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
        }
        Fixtures.deletePolicy(client, ns, "orders");

        try (RunningOperator operator = RunningOperator.start(client)) {
            await().atMost(WAIT).until(() -> told(ns, "orders-app", "PolicyNotFound"));
        }
        assertThat(configMap(client, ns, "orders-app")).isNotNull(); // it keeps its last allocation
    }

    @Test
    void theFinalizerThePreviousVersionLeftIsRemovedSoALaterDeletionNeverWaits() {
        String ns = "upgraded";
        Fixtures.namespace(client, ns);
        StreamsMemoryPolicy previous = policy(ns, "orders", "2Gi");
        previous.getMetadata().setFinalizers(List.of(PREVIOUS_FINALIZER));
        client.resource(previous).create();
        try (RunningOperator operator = RunningOperator.start(client)) {
            await().atMost(WAIT)
                    .until(() -> policyIn(ns, "orders").getStatus() != null
                            && policyIn(ns, "orders")
                                    .getMetadata()
                                    .getFinalizers()
                                    .isEmpty());
        }
        Fixtures.deletePolicy(client, ns, "orders");
    }
}
