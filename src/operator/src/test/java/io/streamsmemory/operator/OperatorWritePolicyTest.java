package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.reconcile.act.RolloutStamper;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * deploy/writepolicy.yaml on a real API server, impersonating the operator's ServiceAccount under deploy/rbac.yaml:
 * what the operator writes (its restart-hash stamp and admitted record through its own {@link RolloutStamper}, its
 * ConfigMaps, its TLS Secret) is allowed, and every write its RBAC would allow but it has no business making (an
 * image, an env var, a scale, a user's annotation or ConfigMap, another Secret) is denied with the policy's message.
 * DeployManifestsTest then runs the whole operator under the same policy.
 */
@EnableLocalControlPlane(controllerManager = true)
class OperatorWritePolicyTest extends UnderDeployedRbac {
    private static final String NS = "guarded";
    private static final String DENIED_BY = "streams-memory-operator-";
    private static final String ALLOWED = "allowed";

    @Test
    void theOperatorsServiceAccountMayWriteOnlyWhatItOwns() throws Exception {
        KubernetesClient asOperator = asDeployedOperator();
        Fixtures.namespace(client, NS);
        client.resource(Fixtures.deployment(NS, "orders-app", "orders", 2, "2Gi"))
                .create();
        client.resource(Fixtures.statefulSet(NS, "orders-sts", "orders", 2, "2Gi"))
                .create();
        client.resource(configMap("user-settings", Map.of())).create();
        client.resource(configMap(
                        "orders-app-deployment-streams-memory",
                        Map.of(MetadataKeys.MANAGED_BY_LABEL, MetadataKeys.MANAGED_BY)))
                .create();
        // The API server loads a new policy within a second or so, each of the two on its own (and later when one of
        // the same name was deleted a moment before, as a class before this one in the shared control plane does):
        // wait until a harmless forbidden write is denied by each, the second on a Deployment only this probe uses.
        await().atMost(WAIT)
                .until(() -> denied(() -> asOperator
                                .resource(configMap("probe-" + UUID.randomUUID(), Map.of()))
                                .create())
                        != null);
        client.resource(Fixtures.deployment(NS, "probe-app", "orders", 1, "2Gi"))
                .create();
        await().atMost(WAIT)
                .until(() -> denied(() -> asOperator
                                .apps()
                                .deployments()
                                .inNamespace(NS)
                                .withName("probe-app")
                                .edit(d -> {
                                    d.getSpec()
                                            .getTemplate()
                                            .getSpec()
                                            .getContainers()
                                            .get(0)
                                            .setImage("example.test/probe:" + UUID.randomUUID());
                                    return d;
                                }))
                        != null);

        // Allowed: the operator's own writes, made by its own code.
        RolloutStamper stamper = new RolloutStamper(asOperator, new RolloutGate(Duration.ZERO));
        stamper.stamp(workload(deployment()), "restart-1");
        stamper.stamp(workload(statefulSet()), "restart-1");
        stamper.recordAdmitted(workload(deployment()), "restart-1");
        assertThat(Fixtures.templateRestartHash(deployment())).isEqualTo("restart-1");
        ConfigMap own = configMap("orders-sts-statefulset-streams-memory", operatorLabels());
        asOperator.resource(own).create();
        own.getData().put("allocation.json", "{}");
        asOperator
                .resource(own)
                .fieldManager(MetadataKeys.FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
        asOperator.resource(own).delete();
        asOperator
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("streams-memory-operator-webhook-tls")
                        .withNamespace(OPERATOR_NAMESPACE)
                        .endMetadata()
                        .addToStringData("ca.crt", "test")
                        .build())
                .create();

        // Forbidden: each allowed by the RBAC, each denied by the policy with its message.
        List<Forbidden> forbidden = List.of(
                new Forbidden(
                        "change the image",
                        "pod spec",
                        () -> editContainer(asOperator, c -> c.setImage("example.test/other:1"))),
                new Forbidden(
                        "add an env var",
                        "pod spec",
                        () -> editContainer(
                                asOperator,
                                c -> c.getEnv()
                                        .add(new EnvVar("JAVA_TOOL_OPTIONS", "-javaagent:/tmp/evil.jar", null)))),
                new Forbidden("scale", "replicas", () -> scale(asOperator, 5)),
                new Forbidden(
                        "change a user annotation",
                        "annotations",
                        () -> editDeployment(
                                asOperator,
                                d -> d.getMetadata().getAnnotations().put("team", "other"))),
                new Forbidden(
                        "change the pod template labels",
                        "labels",
                        () -> editDeployment(
                                asOperator,
                                d -> d.getSpec()
                                        .getTemplate()
                                        .getMetadata()
                                        .getLabels()
                                        .put("version", "2"))),
                new Forbidden(
                        "change a StatefulSet image",
                        "pod spec",
                        () -> asOperator
                                .apps()
                                .statefulSets()
                                .inNamespace(NS)
                                .withName("orders-sts")
                                .edit(s -> {
                                    s.getSpec()
                                            .getTemplate()
                                            .getSpec()
                                            .getContainers()
                                            .get(0)
                                            .setImage("example.test/other:1");
                                    return s;
                                })),
                new Forbidden(
                        "edit a user ConfigMap",
                        "ConfigMaps it publishes",
                        () -> asOperator
                                .configMaps()
                                .inNamespace(NS)
                                .withName("user-settings")
                                .edit(c -> {
                                    c.getData().put("password", "changed");
                                    return c;
                                })),
                new Forbidden(
                        "create an unlabelled ConfigMap",
                        "ConfigMaps it publishes",
                        () -> asOperator
                                .resource(configMap("unlabelled", Map.of()))
                                .create()),
                new Forbidden(
                        "take the managed-by label off",
                        "ConfigMaps it publishes",
                        () -> asOperator
                                .configMaps()
                                .inNamespace(NS)
                                .withName("orders-app-deployment-streams-memory")
                                .edit(c -> {
                                    c.getMetadata().getLabels().remove(MetadataKeys.MANAGED_BY_LABEL);
                                    return c;
                                })),
                new Forbidden(
                        "delete a user ConfigMap",
                        "ConfigMaps it publishes",
                        () -> asOperator
                                .configMaps()
                                .inNamespace(NS)
                                .withName("user-settings")
                                .delete()),
                new Forbidden(
                        "create another Secret",
                        "own Secret",
                        () -> asOperator
                                .resource(new SecretBuilder()
                                        .withNewMetadata()
                                        .withName("other-secret")
                                        .withNamespace(OPERATOR_NAMESPACE)
                                        .endMetadata()
                                        .addToStringData("token", "x")
                                        .build())
                                .create()));
        int denied = 0;
        for (Forbidden write : forbidden) {
            // Until the API server answers with the policy or lets the write through: any other refusal (a timeout, a
            // conflict with a status update) is no answer, and the write is tried again. A write let through fails
            // here, with "allowed" for its message.
            String message = await().atMost(WAIT)
                    .until(() -> outcome(write.write()), m -> m.contains(DENIED_BY) || m.equals(ALLOWED));
            assertThat(message)
                    .as(write.what())
                    .contains("streams-memory-operator may")
                    .contains(write.message());
            denied++;
        }
        // Nothing forbidden got through.
        assertThat(deployment().getSpec().getReplicas()).isEqualTo(2);
        assertThat(deployment()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isNotEqualTo("example.test/other:1");
        assertThat(client.configMaps().inNamespace(NS).withName("user-settings").get())
                .isNotNull();
        System.out.printf("trust-writes: forbidden_writes_denied=%d/%d allowed_writes=ok%n", denied, forbidden.size());
    }

    /** A write the operator's RBAC allows and the policy forbids, and a word of the message it is denied with. */
    private record Forbidden(String what, String message, Runnable write) {}

    /** The message a write was denied with, or null when it went through (or failed for another reason). */
    private static String denied(Runnable write) {
        String outcome = outcome(write);
        return outcome.contains(DENIED_BY) ? outcome : null;
    }

    /** The API server's message when it refused the write, {@link #ALLOWED} when the write went through. */
    private static String outcome(Runnable write) {
        try {
            write.run();
            return ALLOWED;
        } catch (KubernetesClientException e) {
            return String.valueOf(e.getMessage());
        }
    }

    private static void scale(KubernetesClient asOperator, int replicas) {
        editDeployment(asOperator, d -> d.getSpec().setReplicas(replicas));
    }

    /** Edits the first container of Deployment orders-app's pod template. */
    private static void editContainer(KubernetesClient asOperator, java.util.function.Consumer<Container> change) {
        editDeployment(
                asOperator,
                d -> change.accept(
                        d.getSpec().getTemplate().getSpec().getContainers().get(0)));
    }

    private static void editDeployment(KubernetesClient asOperator, java.util.function.Consumer<Deployment> change) {
        asOperator.apps().deployments().inNamespace(NS).withName("orders-app").edit(d -> {
            change.accept(d);
            return d;
        });
    }

    private Deployment deployment() {
        return client.apps()
                .deployments()
                .inNamespace(NS)
                .withName("orders-app")
                .get();
    }

    private StatefulSet statefulSet() {
        return client.apps()
                .statefulSets()
                .inNamespace(NS)
                .withName("orders-sts")
                .get();
    }

    private static Workload workload(HasMetadata resource) {
        return Workload.of(resource).orElseThrow();
    }

    private static Map<String, String> operatorLabels() {
        return Map.of(MetadataKeys.MANAGED_BY_LABEL, MetadataKeys.MANAGED_BY);
    }

    private static ConfigMap configMap(String name, Map<String, String> labels) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .withLabels(labels)
                .endMetadata()
                .addToData("key", "value")
                .build();
    }
}
