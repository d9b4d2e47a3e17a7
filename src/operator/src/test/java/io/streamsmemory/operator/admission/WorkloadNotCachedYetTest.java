package io.streamsmemory.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.workload.WorkloadCache;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A Deployment created a moment ago can have its first pods admitted before the webhook's cache has its watch event
 * (a Deployment applied with its policy, on a busy operator). The webhook then reads the workload from the API server
 * instead of taking the pod for one of no opted-in workload, which would leave it without the agent.
 */
@EnableLocalControlPlane
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkloadNotCachedYetTest {
    private static final String NS = "not-cached-yet";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    KubernetesClient client;

    @Test
    void aPodOfAWorkloadTheCacheHasNotSeenIsResolvedFromTheApiServer() throws Exception {
        Fixtures.namespace(client, NS);
        // A cache that filled and then stopped: it never sees the Deployment created below, as a lagging watch.
        WorkloadCache cache = new WorkloadCache(client).start(Duration.ofSeconds(30));
        cache.close();
        client.resource(Fixtures.deployment(NS, "orders-app", "orders", 1, "2Gi"))
                .create();
        assertThat(cache.workload("Deployment", NS, "orders-app")).isNull();

        WorkloadIndex index = new WorkloadIndex(client, null, cache);
        Optional<WorkloadIndex.Resolution> resolved = index.resolve(NS, podOf("orders-app"), true);
        assertThat(resolved).isPresent();
        assertThat(resolved.get().target().workload().getMetadata().getName()).isEqualTo("orders-app");
        // Nothing is published for it yet: the pod is told so, not taken for a bystander's.
        assertThat(resolved.get().problem()).contains("no allocation is published for Deployment orders-app");

        // A pod whose workload does not exist at all is still nobody's.
        assertThat(index.resolve(NS, podOf("gone-app"), true)).isEmpty();
    }

    /** A pod as its Deployment's ReplicaSet creates it. */
    private static JsonNode podOf(String deployment) throws Exception {
        String hash = "5d8f7c9b4";
        return MAPPER.readTree(String.format(
                "{\"metadata\":{\"labels\":{\"pod-template-hash\":\"%s\"},\"ownerReferences\":[{\"apiVersion\":"
                        + "\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"%s-%s\",\"uid\":\"u\",\"controller\":true}]},"
                        + "\"spec\":{\"containers\":[{\"name\":\"streams\",\"image\":\"app:1\"}]}}",
                hash, deployment, hash));
    }
}
