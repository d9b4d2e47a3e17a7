package io.streamsmemory.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** With kube-controller-manager (+ scheduler and kwok when built): Deployments produce Pods. */
@EnableLocalControlPlane(controllerManager = true, scheduler = true, kwok = true)
class WorkloadsTest {

    @Test
    void deploymentYieldsReplicaSetAndPods(KubernetesClient client, LocalControlPlane controlPlane) throws Exception {
        Map<String, String> labels = Map.of("app", "web");
        Deployment d = new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("nginx")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
        client.apps().deployments().inNamespace("default").resource(d).create();

        List<ReplicaSet> rs = await(
                () -> client.apps()
                        .replicaSets()
                        .inNamespace("default")
                        .withLabels(labels)
                        .list()
                        .getItems(),
                l -> !l.isEmpty());
        assertThat(rs.get(0).getMetadata().getOwnerReferences())
                .anyMatch(o -> o.getName().equals("web"));

        List<Pod> pods = await(
                () -> client.pods()
                        .inNamespace("default")
                        .withLabels(labels)
                        .list()
                        .getItems(),
                l -> l.size() == 2);
        assertThat(pods)
                .allMatch(p ->
                        p.getMetadata().getOwnerReferences().get(0).getKind().equals("ReplicaSet"));

        if (controlPlane.binaries().has("kwok")) {
            List<Pod> running = await(
                    () -> client.pods()
                            .inNamespace("default")
                            .withLabels(labels)
                            .list()
                            .getItems(),
                    l -> l.size() == 2
                            && l.stream()
                                    .allMatch(
                                            p -> "Running".equals(p.getStatus().getPhase())));
            assertThat(running).allMatch(p -> "kwok-node-0".equals(p.getSpec().getNodeName()));
        }
    }

    private static <T> T await(Supplier<T> supplier, Predicate<T> done) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        T last = supplier.get();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 60 s; last value: " + last);
            }
            Thread.sleep(250);
            last = supplier.get();
        }
        return last;
    }
}
