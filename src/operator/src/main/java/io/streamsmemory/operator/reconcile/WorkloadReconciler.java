package io.streamsmemory.operator.reconcile;

import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.operator.workload.AllocationConfigMap.configMapName;
import static io.streamsmemory.operator.workload.MetadataKeys.ALLOCATION_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.FACTS;
import static io.streamsmemory.operator.workload.MetadataKeys.LEARNED;
import static io.streamsmemory.operator.workload.MetadataKeys.RESTART_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.SPLIT_TUNING;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.api.FactStatus;
import io.streamsmemory.operator.api.JvmSizing;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.observe.MemoryObserver;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.observe.ObservedTopology;
import io.streamsmemory.operator.observe.WorkloadObservation;
import io.streamsmemory.operator.plan.FittingPlan;
import io.streamsmemory.operator.plan.LearnedFacts;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.plan.WorkloadPlanner;
import io.streamsmemory.operator.reconcile.LearnedCapsGuard.Crossing;
import io.streamsmemory.operator.tune.SplitTuner;
import io.streamsmemory.operator.tune.TunedPlan;
import io.streamsmemory.operator.tune.TuningState;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one workload of a policy: plans it, publishes its allocation, rolls it when a change needs a
 * restart and the policy allows it, and counts its pods. Whatever goes wrong is recorded in the workload's
 * status row and an Event on it, never thrown, so one workload's trouble never stops the policy's others.
 */
