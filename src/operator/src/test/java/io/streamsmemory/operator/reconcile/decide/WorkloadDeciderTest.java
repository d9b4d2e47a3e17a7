package io.streamsmemory.operator.reconcile.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.Workload;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * One workload's decision from what was gathered, with no API server: the decider reads nothing else, so every rule it
 * applies is checked here as a value (the ConfigMap to apply, the write to the workload, the Events, the row).
 */
class WorkloadDeciderTest {
    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private static final Optional<List<Pod>> NO_PODS = Optional.of(List.of());

    private final WorkloadDecider decider = new WorkloadDecider(new RolloutWaits(
            new RolloutGate(Duration.ZERO, RolloutGate.MODEL_UPGRADE_INTERVAL, Clock.fixed(NOW, ZoneOffset.UTC)),
            WebhookServing.NOT_HERE));
    private final StreamsMemoryPolicy policy = Fixtures.policy("shop", "orders", "2Gi");

    @Test
    void aNewWorkloadGetsItsConfigMapAnEventAndItsTemplateStamped() {
        Workload workload = workload(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi"));

        WorkloadDecision decision = decider.decide(inputs(workload, null, NO_PODS));

        assertThat(decision.toApply()).isNotNull();
        assertThat(decision.toApply().getMetadata().getName()).isEqualTo("orders-app-deployment-streams-memory");
        assertThat(decision.told()).extracting(Told::reason).containsExactly("Allocated");
        // Its first pods may be starting (none listed, nothing published before): it looks again soon.
        assertThat(decision.steps()).containsOnly(RolloutStep.NONE);
        assertThat(decision.outcome().retryAfter()).isEqualTo(WorkloadOutcome.RETRY_SOON);
        assertThat(decision.outcome().row().getAllocationHash())
                .isEqualTo(decision.allocation().hash());
        assertThat(decision.outcome().failed()).isFalse();
    }

    @Test
    void aPublishedPlanThatDidNotChangeWritesNothingAndTellsNothing() {
        Workload workload = workload(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi"));
        WorkloadDecision first = decider.decide(inputs(workload, null, NO_PODS));
        Workload stamped = workload(new DeploymentBuilder((Deployment) workload.resource())
                .editSpec()
                .editTemplate()
                .editOrNewMetadata()
                .addToAnnotations(MetadataKeys.RESTART_HASH, first.allocation().restartHash())
                .endMetadata()
                .endTemplate()
                .endSpec()
                .build());

        WorkloadDecision again = decider.decide(inputs(stamped, created(first.toApply()), NO_PODS));

        assertThat(again.toApply()).isNull();
        assertThat(again.told()).isEmpty();
        assertThat(again.steps()).containsOnly(RolloutStep.NONE);
        assertThat(again.outcome().row().getRestartPending()).isFalse();
    }

    @Test
    void aManualPolicyPublishesButStampsNothingAndSaysTheRestartIsPending() {
        policy.getSpec().setRollout(Rollout.Manual);
        Workload workload = workload(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi"));
        WorkloadDecision first = decider.decide(inputs(workload, null, NO_PODS));

        WorkloadDecision next = decider.decide(inputs(workload, created(first.toApply()), NO_PODS));

        assertThat(next.steps()).containsOnly(RolloutStep.NONE);
        assertThat(next.told()).extracting(Told::reason).containsExactly("RestartPending");
        assertThat(next.outcome().row().getRestartPending()).isTrue();
    }

    @Test
    void aUsersConfigMapUnderTheNameIsLeftAloneAndTheWorkloadFails() {
        Workload workload = workload(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi"));
        ConfigMap users = new ConfigMapBuilder()
                .withNewMetadata()
                .withName("orders-app-deployment-streams-memory")
                .withNamespace("shop")
                .endMetadata()
                .build();

        WorkloadDecision decision = decider.decide(inputs(workload, users, NO_PODS));

        assertThat(decision.toApply()).isNull();
        assertThat(decision.steps()).isEmpty();
        assertThat(decision.outcome().failureReason()).isEqualTo("ConfigMapConflict");
        assertThat(decision.told()).extracting(Told::reason).containsExactly("ConfigMapConflict");
        assertThat(decision.outcome().row().getMessage()).contains("was not created by the operator");
    }

    @Test
    void aPlanThatDoesNotFitKeepsWhatIsPublished() {
        Workload workload = workload(Fixtures.deployment("shop", "orders-app", "orders", 2, "64Mi"));
        StreamsMemoryPolicy tiny = Fixtures.policy("shop", "orders", "64Mi");

        WorkloadDecision decision = decider.decide(inputs(tiny, workload, null, NO_PODS));

        assertThat(decision.toApply()).isNull();
        assertThat(decision.outcome().failureReason()).isEqualTo("AllocationFailed");
        assertThat(decision.outcome().row().getRestartPending()).isFalse();
    }

    private WorkloadInputs inputs(Workload workload, ConfigMap current, Optional<List<Pod>> pods) {
        return inputs(policy, workload, current, pods);
    }

    private static WorkloadInputs inputs(
            StreamsMemoryPolicy policy, Workload workload, ConfigMap current, Optional<List<Pod>> pods) {
        return new WorkloadInputs(
                policy,
                workload,
                current,
                pods,
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Duration.ofMinutes(10),
                Duration.ofMinutes(10),
                WebhookReach.NOT_CHECKED,
                NOW);
    }

    /** The ConfigMap as the API server returns it once created, long enough ago that its pods are not starting. */
    private static ConfigMap created(ConfigMap applied) {
        return new ConfigMapBuilder(applied)
                .editMetadata()
                .withCreationTimestamp(NOW.minus(Duration.ofHours(1)).toString())
                .endMetadata()
                .build();
    }

    /** The workload as the API server holds it: with a uid, which the ConfigMap's owner reference names. */
    private static Workload workload(Deployment deployment) {
        if (deployment.getMetadata().getUid() == null) {
            deployment.getMetadata().setUid("uid-" + deployment.getMetadata().getName());
        }
        return Workload.of(deployment).orElseThrow();
    }
}
