package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static io.streamsmemory.operator.Fixtures.templateRestartHash;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * deploy/ as it runs in a cluster: the kustomization passes a server-side dry run, and the operator
 * does its whole job under the ServiceAccount and RBAC from deploy/rbac.yaml and the write policy of
 * deploy/writepolicy.yaml, leader election included.
 * A permission missing from deploy/ makes the operator fail here.
 */
@EnableLocalControlPlane(controllerManager = true)
class DeployManifestsTest extends UnderDeployedRbac {
    @Test
    void kustomizationPassesAServerSideDryRun() {
        Fixtures.namespace(client, OPERATOR_NAMESPACE);
        String output = controlPlane.kubectl(
                "apply", "-k", Path.of("../../deploy").toAbsolutePath().toString(), "--dry-run=server");
        assertThat(output)
                .contains(
                        "customresourcedefinition.apiextensions.k8s.io/streamsmemorypolicies.streamsmemory.io",
                        "clusterrole.rbac.authorization.k8s.io/streams-memory-operator",
                        "deployment.apps/streams-memory-operator",
                        "service/streams-memory-operator");
    }

    @Test
    void operatorDoesItsJobUnderTheDeployedRbacAndNothingMore() throws Exception {
        KubernetesClient asOperator = asDeployedOperator();
        // Least privilege: no secrets, no pod deletion, no CRD writes, no cluster-wide leases.
        assertThat(allowed(asOperator, "", "secrets", "get", "shop")).isFalse();
        assertThat(allowed(asOperator, "", "pods", "delete", "shop")).isFalse();
        assertThat(allowed(asOperator, "apiextensions.k8s.io", "customresourcedefinitions", "create", null))
                .isFalse();
        assertThat(allowed(asOperator, "coordination.k8s.io", "leases", "update", "shop"))
                .isFalse();
        assertThat(allowed(asOperator, "apps", "deployments", "update", "shop")).isFalse();
        // No finalizer of its own, so policies are only patched (to take off one an earlier version added).
        assertThat(allowed(asOperator, "streamsmemory.io", "streamsmemorypolicies", "update", "shop"))
                .isFalse();
        ClusterRole role =
                client.rbac().clusterRoles().withName("streams-memory-operator").get();
        assertThat(role.getRules())
                .noneMatch(rule ->
                        rule.getVerbs().contains("*") || rule.getResources().contains("*"));

        String ns = "shop";
        Fixtures.namespace(client, ns);
        try (RunningOperator operator =
                RunningOperator.startWithLeaderElection(asOperator, OPERATOR_NAMESPACE, "op-a")) {
            client.resource(policy(ns, "orders", "2Gi")).create();
            client.resource(deployment(ns, "orders-app", "orders", 3, "2Gi")).create();
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") != null);
            await().atMost(WAIT)
                    .until(() -> templateRestartHash(client.apps()
                                    .deployments()
                                    .inNamespace(ns)
                                    .withName("orders-app")
                                    .get())
                            != null);
            Fixtures.awaitWorkloadCount(client, ns, "orders", 1);
            await().atMost(WAIT)
                    .until(() -> client.v1().events().inNamespace(ns).list().getItems().stream()
                            .anyMatch(e -> e.getReason().equals("Allocated")));
            // Opt-out: the operator deletes the ConfigMap itself.
            Fixtures.edit(client.apps().deployments().inNamespace(ns).withName("orders-app"), d -> {
                d.getMetadata().getAnnotations().remove(MetadataKeys.POLICY);
                return d;
            });
            await().atMost(WAIT).until(() -> configMap(client, ns, "orders-app") == null);
            // Deleting the policy waits for nothing of the operator's (it adds no finalizer).
            Fixtures.deletePolicy(client, ns, "orders");
            operator.awaitKeepsLeading(); // under this RBAC the Lease is renewed
        }
        assertThat(client.leases()
                        .inNamespace(OPERATOR_NAMESPACE)
                        .withName("streams-memory-operator")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isEqualTo("op-a");
    }

    private static boolean allowed(KubernetesClient as, String group, String resource, String verb, String namespace) {
        return Fixtures.allowed(as, group, resource, verb, namespace, null);
    }
}