final class WorkloadReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadReconciler.class);

    private final EventRecorder events;
    private final AllocationMetrics metrics;
    private final ConfigMapPublisher publisher;
    private final RolloutStamper stamper;
    private final DriftReporter drift;
    private final MemoryObserver observer;

    WorkloadReconciler(
            KubernetesClient client,
            EventRecorder events,
            AllocationMetrics metrics,
            ConfigMapPublisher publisher,
            WebhookServing webhook,
            RolloutGate gate,
            MemoryObserver observer) {
        this.observer = observer;
        this.events = events;
        this.metrics = metrics;
        this.publisher = publisher;
        this.stamper = new RolloutStamper(client, gate, webhook);
        this.drift = new DriftReporter(client, events, stamper);
    }

    /**
     * @param cached      the workload's ConfigMap from the operator's cache, null when it holds none
     * @param autoscalers the HorizontalPodAutoscalers of the workload's namespace (one may target it)
     */
    WorkloadOutcome reconcile(
            StreamsMemoryPolicy policy,
            Workload workload,
            ConfigMap cached,
            Collection<HorizontalPodAutoscaler> autoscalers,
            NamespacePods pods) {
        WorkloadAllocationStatus row = new WorkloadAllocationStatus();
        row.setKind(workload.kind());
        row.setName(workload.name());
        row.setReplicas(workload.replicas());
        row.setConfigMap(configMapName(workload.kind(), workload.name()));
        List<String> warnings = new ArrayList<>();
        try {
            PlannedRange range = PlannedRange.of(workload, policy.getSpec().getScaling(), autoscalers);
            return allocate(policy, workload, cached, range, row, warnings, pods);
        } catch (RuntimeException e) {
            LOG.warn("{} {}/{} could not be reconciled", workload.kind(), workload.namespace(), workload.name(), e);
            return failed(
                    workload,
                    row,
                    warnings,
                    "WorkloadFailed",
                    "could not be reconciled: "
                            + Objects.requireNonNullElse(
                                    e.getMessage(), e.getClass().getSimpleName()));
        }
    }

    private WorkloadOutcome allocate(
            StreamsMemoryPolicy policy,
            Workload workload,
            ConfigMap cached,
            PlannedRange range,
            WorkloadAllocationStatus row,
            List<String> warnings,
            NamespacePods pods) {
        ConfigMap current = publisher.current(workload, cached);
        Optional<ObservedTopology> seen = observer.topology(workload.namespace(), workload.kind(), workload.name());
        CapsSafety safety = capsSafety(policy, workload, current, seen);
        Optional<Crossing> capCrossed = safety.crossed();
        Map<String, Integer> before = safety.before();
        RolloutGate.Urgency urgency = safety.urgency();
        TunedPlan tuned =
                tuned(policy, workload, current, FittingPlan.of(policy.getSpec(), workload, range, seen, before));
        FittingPlan fitted = tuned.fitted();
        WorkloadPlanner.Plan plan = fitted.plan();
        AllocationResult result = fitted.result();
        range = fitted.range();
        row.setFacts(plan.topology().facts().stream()
                .map(f -> new FactStatus(f.name(), f.value(), f.source().name()))
                .toList());
        row.setJvmCapsAwaitingReport(flags(plan.topology().awaitingReport()));
        row.setJvmCapsLifted(flags(plan.topology().lifted()));
        row.setTunedSplit(tuned.splitText());
        row.setSplitTuning(
                tuned.decision().message() != null
                        ? tuned.decision().message()
                        : tuned.state().reason());
        List<String> provisional = plan.topology().provisional();
        row.setProvisionalFacts(provisional.isEmpty() ? null : provisional);
        row.setReplicaRange(range.text());
        row.setReplicaRangeSource(range.source());
        reportWarnings(workload, range, plan, warnings);
        row.setThreads(plan.facts().streamThreads());
        row.setMemory(format(plan.facts().memoryBytes()));
        if (current != null && !AllocationConfigMap.publishedFor(current, workload.resource())) {
            return failed(
                    workload,
                    row,
                    warnings,
                    "ConfigMapConflict",
                    String.format(
                            "ConfigMap %s exists and was "
                                    + "not created by the operator for this %s (it lacks the operator's managed-by label or an owner "
                                    + "reference to the workload): it is left as it is and nothing is published; rename or delete it",
                            current.getMetadata().getName(), workload.kind()));
        }
        if (!result.ok()) {
            // Keep what is published; report why it could not be updated.
            AllocationConfigMap.annotation(current, ALLOCATION_HASH).ifPresent(row::setAllocationHash);
            AllocationConfigMap.annotation(current, RESTART_HASH).ifPresent(row::setRestartHash);
            row.setRestartPending(false);
            return failed(workload, row, warnings, "AllocationFailed", result.message());
        }
        Allocation allocation = result.allocation();
        showAllocation(row, allocation);

        Optional<HeldPlan> held = urgency != RolloutGate.Urgency.NONE
                ? Optional.empty()
                : holdModelUpgrade(policy, workload, current, allocation);
        Duration rollLater;
        if (held.isPresent()) {
            // The pods keep the applied plan: the row names it, and says what waits and why.
            row.setAllocationHash(held.get().applied().hash());
            row.setRestartHash(held.get().applied().restartHash());
            row.setRestartPending(false);
            row.setNewerPlanPending(held.get().reason());
            rollLater = held.get().retryAfter();
        } else {
            String resplit = publish(policy, workload, current, allocation, plan.topology(), tuned.state());
            reportTuning(workload, tuned.decision());
            rollLater = current == null && firstPodsMayBeStarting(workload, pods)
                    ? PolicyReconciler.RETRY_SOON
                    : rollIfNeeded(policy, workload, allocation, range, resplit, urgency, pods);
            row.setRestartPending(!workload.appliedRestartHash()
                            .filter(allocation.restartHash()::equals)
                            .isPresent()
                    && (policy.getSpec().getRollout() == Rollout.Manual || rollLater != null));
        }
        Duration driftLater = drift.report(policy, workload, row.getAllocationHash(), row.getRestartHash(), row, pods);
        MemoryVerdict verdict = observer.observation(workload.namespace(), workload.kind(), workload.name())
                .map(observation -> MemoryVerdict.of(
                        allocation, observation, observer.settings().window()))
                .orElse(null);
        if (verdict != null && capCrossed.isPresent()) {
            verdict = verdict.withPressure(capCrossed.get().message());
        }
        if (verdict != null) {
            row.setObserved(verdict.observed());
            row.setRecommendation(verdict.recommendation());
        }
        metrics.recordWorkload(workload, allocation, verdict);
        return new WorkloadOutcome(row, allocation, null, null, warnings, earliest(rollLater, driftLater), verdict);
    }

    /**
     * What the published plan learned, with the JVM caps' way back applied: a learned cap of Observed sizing crossed
     * (the model's restored, {@link LearnedCapsGuard}) or a cap a JVM hit (lifted, {@link JvmCapLifts}), each told in
     * an Event; and how urgently the plan that follows may roll.
     */
    private record CapsSafety(Map<String, Integer> before, Optional<Crossing> crossed, RolloutGate.Urgency urgency) {}

    private CapsSafety capsSafety(
            StreamsMemoryPolicy policy, Workload workload, ConfigMap current, Optional<ObservedTopology> seen) {
        // A cap lifted under an earlier generation of the policy is planned again: the user changed the policy.
        int generation = (int)
                Math.max(1, Objects.requireNonNullElse(policy.getMetadata().getGeneration(), 1L));
        Map<String, Integer> published = LearnedFacts.liftsOf(
                LearnedFacts.parse(
                        AllocationConfigMap.annotation(current, LEARNED).orElse(null)),
                generation);
        AllocationDocument document = AllocationConfigMap.document(current);
        Optional<Crossing> crossed = observesJvm(policy)
                ? seen.flatMap(topology -> LearnedCapsGuard.check(published, document, topology.jvmCaps()))
                : Optional.empty();
        Map<String, Integer> before = published;
        if (crossed.isPresent() && !crossed.get().alreadyRestored()) {
            Crossing crossing = crossed.get();
            before = LearnedFacts.restored(
                    published, crossing.metaspaceCapMiB(), crossing.codeCacheCapMiB(), crossing.headroomMiB());
            events.record(workload.resource(), Type.Warning, "LearnedCapRestored", crossing.message());
        }
        Optional<JvmCapLifts.Lift> lift = JvmCapLifts.check(
                document,
                before,
                observer.crashLoop(workload.namespace(), workload.kind(), workload.name()),
                seen.map(ObservedTopology::jvmCaps).orElse(JvmCapsUse.NONE));
        if (lift.isPresent()) {
            before = LearnedFacts.lift(before, lift.get().caps(), generation);
            events.record(
                    workload.resource(),
                    Type.Warning,
                    "JvmCapLifted",
                    lift.get().message());
        }
        RolloutGate.Urgency urgency = lift.filter(JvmCapLifts.Lift::afterCrash).isPresent()
                ? RolloutGate.Urgency.SUPERSEDE
                : crossed.isPresent() || lift.isPresent() ? RolloutGate.Urgency.NOW : RolloutGate.Urgency.NONE;
        return new CapsSafety(before, crossed, urgency);
    }

    /** The plan with its tuned split and the tuner's decision on what the pods show. */
    private TunedPlan tuned(StreamsMemoryPolicy policy, Workload workload, ConfigMap current, FittingPlan model) {
        return TunedPlan.of(
                policy.getSpec(),
                Objects.requireNonNullElse(policy.getMetadata().getGeneration(), 1L),
                model,
                AllocationConfigMap.annotation(current, SPLIT_TUNING).orElse(null),
                observer.observation(workload.namespace(), workload.kind(), workload.name())
                        .map(WorkloadObservation::tuning)
                        .orElse(null),
                Instant.now(),
                observer.settings().settle());
    }

    /**
     * A step of the split, or the judgement of one, told in an Event once it is published (a plan held back by a model
     * upgrade publishes nothing, and its decision is taken again later); the step's restart goes through the rollout
     * gate like any other.
     */
    private void reportTuning(Workload workload, SplitTuner.Decision decision) {
        String reason = switch (decision.kind()) {
            case STEP -> "SplitTuned";
            case KEPT -> "SplitTuningKept";
            case UNDONE -> "SplitTuningUndone";
            case NONE -> null;
        };
        if (reason != null) {
            events.record(workload.resource(), Type.Normal, reason, decision.message());
        }
    }

    /** A workload running outside its planned range, and the planner's warnings, each told once as an Event. */
    private void reportWarnings(
            Workload workload, PlannedRange range, WorkloadPlanner.Plan plan, List<String> warnings) {
        if (range.outside()) {
            String warning = String.format(
                    "runs at %d replicas, outside the range %s (%s) its JVM flags and "
                            + "RocksDB settings are planned for; planned for %d-%d instead",
                    range.replicas(),
                    range.text(),
                    range.source(),
                    range.planned().min(),
                    range.planned().max());
            events.record(workload.resource(), Type.Warning, "OutsideReplicaRange", warning);
            warnings.add(workload.kind() + " " + workload.name() + ": " + warning);
        }
        for (String warning : plan.warnings()) {
            events.record(workload.resource(), Type.Warning, "WorkloadWarning", warning);
            warnings.add(workload.kind() + " " + workload.name() + ": " + warning);
        }
    }

    private static void showAllocation(WorkloadAllocationStatus row, Allocation allocation) {
        row.setTasksPerPod(allocation.topology().activeTasksPerPod());
        row.setRocksDbInstances(allocation.topology().rocksDbInstances());
        row.setPlannedRocksDbInstances(allocation.plannedTopology().rocksDbInstances());
        row.setHeap(format(allocation.part("heap").bytes()));
        row.setRocksDb(format(allocation.part("rocksdb").bytes()));
        row.setRecordCache(format(allocation.part("record-cache").bytes()));
        row.setAllocationHash(allocation.hash());
        row.setRestartHash(allocation.restartHash());
    }

    /** A newer plan held back: the allocation the pods keep, why, and when to look again. */
    private record HeldPlan(AllocationDocument applied, String reason, Duration retryAfter) {}

    /**
     * Holds a plan that differs from the applied one only by the operator's model (see {@link ModelUpgrade}) until
     * this workload's turn ({@link RolloutGate#takeModelUpgradeTurn}); a Manual policy publishes it at once (its pods
     * take it at the user's restart).
     */
    private Optional<HeldPlan> holdModelUpgrade(
            StreamsMemoryPolicy policy, Workload workload, ConfigMap current, Allocation allocation) {
        if (policy.getSpec().getRollout() == Rollout.Manual) {
            return Optional.empty();
        }
        AllocationDocument applied = ModelUpgrade.onlyTheModelChanged(current, workload, allocation);
        if (applied == null) {
            return Optional.empty();
        }
        Optional<RolloutGate.Wait> turn = stamper.modelUpgradeTurn();
        if (turn.isEmpty()) {
            return Optional.empty(); // this workload's turn: published and rolled as any change
        }
        String pending = String.format(
                "a newer plan (restart hash %s) differs from the applied allocation %s only by the operator's model, "
                        + "and the applied plan was made for today's facts, so it still fits the pod: it waits",
                allocation.restartHash(), applied.hash());
        events.record(workload.resource(), Type.Normal, "NewerPlanPending", pending, pending);
        return Optional.of(new HeldPlan(
                applied, pending + "; " + turn.get().reason(), turn.get().retryAfter()));
    }

    private static boolean observesJvm(StreamsMemoryPolicy policy) {
        return policy.getSpec().getJvm() != null && policy.getSpec().getJvm().getSizing() == JvmSizing.Observed;
    }

    private WorkloadOutcome failed(
            Workload workload, WorkloadAllocationStatus row, List<String> warnings, String reason, String message) {
        row.setMessage(message);
        events.record(workload.resource(), Type.Warning, reason, message);
        return new WorkloadOutcome(
                row, null, reason, workload.kind() + " " + workload.name() + ": " + message, warnings, null, null);
    }

    /**
     * Publishes the allocation when it changed. Returns what a re-split changed, for the one Event that tells it
     * ({@link #rollIfNeeded}), null when nothing was re-split; a first allocation gets its own Event here.
     */
    private String publish(
            StreamsMemoryPolicy policy,
            Workload workload,
            ConfigMap current,
            Allocation allocation,
            LearnedFacts topology,
            TuningState tuning) {
        ConfigMap desired = AllocationConfigMap.desired(
                policy.getMetadata().getName(), workload, allocation, topology.annotation(), tuning.annotation());
        if (AllocationConfigMap.sameAs(current, desired)) {
            return null;
        }
        publisher.apply(desired);
        if (AllocationConfigMap.annotation(current, ALLOCATION_HASH)
                .filter(allocation.hash()::equals)
                .isPresent()) {
            return null; // the same allocation: restored after a hand edit, or the target container (re)recorded
        }
        String numbers = String.format(
                "heap %s, RocksDB %s, record cache %s (allocation %s)",
                format(allocation.part("heap").bytes()),
                format(allocation.part("rocksdb").bytes()),
                format(allocation.part("record-cache").bytes()),
                allocation.hash());
        if (current == null) {
            events.record(
                    workload.resource(),
                    Type.Normal,
                    "Allocated",
                    String.format(
                            "published to ConfigMap %s: %s",
                            desired.getMetadata().getName(), numbers));
            return null;
        }
        String before = AllocationConfigMap.annotation(current, FACTS).orElse("?");
        return String.format("re-split (%s -> %s): %s", before, AllocationConfigMap.factsSummary(allocation), numbers);
    }

    /**
     * Stamps the template when the running settings need a restart, the policy allows it and {@link RolloutGate}
     * lets it start now; returns when to look again if it waits, else null. A re-split ({@code resplit}, null when
     * none) is told in the same Event as the restart it needs, so a re-split of N workloads posts N Events, not 2N.
     */
    private Duration rollIfNeeded(
            StreamsMemoryPolicy policy,
            Workload workload,
            Allocation allocation,
            PlannedRange range,
            String resplit,
            RolloutGate.Urgency urgency,
            NamespacePods pods) {
        if (workload.appliedRestartHash()
                .filter(allocation.restartHash()::equals)
                .isPresent()) {
            if (resplit != null) {
                events.record(workload.resource(), Type.Normal, "Resplit", resplit);
            }
            return null;
        }
        if (admittedWithIt(workload, allocation.restartHash(), pods)) {
            stamper.recordAdmitted(workload, allocation.restartHash());
            events.record(
                    workload.resource(),
                    Type.Normal,
                    "OptedIn",
                    String.format(
                            "every pod already runs restart hash %s (the admission webhook injected them with the "
                                    + "allocation): recorded on the workload, not rolled",
                            allocation.restartHash()));
            return null;
        }
        String why = whyRestart(workload, allocation, range);
        String told = resplit == null ? "" : resplit + "; ";
        if (policy.getSpec().getRollout() == Rollout.Manual) {
            String pending = String.format(
                    "%s (restart hash %s); rollout is Manual, restart the pods to apply them",
                    why, allocation.restartHash());
            events.record(workload.resource(), Type.Normal, "RestartPending", told + pending, pending);
            return null;
        }
        Optional<RolloutGate.Wait> wait = stamper.mustWait(workload, urgency);
        if (wait.isPresent()) {
            String waiting = String.format(
                    "%s (restart hash %s); not rolled yet: %s",
                    why, allocation.restartHash(), wait.get().reason());
            events.record(workload.resource(), Type.Normal, "RestartPending", told + waiting, waiting);
            return wait.get().retryAfter();
        }
        stamper.stamp(workload, allocation.restartHash());
        events.record(
                workload.resource(),
                Type.Normal,
                "RollingRestart",
                String.format(
                        "%s%s: stamped restart hash %s on the pod template", told, why, allocation.restartHash()));
        return null;
    }

    /**
     * True when the workload just opted in (nothing applied yet) and its pods, at least one, all already run
     * {@code restartHash}: a workload created together with its policy, whose first pods the webhook injected with
     * the allocation it published for them ({@link FirstAllocation}). Stamping the template would roll them for
     * nothing. With no pod yet the template is stamped as before, which rolls no pod.
     */
    /**
     * True when this reconcile publishes a workload's first allocation while the workload wants pods and none is
     * listed yet: a workload created together with its policy, whose first pods the webhook is admitting with this
     * very allocation as the pods' list was read. Rolling it now would restart them as they start, so the decision
     * waits for the next reconcile ({@link PolicyReconciler#RETRY_SOON}), which sees them (and, when no pod comes,
     * stamps the template as before).
     */
    private static boolean firstPodsMayBeStarting(Workload workload, NamespacePods pods) {
        return workload.appliedRestartHash().isEmpty()
                && workload.declaredReplicas() > 0
                && PodDrift.count(workload, "", pods)
                        .filter(count -> count.pods() == 0)
                        .isPresent();
    }

    private static boolean admittedWithIt(Workload workload, String restartHash, NamespacePods pods) {
        if (workload.appliedRestartHash().isPresent()) {
            return false;
        }
        return PodDrift.count(workload, restartHash, pods)
                .filter(count -> count.pods() > 0 && count.injected() == count.pods())
                .isPresent();
    }

    /** The reason a restart is needed, as the Event says it. */
    private static String whyRestart(Workload workload, Allocation allocation, PlannedRange range) {
        if (range.outside() && range.replicas() < range.declared().min()) {
            return String.format(
                    "scaled to %d replicas, below the range %s the running pods' RocksDB settings were "
                            + "planned for (%s): restarting them with settings for %d RocksDB instances per pod, for safety",
                    range.replicas(),
                    range.text(),
                    range.source(),
                    allocation.plannedTopology().rocksDbInstances());
        }
        // From the template, not from what this reconcile changed: the same state gives the same words every time,
        // so the Event is posted once (the opt-in's reconcile and the next one used to tell it twice).
        return workload.appliedRestartHash()
                .map(rolledFor -> "JVM flags or RocksDB capacities changed since the "
                        + "pods were rolled for restart hash " + rolledFor)
                .orElse("the pods have not been rolled with the "
                        + "operator's JVM flags and RocksDB settings yet (the workload opted in)");
    }

    /** The caps' flags as the row lists them, null when there are none. */
    private static List<String> flags(List<JvmCap> caps) {
        return caps.isEmpty() ? null : caps.stream().map(JvmCap::flag).toList();
    }

    private static Duration earliest(Duration a, Duration b) {
        return a == null ? b : b == null ? a : a.compareTo(b) <= 0 ? a : b;
    }
}
