package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.operator.workload.MetadataKeys.ALLOCATION_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.FACTS;
import static io.streamsmemory.operator.workload.MetadataKeys.SPLIT_TUNING;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.HeapOverride;
import io.streamsmemory.operator.observe.HeapState;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.observe.WorkloadObservation;
import io.streamsmemory.operator.plan.FittingPlan;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.plan.WorkloadPlanner;
import io.streamsmemory.operator.reconcile.decide.WorkloadRows.Shown;
import io.streamsmemory.operator.tune.SplitTuner;
import io.streamsmemory.operator.tune.TunedPlan;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides one workload's reconcile from what was gathered ({@link WorkloadInputs}), reading and writing nothing:
 * the JVM caps' way back ({@link CapsSafety}), the plan and its tuned split, the ConfigMap to publish (or a model
 * upgrade's hold), the restart ({@link WorkloadRollout}), drift ({@link WorkloadDrift}), what the pods show, and the
 * row that says it all ({@link WorkloadRows#of}). {@link #decide} reads as the list of those steps.
 */
public final class WorkloadDecider {
    private final RolloutWaits waits;
    private final WorkloadRollout rollout;
    private final WorkloadDrift drift;

    public WorkloadDecider(RolloutWaits waits) {
        this.waits = waits;
        this.rollout = new WorkloadRollout(waits);
        this.drift = new WorkloadDrift(waits);
    }

    public WorkloadDecision decide(WorkloadInputs in) {
        Workload workload = in.workload();
        CapsSafety safety = CapsSafety.check(in.policy(), in.current(), in.seen(), in.crash());
        PlannedRange declared = PlannedRange.of(workload, in.policy().getSpec().getScaling(), in.autoscalers());
        TunedPlan tuned =
                tuned(in, FittingPlan.of(in.policy().getSpec(), workload, declared, in.seen(), safety.before()));
        Notes notes = new Notes(workload, safety.told());
        notes.planWarnings(tuned.fitted().range(), tuned.fitted().plan());
        Optional<String> conflict = conflict(workload, in.current());
        if (conflict.isPresent()) {
            return notes.failed(
                    WorkloadRows.of(workload, tuned, null, null, false, null, null, conflict.get()),
                    "ConfigMapConflict",
                    conflict.get());
        }
        if (!tuned.fitted().result().ok()) {
            // Keep what is published; report why it could not be updated.
            String message = tuned.fitted().result().message();
            return notes.failed(
                    WorkloadRows.of(workload, tuned, null, Shown.published(in.current()), false, null, null, message),
                    "AllocationFailed",
                    message);
        }
        return allocated(in, tuned, safety, notes);
    }

    /** An allocation that fits: published or held, rolled or not, the pods counted and what they show. */
    private WorkloadDecision allocated(WorkloadInputs in, TunedPlan tuned, CapsSafety safety, Notes notes) {
        Workload workload = in.workload();
        Allocation allocation = tuned.fitted().result().allocation();
        Publication publication = publishOrHold(in, tuned, allocation, safety.urgency(), notes);
        Shown shown = publication.held();
        WorkloadDrift.Decision drifted = drift.decide(
                in.policy(),
                workload,
                shown == null ? allocation.hash() : shown.allocationHash(),
                shown == null ? allocation.restartHash() : shown.restartHash(),
                in.pods(),
                in.reach());
        notes.told.addAll(drifted.told());
        MemoryVerdict verdict = verdict(in, allocation, safety);
        notes.heapWarnings(verdict, allocation);
        WorkloadOutcome outcome = new WorkloadOutcome(
                WorkloadRows.of(
                        workload,
                        tuned,
                        allocation,
                        shown,
                        publication.restartPending(),
                        drifted.count(),
                        verdict,
                        null),
                WorkloadOutcome.Parts.of(allocation),
                null,
                null,
                notes.warnings,
                WorkloadOutcome.earliest(publication.retryAfter(), drifted.retryAfter()),
                verdict);
        return new WorkloadDecision(
                outcome,
                publication.toApply(),
                List.of(publication.step(), drifted.step()),
                List.copyOf(notes.told),
                allocation);
    }

    /**
     * What publishing decided: the ConfigMap to apply (null: unchanged, or held), the plan held back (null: none), the
     * restart and when to look again.
     */
    private record Publication(
            ConfigMap toApply, Shown held, RolloutStep step, Duration retryAfter, boolean restartPending) {}

    /**
     * Publishes the allocation and rolls the workload when it needs it, unless a model upgrade holds the plan back.
     */
    private Publication publishOrHold(
            WorkloadInputs in, TunedPlan tuned, Allocation allocation, RolloutGate.Urgency urgency, Notes notes) {
        Workload workload = in.workload();
        Optional<Shown> held = urgency != RolloutGate.Urgency.NONE
                ? Optional.empty()
                : holdModelUpgrade(in.policy(), workload, in.current(), allocation, notes);
        if (held.isPresent()) {
            return new Publication(null, held.get(), RolloutStep.NONE, notes.heldRetry, false);
        }
        ConfigMap desired = AllocationConfigMap.desired(
                in.policy().getMetadata().getName(),
                workload,
                allocation,
                tuned.fitted().plan().topology().annotation(),
                tuned.state().annotation());
        boolean changed = !AllocationConfigMap.sameAs(in.current(), desired);
        String resplit = changed ? resplit(in.current(), desired, allocation, notes) : null;
        notes.tuning(tuned.decision());
        WorkloadRollout.Decision rolled =
                WorkloadRollout.firstPodsMayBeStarting(workload, in.current(), in.pods(), in.now())
                        ? new WorkloadRollout.Decision(RolloutStep.NONE, List.of(), WorkloadOutcome.RETRY_SOON)
                        : rollout.rollIfNeeded(
                                in.policy(),
                                workload,
                                allocation,
                                tuned.fitted().range(),
                                resplit,
                                urgency,
                                in.pods(),
                                in.reach());
        notes.told.addAll(rolled.told());
        boolean restartPending = !workload.appliedRestartHash()
                        .filter(allocation.restartHash()::equals)
                        .isPresent()
                && (in.policy().getSpec().getRollout() == Rollout.Manual || rolled.retryAfter() != null);
        return new Publication(changed ? desired : null, null, rolled.step(), rolled.retryAfter(), restartPending);
    }

    /**
     * What a changed ConfigMap re-split, for the one Event that tells it with its restart ({@link
     * WorkloadRollout#rollIfNeeded}); null when nothing was re-split. A first allocation is told here on its own.
     */
    private static String resplit(ConfigMap current, ConfigMap desired, Allocation allocation, Notes notes) {
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
            notes.told.add(Told.normal(
                    "Allocated",
                    String.format(
                            "published to ConfigMap %s: %s",
                            desired.getMetadata().getName(), numbers)));
            return null;
        }
        String before = AllocationConfigMap.annotation(current, FACTS).orElse("?");
        return String.format("re-split (%s -> %s): %s", before, AllocationConfigMap.factsSummary(allocation), numbers);
    }

    /**
     * Holds a plan that differs from the applied one only by the operator's model (see {@link ModelUpgrade}) until
     * this workload's turn ({@link RolloutGate#takeModelUpgradeTurn}); a Manual policy publishes it at once (its pods
     * take it at the user's restart).
     */
    private Optional<Shown> holdModelUpgrade(
            StreamsMemoryPolicy policy, Workload workload, ConfigMap current, Allocation allocation, Notes notes) {
        if (policy.getSpec().getRollout() == Rollout.Manual) {
            return Optional.empty();
        }
        AllocationDocument applied = ModelUpgrade.onlyTheModelChanged(current, workload, allocation);
        if (applied == null) {
            return Optional.empty();
        }
        Optional<RolloutGate.Wait> turn = waits.modelUpgradeTurn();
        if (turn.isEmpty()) {
            return Optional.empty(); // this workload's turn: published and rolled as any change
        }
        String pending = String.format(
                "a newer plan (restart hash %s) differs from the applied allocation %s only by the operator's model, "
                        + "and the applied plan was made for today's facts, so it still fits the pod: it waits",
                allocation.restartHash(), applied.hash());
        notes.told.add(Told.normal("NewerPlanPending", pending));
        notes.heldRetry = turn.get().retryAfter();
        return Optional.of(Shown.held(applied, pending + "; " + turn.get().reason()));
    }

    /** The plan with its tuned split and the tuner's decision on what the pods show. */
    private static TunedPlan tuned(WorkloadInputs in, FittingPlan model) {
        return TunedPlan.of(
                in.policy().getSpec(),
                Objects.requireNonNullElse(in.policy().getMetadata().getGeneration(), 1L),
                model,
                AllocationConfigMap.annotation(in.current(), SPLIT_TUNING).orElse(null),
                in.observation().map(WorkloadObservation::tuning).orElse(null),
                in.now(),
                in.settle());
    }

    /** What the pods reported against the allocation, with a learned cap's crossing as pressure; null before a report. */
    private static MemoryVerdict verdict(WorkloadInputs in, Allocation allocation, CapsSafety safety) {
        MemoryVerdict verdict = in.observation()
                .map(observation -> MemoryVerdict.of(allocation, observation, in.window()))
                .orElse(null);
        if (verdict != null && safety.crossed().isPresent()) {
            verdict = verdict.withPressure(safety.crossed().get().message());
        }
        return verdict;
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

    /** The Events and the status warnings one decision collects, in the order its steps tell them. */
    private static final class Notes {
        private final Workload workload;
        final List<Told> told;
        final List<String> warnings = new ArrayList<>();
        Duration heldRetry;

        Notes(Workload workload, List<Told> told) {
            this.workload = workload;
            this.told = new ArrayList<>(told);
        }

        /** A warning told once as an Event and listed in the policy's status. */
        void warn(String reason, String warning) {
            told.add(Told.warning(reason, warning));
            warnings.add(workload.kind() + " " + workload.name() + ": " + warning);
        }

        /** A workload running outside its planned range, and the planner's warnings. */
        void planWarnings(PlannedRange range, WorkloadPlanner.Plan plan) {
            if (range.outside()) {
                warn(
                        "OutsideReplicaRange",
                        String.format(
                                "runs at %d replicas, outside the range %s (%s) its JVM flags and "
                                        + "RocksDB settings are planned for; planned for %d-%d instead",
                                range.replicas(),
                                range.text(),
                                range.source(),
                                range.planned().min(),
                                range.planned().max()));
            }
            plan.warnings().forEach(warning -> warn("WorkloadWarning", warning));
        }

        /**
         * A pod whose own heap flag won over the plan's (the webhook keeps a user's setting; the operator changes
         * nothing for it), and in-memory state the plan cannot bound (an unbounded suppression buffer, or more state
         * than the plan holds for it and the application).
         */
        void heapWarnings(MemoryVerdict verdict, Allocation allocation) {
            HeapOverride heap = verdict == null ? null : verdict.seen().heapOverride();
            if (heap != null) {
                warn("HeapFlagWon", "a pod's " + heap.describe() + "; " + heap.effect());
            }
            HeapState state = verdict == null ? null : verdict.seen().heapState();
            HeapState.Finding finding = state == null ? null : state.finding(allocation);
            if (finding != null) {
                told.add(Told.warning(finding.reason(), finding.event()));
                warnings.add(workload.kind() + " " + workload.name() + ": " + finding.message());
            }
        }

        /**
         * A step of the split, or the judgement of one, told once it is published (a plan held back by a model upgrade
         * publishes nothing, and its decision is taken again later).
         */
        void tuning(SplitTuner.Decision decision) {
            String reason = switch (decision.kind()) {
                case STEP -> "SplitTuned";
                case KEPT -> "SplitTuningKept";
                case UNDONE -> "SplitTuningUndone";
                case NONE -> null;
            };
            if (reason != null) {
                told.add(Told.normal(reason, decision.message()));
            }
        }

        WorkloadDecision failed(WorkloadAllocationStatus row, String reason, String message) {
            return WorkloadDecision.failed(workload, row, told, warnings, reason, message);
        }
    }
}
