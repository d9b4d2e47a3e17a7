package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.operator.workload.WebhookReach.NOT_CHECKED;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.ReplicaRange;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.reconcile.act.RolloutStamper;
import io.streamsmemory.operator.reconcile.act.WorkloadActor;
import io.streamsmemory.operator.reconcile.decide.RolloutGate.Urgency;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Whether a workload whose published allocation needs a restart is rolled, recorded as already running it, left to
 * the user, or made to wait, and what its one Event says. The gate and the webhook check are the operator's own; only
 * the two writes to the workload are kept instead of sent.
 */
class WorkloadRolloutTest {
    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private static final Duration MIN_INTERVAL = Duration.ofMinutes(10);
    private static final String RESPLIT = "re-split: record cache 12.0% (was 10.0%)";

    private final Allocation allocation = Fixtures.smallAllocation(2L << 30);
    private final String hash = allocation.restartHash();
    private final StreamsMemoryPolicy policy = Fixtures.policy("shop", "orders", "2Gi");
    private final ToldEvents events = new ToldEvents();

    @Test
    void aWorkloadRolledForThisRestartHashIsNotRolledAgainAndAResplitIsToldAlone() {
        Kept kept = new Kept(Optional.empty());
        Workload rolled = workload(stamped(hash));

        assertThat(roll(kept, rolled, null, Urgency.NONE)).isNull();
        assertThat(events.told()).isEmpty();
        assertThat(roll(kept, rolled, RESPLIT, Urgency.NONE)).isNull();
        assertThat(events.told()).containsExactly(new Told(Type.Normal, "Resplit", RESPLIT, RESPLIT));
        assertThat(kept.stamped).isEmpty();
        assertThat(kept.admitted).isEmpty();
    }

    @Test
    void aChangedPlanIsStampedOnTheTemplateAndTheEventSaysWhatChangedWithTheResplit() {
        Kept kept = new Kept(Optional.empty());

        assertThat(roll(kept, workload(stamped("r-older")), RESPLIT, Urgency.NONE))
                .isNull();

        assertThat(kept.stamped).containsExactly(hash);
        String message = RESPLIT + "; JVM flags or RocksDB capacities changed since the pods were rolled for restart "
                + "hash r-older: stamped restart hash " + hash + " on the pod template";
        assertThat(events.told()).containsExactly(new Told(Type.Normal, "RollingRestart", message, message));
    }

    @Test
    void aStampTheCacheDoesNotShowYetIsNotWrittenAgainAndTheResplitIsToldAlone() {
        Kept kept = new Kept(Optional.empty());
        // The API server has this operator's stamp; the cache still shows the template before it.
        kept.live = Optional.of(hash);

        assertThat(roll(kept, workload(stamped("r-older")), RESPLIT, Urgency.NONE))
                .isNull();

        assertThat(kept.stamped).isEmpty();
        assertThat(events.told()).containsExactly(new Told(Type.Normal, "Resplit", RESPLIT, RESPLIT));
    }

    @Test
    void aWorkloadScaledBelowItsRangeIsRestartedForSafety() {
        Kept kept = new Kept(Optional.empty());
        PlannedRange below = new PlannedRange(new ReplicaRange(3, 6), "spec.scaling", 2);

        act(
                kept,
                workload(stamped("r-older")),
                kept.rollout()
                        .rollIfNeeded(
                                policy,
                                workload(stamped("r-older")),
                                allocation,
                                below,
                                null,
                                Urgency.NONE,
                                pods(List.of()),
                                NOT_CHECKED));

        assertThat(kept.stamped).containsExactly(hash);
        assertThat(events.told()).extracting(Told::reason).containsExactly("RollingRestart");
        assertThat(events.told().get(0).message())
                .startsWith("scaled to 2 replicas, below the range 3-6 the running pods' RocksDB settings were "
                        + "planned for (spec.scaling): restarting them with settings for "
                        + allocation.plannedTopology().rocksDbInstances()
                        + " RocksDB instances per pod, for safety");
    }

    @Test
    void aWorkloadWhosePodsTheWebhookAlreadyInjectedIsRecordedNotRolled() {
        Kept kept = new Kept(Optional.empty());
        Workload optedIn = workload(Function.identity());

        assertThat(roll(kept, optedIn, pods(List.of(injected(hash), injected(hash)))))
                .isNull();
        assertThat(kept.admitted).containsExactly(hash);
        assertThat(kept.stamped).isEmpty();
        assertThat(events.told()).extracting(Told::reason).containsExactly("OptedIn");
        assertThat(events.told().get(0).message())
                .startsWith("every pod already runs restart hash " + hash)
                .endsWith("recorded on the workload, not rolled");

        // One pod started without the agent: the template is stamped, as for any opt-in.
        Kept again = new Kept(Optional.empty());
        roll(again, optedIn, pods(List.of(injected(hash), pod(Map.of()))));
        assertThat(again.admitted).isEmpty();
        assertThat(again.stamped).containsExactly(hash);
        assertThat(events.told().get(1).message())
                .startsWith("the pods have not been rolled with the operator's JVM flags and RocksDB settings yet "
                        + "(the workload opted in)");
    }

