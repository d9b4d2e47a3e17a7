package io.streamsmemory.operator.reconcile.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which of a Deployment's pods count as drift, and which of those a drift rollout could mend: only pods of the
 * template stamped with the current restart hash. A pod of an older template still in a pod list the reconciler
 * read before the Deployment's status said settled is one its ReplicaSet is replacing; counting it rolled a
 * workload right after the operator's own rollout and spent its one drift rollout (seen in FaultScenarios).
 */
class PodDriftTest {
    private static final String CURRENT = "r-current";
    private final Workload workload = Workload.of(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi"))
            .orElseThrow();

    private static Pod pod(String templateHash, Map<String, String> annotations) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("orders-app-" + templateHash + "-" + annotations.hashCode())
                .addToLabels(Workload.POD_TEMPLATE_HASH, templateHash)
                .withAnnotations(new HashMap<>(annotations))
                .addNewOwnerReference()
                .withKind("ReplicaSet")
                .withName("orders-app-" + templateHash)
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .build();
    }

    /** Injected by the webhook: its template's restart hash, and the flags of {@code appliedRestartHash}. */
    private static Pod injected(String templateRestartHash, String appliedRestartHash) {
        return pod(
                "new",
                Map.of(
                        MetadataKeys.RESTART_HASH, templateRestartHash,
                        MetadataKeys.ALLOCATION_HASH, "a",
                        MetadataKeys.APPLIED_RESTART_HASH, appliedRestartHash));
    }

    @Test
    void podsOfTheCurrentTemplateWithoutTheAgentAreDriftARolloutCanMend() {
        PodDrift.Count count = PodDrift.count(
                workload,
                CURRENT,
                List.of(pod("new", Map.of(MetadataKeys.RESTART_HASH, CURRENT)), injected(CURRENT, CURRENT)));
        assertThat(count.pods()).isEqualTo(2);
        assertThat(count.injected()).isEqualTo(1);
        assertThat(count.notInjected()).isEqualTo(1);
        assertThat(count.driftedFromTemplate()).isEqualTo(1);
    }

    @Test
    void podsOfAnOlderTemplateAreCountedButNeedNoDriftRollout() {
        PodDrift.Count count = PodDrift.count(
                workload,
                CURRENT,
                List.of(pod("old", Map.of()), pod("old", Map.of(MetadataKeys.RESTART_HASH, "r-older"))));
        assertThat(count.notInjected()).isEqualTo(2);
        assertThat(count.drifted()).isEqualTo(2);
        assertThat(count.driftedFromTemplate()).isZero();
    }

    @Test
    void aPodOfTheCurrentTemplateInjectedWithAnOlderAllocationIsDriftARolloutCanMend() {
        // the webhook answered from an allocation older than the one the template was stamped for
        PodDrift.Count count = PodDrift.count(workload, CURRENT, List.of(injected(CURRENT, "r-older")));
        assertThat(count.outdated()).isEqualTo(1);
        assertThat(count.driftedFromTemplate()).isEqualTo(1);
    }

    @Test
    void podsWithoutTheAgentOfAWorkloadAdmittedWithItsAllocationAreDriftARolloutCanMend() {
        // opted in with its pods already injected: the template was never stamped, so its pods carry no stamp
        var deployment = Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi");
        deployment.getMetadata().getAnnotations().put(MetadataKeys.ADMITTED_RESTART_HASH, CURRENT);
        PodDrift.Count count = PodDrift.count(
                Workload.of(deployment).orElseThrow(),
                CURRENT,
                List.of(pod("new", Map.of()), pod("new", Map.of(MetadataKeys.RESTART_HASH, "r-older"))));
        assertThat(count.notInjected()).isEqualTo(2);
        assertThat(count.driftedFromTemplate()).isEqualTo(1);
    }

    @Test
    void skippedPodsAndPodsOfOtherWorkloadsAreNoDrift() {
        Pod skipped = pod("new", Map.of(MetadataKeys.RESTART_HASH, CURRENT, MetadataKeys.INJECTION_SKIPPED, "why"));
        Pod other = new PodBuilder(pod("new", Map.of(MetadataKeys.RESTART_HASH, CURRENT)))
                .editMetadata()
                .editFirstOwnerReference()
                .withName("billing-new")
                .endOwnerReference()
                .endMetadata()
                .build();
        PodDrift.Count count = PodDrift.count(workload, CURRENT, List.of(skipped, other));
        assertThat(count.pods()).isEqualTo(1);
        assertThat(count.skipped()).isEqualTo(1);
        assertThat(count.drifted()).isZero();
        assertThat(count.driftedFromTemplate()).isZero();
    }
}
