package io.streamsmemory.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operator publishes a workload's ConfigMap, then stamps its template; the pods of that rollout can reach
 * the webhook before its ConfigMap cache has the write. The webhook then reads the ConfigMap past the cache
 * instead of admitting the pod without the agent or with the older allocation (each would spend the workload's
 * one drift rollout). The real API server's side of it runs in FaultScenarios' webhook scenario.
 */
class LateAllocationTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final Deployment deployment = Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi");
    private final Workload workload;
    private final ConfigMap older;
    private final ConfigMap current;
    private final WorkloadIndex index =
            new WorkloadIndex(null, null, null); // the caches are passed in; nothing is started
    private final List<String> reads = new ArrayList<>();

    LateAllocationTest() {
        deployment.getMetadata().setUid("8d3e6d2c-0000-4000-8000-000000000001");
        workload = Workload.of(deployment).orElseThrow();
        older = stored(AllocationConfigMap.desired("orders", workload, allocation(2), ""), "101");
        current = stored(AllocationConfigMap.desired("orders", workload, allocation(4), ""), "102");
    }

    /** As the API server returns it: one ConfigMap (one uid), at the resourceVersion of the write. */
    private static ConfigMap stored(ConfigMap configMap, String resourceVersion) {
        configMap.getMetadata().setUid("8d3e6d2c-0000-4000-8000-000000000002");
        configMap.getMetadata().setResourceVersion(resourceVersion);
        return configMap;
    }

    private static Allocation allocation(int threads) {
        return Fixtures.smallAllocation(2 * ByteSize.GiB, threads);
    }

    private static String restartHash(ConfigMap configMap) {
        return configMap.getMetadata().getAnnotations().get(MetadataKeys.RESTART_HASH);
    }

    /** A pod of the workload's template as the operator stamped it (or not, for null). */
    private static JsonNode pod(String stampedRestartHash) {
        var metadata = MAPPER.createObjectNode();
        if (stampedRestartHash != null) {
            metadata.putObject("annotations").put(MetadataKeys.RESTART_HASH, stampedRestartHash);
        }
        var pod = MAPPER.createObjectNode();
        pod.set("metadata", metadata);
        return pod;
    }

    private ConfigMap resolve(ConfigMap cached, JsonNode pod, ConfigMap onTheServer) {
        return index.currentConfigMap(cached, "orders-app-deployment-streams-memory", deployment, pod, name -> {
            reads.add(name);
            return onTheServer;
        });
    }

    @Test
    void theAllocationsDifferSoTheTestCanTellThemApart() {
        assertThat(restartHash(older)).isNotEqualTo(restartHash(current));
    }

    @Test
    void aPodStampedForTheCachedAllocationCostsNoRead() {
        assertThat(resolve(current, pod(restartHash(current)), current)).isSameAs(current);
        assertThat(reads).isEmpty();
    }

    @Test
    void aPodOfAnUnstampedTemplateTakesTheCachedAllocation() {
        // rollout Manual: the operator never stamps, so the pod names no allocation to wait for
        assertThat(resolve(older, pod(null), current)).isSameAs(older);
        assertThat(resolve(null, pod(null), current)).isNull();
        assertThat(reads).isEmpty();
    }

    @Test
    void aPodCreatedBeforeTheCacheHasTheConfigMapGetsItFromTheApiServer() {
        assertThat(resolve(null, pod(restartHash(current)), current)).isSameAs(current);
        assertThat(reads).containsExactly("orders-app-deployment-streams-memory");
    }

    @Test
    void aPodStampedForANewerAllocationThanTheCachedOneGetsTheNewer() {
        assertThat(resolve(older, pod(restartHash(current)), current)).isSameAs(current);
        assertThat(reads).hasSize(1);
    }

    @Test
    void aReadThatFailsOrFindsNothingLeavesTheCachedAnswer() {
        assertThat(resolve(older, pod(restartHash(current)), null)).isSameAs(older);
        ConfigMap answer = index.currentConfigMap(older, "x", deployment, pod(restartHash(current)), name -> {
            throw new java.util.concurrent.TimeoutException("late");
        });
        assertThat(answer).isSameAs(older);
    }
}