    @Test
    void aManualPolicyStampsNothingAndTellsTheRestartToDoWithoutTheResplitInItsGist() {
        Kept kept = new Kept(Optional.empty());
        policy.getSpec().setRollout(Rollout.Manual);

        assertThat(roll(kept, workload(stamped("r-older")), RESPLIT, Urgency.SUPERSEDE))
                .isNull();

        assertThat(kept.stamped).isEmpty();
        String pending = "JVM flags or RocksDB capacities changed since the pods were rolled for restart hash r-older "
                + "(restart hash " + hash + "); rollout is Manual, restart the pods to apply them";
        assertThat(events.told())
                .containsExactly(new Told(Type.Normal, "RestartPending", RESPLIT + "; " + pending, pending));
    }

    @Test
    void aRolloutWithinTheMinimumIntervalWaitsForItsTurnUnlessACapMustChangeNow() {
        Kept kept = new Kept(Optional.empty());
        Instant last = NOW.minus(Duration.ofMinutes(1));
        Workload recent = workload(stamped("r-older")
                .andThen(d -> new DeploymentBuilder(d)
                        .editMetadata()
                        .addToAnnotations(MetadataKeys.LAST_ROLLOUT, last.toString())
                        .endMetadata()
                        .build()));

        Duration retry = roll(kept, recent, null, Urgency.NONE);

        assertThat(retry).isEqualTo(Duration.ofMinutes(9).plusSeconds(1));
        assertThat(kept.stamped).isEmpty();
        assertThat(events.told()).extracting(Told::reason).containsExactly("RestartPending");
        assertThat(events.told().get(0).message())
                .endsWith("; not rolled yet: the operator rolled it at " + last + " and rolls a workload at most once "
                        + "every PT10M (streamsmemory.rollout.min-interval): next at " + last.plus(MIN_INTERVAL));

        assertThat(roll(kept, recent, null, Urgency.NOW)).isNull();
        assertThat(kept.stamped).containsExactly(hash);
    }

    @Test
    void aRolloutInProgressHoldsTheNextUnlessACapAJvmHitSupersedesIt() {
        Kept kept = new Kept(Optional.empty());
        Workload rolling = workload(stamped("r-older")
                .andThen(d -> new DeploymentBuilder(d)
                        .editMetadata()
                        .withGeneration(2L)
                        .endMetadata()
                        .withNewStatus()
                        .withObservedGeneration(1L)
                        .endStatus()
                        .build()));

        assertThat(roll(kept, rolling, null, Urgency.NOW)).isEqualTo(WorkloadOutcome.RETRY_SOON);
        assertThat(kept.stamped).isEmpty();
        assertThat(events.told().get(0).message())
                .endsWith("; not rolled yet: its previous rollout is still in progress");

        assertThat(roll(kept, rolling, null, Urgency.SUPERSEDE)).isNull();
        assertThat(kept.stamped).containsExactly(hash);
    }

    @Test
    void noRolloutStartsWhileTheWebhookDoesNotServeNotEvenOverACrashLoop() {
        Kept kept = new Kept(Optional.of("its certificate is not made yet"));

        assertThat(roll(kept, workload(stamped("r-older")), null, Urgency.SUPERSEDE))
                .isEqualTo(WorkloadOutcome.RETRY_SOON);

        assertThat(kept.stamped).isEmpty();
        assertThat(events.told()).extracting(Told::reason).containsExactly("RestartPending");
        assertThat(events.told().get(0).message())
                .endsWith("; not rolled yet: the admission webhook does not serve yet (its certificate is not made "
                        + "yet), so the new pods would start without the agent");
    }

    @Test
    void theFirstPodsOfANewWorkloadMayBeStartingUntilOneIsListed() {
        Workload fresh = workload(Function.identity());

        assertThat(WorkloadRollout.firstPodsMayBeStarting(fresh, null, pods(List.of()), NOW))
                .isTrue();
        assertThat(WorkloadRollout.firstPodsMayBeStarting(fresh, null, pods(List.of(injected(hash))), NOW))
                .isFalse();
        assertThat(WorkloadRollout.firstPodsMayBeStarting(workload(stamped(hash)), null, pods(List.of()), NOW))
                .as("rolled before")
                .isFalse();
        Workload scaledToZero = Workload.of(Fixtures.deployment("shop", "orders-app", "orders", 0, "2Gi"))
                .orElseThrow();
        assertThat(WorkloadRollout.firstPodsMayBeStarting(scaledToZero, null, pods(List.of()), NOW))
                .as("wants no pod")
                .isFalse();
    }

