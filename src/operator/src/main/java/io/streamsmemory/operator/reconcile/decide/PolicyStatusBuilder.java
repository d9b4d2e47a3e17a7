package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.format;

import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicyStatus;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.WebhookReach;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds a policy's status in one place: every path sets all eight conditions (Ready, InvalidSpec, Degraded,
 * Warning, MemoryPressure, TopologyMismatch, TopologyLearned, WebhookReachable), each keeping its lastTransitionTime while its status
 * holds.
 *
 * <p>The status stays small whatever the number of workloads: it lists at most {@code maxRows} of them (those a
 * user needs first, see {@link #firstRows}) and counts the others, and every condition message lists a few
 * findings ({@link BoundedMessages}); the counts, drift and peak cover every workload.
 */
public final class PolicyStatusBuilder {
    private final StreamsMemoryPolicyStatus previous;
    private final long generation;
    private final Conditions conditions;
    private final int maxRows;

    /** @param maxRows the most workload rows the status lists ({@code StatusSettings#maxWorkloadRows}) */
    public PolicyStatusBuilder(StreamsMemoryPolicy policy, int maxRows) {
        this.generation = Objects.requireNonNullElse(policy.getMetadata().getGeneration(), 0L);
        this.previous = policy.getStatus() == null ? new StreamsMemoryPolicyStatus() : policy.getStatus();
        this.conditions = new Conditions(previous.getConditions(), generation);
        this.maxRows = maxRows;
    }

    /** An invalid spec changes nothing published: the last numbers and workloads stay, and the status says why. */
    public StreamsMemoryPolicyStatus invalidSpec(String message) {
        StreamsMemoryPolicyStatus status = start();
        copyNumbers(previous, status);
        status.setWorkloadCount(previous.getWorkloadCount());
        status.setWorkloads(previous.getWorkloads());
        status.setWorkloadRowsOmitted(previous.getWorkloadRowsOmitted());
        String notEvaluated = "workloads were not re-planned: the spec is invalid";
        status.setConditions(conditions
                .set(Conditions.READY, false, "InvalidSpec", message)
                .set(Conditions.INVALID_SPEC, true, "InvalidSpec", message)
                .unknown(Conditions.DEGRADED, "InvalidSpec", notEvaluated)
                .unknown(Conditions.WARNING, "InvalidSpec", notEvaluated)
                .unknown(Conditions.MEMORY_PRESSURE, "InvalidSpec", notEvaluated)
                .unknown(Conditions.TOPOLOGY_MISMATCH, "InvalidSpec", notEvaluated)
                .unknown(Conditions.TOPOLOGY_LEARNED, "InvalidSpec", notEvaluated)
                .unknown(Conditions.WEBHOOK_REACHABLE, "InvalidSpec", notEvaluated)
                .build());
        return status;
    }

    /**
     * The status after the policy's workloads were reconciled.
     *
     * @param shown the allocation parts whose numbers the printer columns show, null to keep the last ones
     * @param failure what failed (see {@link #failure}), null when nothing did
     * @param reach whether the API server calls the webhook in the policy's namespace
     */
    public StreamsMemoryPolicyStatus reconciled(
            List<WorkloadOutcome> outcomes,
            WorkloadOutcome.Parts shown,
            String failure,
            String policyName,
            WebhookReach reach) {
        StreamsMemoryPolicyStatus status = start();
        if (shown != null) {
            status.setHeap(format(shown.heapBytes()));
            status.setRocksDb(format(shown.rocksDbBytes()));
            status.setRecordCache(format(shown.recordCacheBytes()));
        } else {
            copyNumbers(previous, status);
        }
        List<WorkloadAllocationStatus> rows = firstRows(outcomes, maxRows);
        status.setWorkloadCount(outcomes.size());
        status.setWorkloads(rows);
        status.setWorkloadRowsOmitted(outcomes.size() - rows.size());
        status.setDriftedPods(
                outcomes.stream().mapToInt(o -> driftedPods(o.row())).sum());
        String omitted = omitted(rows.size(), outcomes.size());

        conditions.set(Conditions.INVALID_SPEC, false, "Valid", "the spec is valid");
        if (failure == null) {
            allocated(outcomes, policyName, omitted);
        } else {
            String reason = failureReason(outcomes);
            conditions.set(Conditions.READY, false, reason, failure + omitted);
            conditions.set(Conditions.DEGRADED, true, reason, failure);
        }
        List<String> warnings =
                outcomes.stream().flatMap(o -> o.warnings().stream()).toList();
        conditions.set(
                Conditions.WARNING,
                !warnings.isEmpty(),
                warnings.isEmpty() ? "NoWarnings" : "WorkloadWarnings",
                warnings.isEmpty() ? "no warnings" : BoundedMessages.join(warnings) + omitted);
        observed(outcomes, status);
        learned(outcomes, status);
        conditions.webhookReach(reach);
        status.setConditions(conditions.build());
        return status;
    }

    /** Ready, and Degraded while a JVM cap is lifted: every workload is allocated. */
    private void allocated(List<WorkloadOutcome> outcomes, String policyName, String omitted) {
        conditions.set(
                Conditions.READY,
                true,
                "Allocated",
                (outcomes.isEmpty()
                                ? "no workload names this policy yet (annotate one with " + MetadataKeys.POLICY + ": "
                                        + policyName + ")"
                                : "allocated " + outcomes.size() + " workload(s)")
                        + omitted);
        List<String> lifted = outcomes.stream()
                .filter(o -> o.row().getJvmCapsLifted() != null)
                .map(o -> o.row().getKind() + " " + o.row().getName() + ": "
                        + String.join(", ", o.row().getJvmCapsLifted()))
                .toList();
        if (lifted.isEmpty()) {
            conditions.set(Conditions.DEGRADED, false, "AllAllocated", "every workload is allocated");
        } else {
            // Allocated, but with less of a bound than planned: a JVM hit a cap and it was lifted.
            conditions.set(
                    Conditions.DEGRADED,
                    true,
                    "JvmCapLifted",
                    "JVM caps lifted after a JVM hit them or came near one learned from its reports (see the "
                            + "JvmCapLifted Events), unset until the policy changes: "
                            + BoundedMessages.join(lifted)
                            + omitted);
        }
    }

    /**
     * TopologyLearned: true once every workload's topology facts are declared or observed, false while a plan is
     * provisional (a fact on its default until the pods report it), so a user can {@code kubectl wait} for it.
     */
    private void learned(List<WorkloadOutcome> outcomes, StreamsMemoryPolicyStatus status) {
        outcomes.stream()
                .filter(o -> o.parts() != null && o.row().getFacts() != null)
                .findFirst()
                .ifPresent(o -> status.setTopology(String.join(
                        ", ",
                        o.row().getFacts().stream()
                                .map(f -> f.getName() + "=" + f.getValue() + " ("
                                        + f.getSource().toLowerCase(Locale.ROOT) + ")")
                                .toList())));
        List<String> provisional = outcomes.stream()
                .filter(o -> o.row().getProvisionalFacts() != null)
                .map(o -> o.row().getKind() + " " + o.row().getName() + ": "
                        + String.join(", ", o.row().getProvisionalFacts()))
                .toList();
        if (!provisional.isEmpty()) {
            conditions.set(
                    Conditions.TOPOLOGY_LEARNED,
                    false,
                    "Provisional",
                    "planned on provisional defaults until the pods report them: " + BoundedMessages.join(provisional));
        } else {
            conditions.set(
                    Conditions.TOPOLOGY_LEARNED,
                    !outcomes.isEmpty(),
                    outcomes.isEmpty() ? "NoWorkloads" : "Known",
                    outcomes.isEmpty()
                            ? "no workload names this policy yet"
                            : "every workload's topology is declared or observed");
        }
    }

    /**
     * The rows the status lists, at most {@code max}: failed workloads first, then those that need a look (warnings,
     * drift, a pending restart, memory pressure, a topology mismatch), then the others; each group by kind and name,
     * so the same workloads keep the same places from one reconcile to the next.
     */
    static List<WorkloadAllocationStatus> firstRows(List<WorkloadOutcome> outcomes, int max) {
        return outcomes.stream()
                .sorted(Comparator.comparingInt(PolicyStatusBuilder::attention)
                        .thenComparing(o -> o.row().getKind())
                        .thenComparing(o -> o.row().getName()))
                .limit(max)
                .map(WorkloadOutcome::row)
                .toList();
    }

    /** 0 for a failed workload, 1 for one that needs a look, 2 for the others. */
    private static int attention(WorkloadOutcome outcome) {
        if (outcome.failed()) {
            return 0;
        }
        MemoryVerdict verdict = outcome.verdict();
        boolean needsLook = !outcome.warnings().isEmpty()
                || driftedPods(outcome.row()) > 0
                || Boolean.TRUE.equals(outcome.row().getRestartPending())
                || verdict != null && (verdict.pressure() != null || verdict.mismatch() != null);
        return needsLook ? 1 : 2;
    }

    private static int driftedPods(WorkloadAllocationStatus row) {
        return Objects.requireNonNullElse(row.getPodsNotInjected(), 0)
                + Objects.requireNonNullElse(row.getPodsOutdated(), 0);
    }

    /** What a condition message adds when the status lists only some workloads; empty when it lists all. */
    private static String omitted(int listed, int all) {
        return listed == all
                ? ""
                : String.format(
                        "; the status lists %d of %d workloads (failed first, then those "
                                + "with warnings, drift, a pending restart, memory pressure or a topology mismatch), %d omitted: "
                                + "each workload's allocation is in its ConfigMap %s and its Events",
                        listed, all, all - listed, AllocationConfigMap.configMapName("<kind>", "<workload>"));
    }

    /** The observed conditions and the worst peak ratio, from the workloads' memory reports. */
    private void observed(List<WorkloadOutcome> outcomes, StreamsMemoryPolicyStatus status) {
        List<WorkloadOutcome> seen =
                outcomes.stream().filter(o -> o.verdict() != null).toList();
        status.setPeakMemoryRatio(MemoryVerdict.ratio(seen.stream()
                .map(o -> o.verdict().peakRatio())
                .filter(Objects::nonNull)
                .max(Double::compare)
                .orElse(null)));
        if (seen.isEmpty()) {
            String none = "no pod of the policy's workloads has reported its memory yet";
            conditions.set(Conditions.MEMORY_PRESSURE, false, "NoReports", none);
            conditions.set(Conditions.TOPOLOGY_MISMATCH, false, "NoReports", none);
            return;
        }
        List<String> pressure = findings(seen, MemoryVerdict::pressure);
        conditions.set(
                Conditions.MEMORY_PRESSURE,
                !pressure.isEmpty(),
                pressure.isEmpty() ? "WithinMemory" : "MemoryPressure",
                pressure.isEmpty() ? "every reporting pod is within its memory" : BoundedMessages.join(pressure));
        List<String> mismatch = findings(seen, MemoryVerdict::mismatch);
        conditions.set(
                Conditions.TOPOLOGY_MISMATCH,
                !mismatch.isEmpty(),
                mismatch.isEmpty() ? "AsPlanned" : "TopologyMismatch",
                mismatch.isEmpty()
                        ? "the pods run the threads, tasks and RocksDB instances " + "the plan assumed"
                        : BoundedMessages.join(mismatch));
    }

    private static List<String> findings(List<WorkloadOutcome> seen, Function<MemoryVerdict, String> finding) {
        return seen.stream()
                .filter(o -> finding.apply(o.verdict()) != null)
                .map(o -> o.row().getKind() + " " + o.row().getName() + ": " + finding.apply(o.verdict()))
                .toList();
    }

    /**
     * What failed, counted ("1 of 3 workload(s) failed: Deployment a: ..."), with the policy's own problem (one
     * pod running every task does not fit) when it has no workload; null when nothing failed.
     */
    public static String failure(List<WorkloadOutcome> outcomes, String policyProblem) {
        List<String> failures = outcomes.stream()
                .filter(WorkloadOutcome::failed)
                .map(WorkloadOutcome::failure)
                .toList();
        if (!failures.isEmpty()) {
            return failures.size() + " of " + outcomes.size() + " workload(s) failed: "
                    + BoundedMessages.join(failures);
        }
        return policyProblem;
    }

    /** Unsatisfiable when only the engine said no (more memory helps), else WorkloadsFailed. */
    public static String failureReason(List<WorkloadOutcome> outcomes) {
        return outcomes.stream()
                        .filter(WorkloadOutcome::failed)
                        .allMatch(o -> "AllocationFailed".equals(o.failureReason()))
                ? "Unsatisfiable"
                : "WorkloadsFailed";
    }

    private StreamsMemoryPolicyStatus start() {
        StreamsMemoryPolicyStatus status = new StreamsMemoryPolicyStatus();
        status.setObservedGeneration(generation);
        return status;
    }

    private static void copyNumbers(StreamsMemoryPolicyStatus from, StreamsMemoryPolicyStatus to) {
        to.setHeap(from.getHeap());
        to.setRocksDb(from.getRocksDb());
        to.setRecordCache(from.getRecordCache());
        to.setTopology(from.getTopology());
    }
}
