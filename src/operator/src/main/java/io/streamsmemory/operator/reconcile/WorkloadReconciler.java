package io.streamsmemory.operator.reconcile;

import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.operator.workload.MetadataKeys.ALLOCATION_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.FACTS;
import static io.streamsmemory.operator.workload.MetadataKeys.SPLIT_TUNING;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.HeapOverride;
import io.streamsmemory.operator.observe.HeapState;
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
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one workload of a policy, as a sequence of named steps ({@link #allocate} reads as the list of them):
 * the JVM caps' way back ({@link CapsSafety}), the plan and its tuned split ({@link #tuned}), the row
 * ({@link WorkloadRows}), the publication ({@link #publish}, or {@link #holdModelUpgrade}), the restart
 * ({@link WorkloadRollout}), drift ({@link DriftReporter}) and what the pods show ({@link #verdict}). Whatever goes
 * wrong is recorded in the workload's status row and an Event on it, never thrown, so one workload's trouble never
 * stops the policy's others.
 */
final class WorkloadReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadReconciler.class);

    private final EventRecorder events;
    private final AllocationMetrics metrics;
    private final ConfigMapPublisher publisher;
    private final RolloutStamper stamper;
    private final WorkloadRollout rollout;
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
        this.rollout = new WorkloadRollout(events, stamper);
        this.drift = new DriftReporter(client, events, stamper);
    }

    /**
     * One workload's reconcile: what every step reads, and the row and warnings they fill.
     *
     * @param current the ConfigMap under the workload's name, null when there is none
     */
    private record Run(
            StreamsMemoryPolicy policy,
            Workload workload,
            ConfigMap current,
            NamespacePods pods,
            WorkloadAllocationStatus row,
            List<String> warnings) {}

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
        WorkloadAllocationStatus row = WorkloadRows.start(workload);
        List<String> warnings = new ArrayList<>();
        try {
            PlannedRange range = PlannedRange.of(workload, policy.getSpec().getScaling(), autoscalers);
            Run run = new Run(policy, workload, publisher.current(workload, cached), pods, row, warnings);
            return allocate(run, range);
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

    /** The steps of a workload's reconcile, in order. */
    private WorkloadOutcome allocate(Run run, PlannedRange declaredRange) {
        Workload workload = run.workload();
        Optional<ObservedTopology> seen = observer.topology(workload.namespace(), workload.kind(), workload.name());
        CapsSafety safety = CapsSafety.check(
                run.policy(),
                workload,
                run.current(),
                seen,
                observer.crashLoop(workload.namespace(), workload.kind(), workload.name()),
                events);
        TunedPlan tuned = tuned(
                run.policy(),
                workload,
                run.current(),
                FittingPlan.of(run.policy().getSpec(), workload, declaredRange, seen, safety.before()));
        FittingPlan fitted = tuned.fitted();
        WorkloadRows.showPlan(run.row(), tuned);
        reportWarnings(workload, fitted.range(), fitted.plan(), run.warnings());
        Optional<String> conflict = conflict(workload, run.current());
        if (conflict.isPresent()) {
            return failed(workload, run.row(), run.warnings(), "ConfigMapConflict", conflict.get());
        }
        if (!fitted.result().ok()) {
            // Keep what is published; report why it could not be updated.
            WorkloadRows.showPublished(run.row(), run.current());
            return failed(
                    workload,
                    run.row(),
                    run.warnings(),
                    "AllocationFailed",
                    fitted.result().message());
        }
        Allocation allocation = fitted.result().allocation();
        WorkloadRows.showAllocation(run.row(), allocation);
        Duration rollLater = publishOrHold(run, tuned, allocation, safety.urgency());
        Duration driftLater = drift.report(
                run.policy(),
                workload,
                run.row().getAllocationHash(),
                run.row().getRestartHash(),
                run.row(),
                run.pods());
        MemoryVerdict verdict = verdict(workload, allocation, safety.crossed());
        WorkloadRows.showVerdict(run.row(), verdict);
        reportHeapOverride(workload, verdict, run.warnings());
        reportHeapState(workload, verdict, allocation, run.warnings());
        metrics.recordWorkload(workload, allocation, verdict);
        return new WorkloadOutcome(
                run.row(),
                WorkloadOutcome.Parts.of(allocation),
                null,
                null,
                run.warnings(),
                WorkloadOutcome.earliest(rollLater, driftLater),
                verdict);
    }

    /**
     * Why nothing may be published under the workload's ConfigMap name: a ConfigMap the operator did not publish for
     * this workload is there.
     */
    private static Optional<String> conflict(Workload workload, ConfigMap current) {
        if (current == null || AllocationConfigMap.publishedFor(current, workload.resource())) {
            return Optional.empty();
        }
        return Optional.of(String.format(
                "ConfigMap %s exists and was "
                        + "not created by the operator for this %s (it lacks the operator's managed-by label or an owner "
                        + "reference to the workload): it is left as it is and nothing is published; rename or delete it",
                current.getMetadata().getName(), workload.kind()));
    }

    /**
     * Publishes the allocation and rolls the workload when it needs it, unless a model upgrade holds the plan back;
     * returns when to look again if something waits, else null.
     */
    private Duration publishOrHold(Run run, TunedPlan tuned, Allocation allocation, RolloutGate.Urgency urgency) {
        Optional<HeldPlan> held = urgency != RolloutGate.Urgency.NONE
                ? Optional.empty()
                : holdModelUpgrade(run.policy(), run.workload(), run.current(), allocation);
        if (held.isPresent()) {
            WorkloadRows.showHeld(run.row(), held.get().applied(), held.get().reason());
            return held.get().retryAfter();
        }
        String resplit = publish(
                run.policy(),
                run.workload(),
                run.current(),
                allocation,
                tuned.fitted().plan().topology(),
                tuned.state());
        reportTuning(run.workload(), tuned.decision());
        Duration rollLater = WorkloadRollout.firstPodsMayBeStarting(
                        run.workload(), run.current(), run.pods(), Instant.now())
                ? WorkloadOutcome.RETRY_SOON
                : rollout.rollIfNeeded(
                        run.policy(), run.workload(), allocation, tuned.fitted().range(), resplit, urgency, run.pods());
        run.row()
                .setRestartPending(!run.workload()
                                .appliedRestartHash()
                                .filter(allocation.restartHash()::equals)
                                .isPresent()
                        && (run.policy().getSpec().getRollout() == Rollout.Manual || rollLater != null));
        return rollLater;
    }

    /** What the pods reported against the allocation, with a learned cap's crossing as pressure; null before a report. */
    private MemoryVerdict verdict(Workload workload, Allocation allocation, Optional<Crossing> capCrossed) {
        MemoryVerdict verdict = observer.observation(workload.namespace(), workload.kind(), workload.name())
                .map(observation -> MemoryVerdict.of(
                        allocation, observation, observer.settings().window()))
                .orElse(null);
        if (verdict != null && capCrossed.isPresent()) {
            verdict = verdict.withPressure(capCrossed.get().message());
        }
        return verdict;
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

    /**
     * A pod whose own heap flag won over the plan's (the webhook keeps a user's setting): a warning with what it does
     * to the bound, told once as an Event. The operator changes nothing for it: the flag is the user's.
     */
    private void reportHeapOverride(Workload workload, MemoryVerdict verdict, List<String> warnings) {
        HeapOverride heap = verdict == null ? null : verdict.seen().heapOverride();
        if (heap != null) {
            String warning = "a pod's " + heap.describe() + "; " + heap.effect();
            events.record(workload.resource(), Type.Warning, "HeapFlagWon", warning);
            warnings.add(workload.kind() + " " + workload.name() + ": " + warning);
        }
    }

    /**
     * In-memory state the plan cannot bound: an unbounded suppression buffer, or more state than the plan holds for it
     * and the application (the Warning condition, and an Event the recorder posts once and then counts).
     */
    private void reportHeapState(
            Workload workload, MemoryVerdict verdict, Allocation allocation, List<String> warnings) {
        HeapState state = verdict == null ? null : verdict.seen().heapState();
        HeapState.Finding finding = state == null ? null : state.finding(allocation);
        if (finding != null) {
            events.record(workload.resource(), Type.Warning, finding.reason(), finding.event());
            warnings.add(workload.kind() + " " + workload.name() + ": " + finding.message());
        }
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

    private WorkloadOutcome failed(
            Workload workload, WorkloadAllocationStatus row, List<String> warnings, String reason, String message) {
        row.setMessage(message);
        events.record(workload.resource(), Type.Warning, reason, message);
        return new WorkloadOutcome(
                row, null, reason, workload.kind() + " " + workload.name() + ": " + message, warnings, null, null);
    }

    /**
     * Publishes the allocation when it changed. Returns what a re-split changed, for the one Event that tells it
     * ({@link WorkloadRollout#rollIfNeeded}), null when nothing was re-split; a first allocation gets its own Event here.
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
}