    /**
     * The webhook publishes the first allocation at the first pod's admission, before the API server stores the pod:
     * a reconcile started by the ConfigMap's event may list no pod yet. It waits, for a moment, not for ever.
     */
    @Test
    void aFirstAllocationPublishedAtAdmissionWaitsForItsPodsAMomentNotForEver() {
        Workload fresh = workload(Function.identity());

        assertThat(WorkloadRollout.firstPodsMayBeStarting(fresh, createdAt(NOW.minusSeconds(1)), pods(List.of()), NOW))
                .as("created a second ago")
                .isTrue();
        assertThat(WorkloadRollout.firstPodsMayBeStarting(
                        fresh, createdAt(NOW.minus(WorkloadRollout.FIRST_PODS_GRACE)), pods(List.of()), NOW))
                .as("created a grace ago: no pod came, the template is stamped")
                .isFalse();
        assertThat(WorkloadRollout.firstPodsMayBeStarting(
                        fresh,
                        new ConfigMapBuilder().withNewMetadata().endMetadata().build(),
                        pods(List.of()),
                        NOW))
                .as("no creation time")
                .isFalse();
    }

    private static ConfigMap createdAt(Instant created) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withCreationTimestamp(created.toString())
                .endMetadata()
                .build();
    }

    /**
     * The real gate (at {@link #NOW}, {@link #MIN_INTERVAL}) and webhook check; the writes kept, not sent. The live
     * template is the cached one unless a test sets {@code live} (a cache behind the API server).
     */
    private static final class Kept extends RolloutStamper {
        final List<String> stamped = new ArrayList<>();
        final List<String> admitted = new ArrayList<>();
        Optional<String> live;
        private final RolloutGate gate =
                new RolloutGate(MIN_INTERVAL, RolloutGate.MODEL_UPGRADE_INTERVAL, Clock.fixed(NOW, ZoneOffset.UTC));
        private final Optional<String> webhookProblem;

        Kept(Optional<String> webhookProblem) {
            super(null, null);
            this.webhookProblem = webhookProblem;
        }

        WorkloadRollout rollout() {
            return new WorkloadRollout(new RolloutWaits(gate, () -> webhookProblem));
        }

        @Override
        public void stamp(Workload workload, String restartHash) {
            stamped.add(restartHash);
        }

        @Override
        public void recordAdmitted(Workload workload, String restartHash) {
            admitted.add(restartHash);
        }

        @Override
        public Optional<String> liveRestartHash(Workload workload) {
            return live != null ? live : workload.templateAnnotation(MetadataKeys.RESTART_HASH);
        }
    }

    /** Decides, then carries the decision out as {@link WorkloadActor} does; returns when to look again. */
    private Duration roll(Kept kept, Workload workload, String resplit, Urgency urgency) {
        return act(
                kept,
                workload,
                kept.rollout()
                        .rollIfNeeded(
                                policy,
                                workload,
                                allocation,
                                range(workload),
                                resplit,
                                urgency,
                                pods(List.of()),
                                NOT_CHECKED));
    }

    private Duration roll(Kept kept, Workload workload, Optional<List<Pod>> pods) {
        return act(
                kept,
                workload,
                kept.rollout()
                        .rollIfNeeded(
                                policy, workload, allocation, range(workload), null, Urgency.NONE, pods, NOT_CHECKED));
    }

    private Duration act(Kept kept, Workload workload, WorkloadRollout.Decision decision) {
        decision.told().forEach(told -> WorkloadActor.post(told, events, workload.resource()));
        WorkloadActor.perform(decision.step(), workload, kept, events);
        return decision.retryAfter();
    }

    private static PlannedRange range(Workload workload) {
        return PlannedRange.of(workload, null, List.of());
    }

    private static Optional<List<Pod>> pods(List<Pod> pods) {
        return Optional.of(pods);
    }

    /** Deployment orders-app of 2 replicas, as {@code edit} leaves it. */
    private static Workload workload(Function<Deployment, Deployment> edit) {
        return Workload.of(edit.apply(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi")))
                .orElseThrow();
    }

    /** The pod template stamped with {@code restartHash} by an earlier rollout. */
    private static Function<Deployment, Deployment> stamped(String restartHash) {
        return d -> new DeploymentBuilder(d)
                .editSpec()
                .editTemplate()
                .editMetadata()
                .addToAnnotations(MetadataKeys.RESTART_HASH, restartHash)
                .endMetadata()
                .endTemplate()
                .endSpec()
                .build();
    }

    /** A pod the webhook injected with the allocation of {@code restartHash}. */
    private static Pod injected(String restartHash) {
        return pod(Map.of(MetadataKeys.ALLOCATION_HASH, "a", MetadataKeys.APPLIED_RESTART_HASH, restartHash));
    }

    /** A running pod of orders-app's current ReplicaSet. */
    private static Pod pod(Map<String, String> annotations) {
        return new PodBuilder()
                .withNewMetadata()
                .withGenerateName("orders-app-5d8f-")
                .addToLabels(Workload.POD_TEMPLATE_HASH, "5d8f")
                .withAnnotations(annotations)
                .addNewOwnerReference()
                .withKind("ReplicaSet")
                .withName("orders-app-5d8f")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .build();
    }
}
