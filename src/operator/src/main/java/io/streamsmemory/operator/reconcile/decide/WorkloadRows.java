package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.operator.workload.AllocationConfigMap.configMapName;
import static io.streamsmemory.operator.workload.MetadataKeys.ALLOCATION_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.RESTART_HASH;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.api.FactStatus;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.plan.FittingPlan;
import io.streamsmemory.operator.plan.LearnedFacts;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.tune.TunedPlan;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.Workload;
import java.util.List;

/**
 * A workload's row of the policy's status, built once from what its reconcile decided ({@link WorkloadDecider}): what
 * was planned, the allocation, a plan held back, the pods counted, what they showed. Nothing here reads or writes the
 * cluster.
 */
public final class WorkloadRows {
    private WorkloadRows() {}

    /** Which allocation the row names: the one the pods run or will run. */
    record Shown(String allocationHash, String restartHash, boolean restartPending, String newerPlanPending) {
        /** A plan that could not be allocated: what stays published, if anything. */
        static Shown published(ConfigMap current) {
            return new Shown(
                    AllocationConfigMap.annotation(current, ALLOCATION_HASH).orElse(null),
                    AllocationConfigMap.annotation(current, RESTART_HASH).orElse(null),
                    false,
                    null);
        }

        /** A newer plan held back: the pods keep the applied plan, and the row says what waits and why. */
        static Shown held(AllocationDocument applied, String reason) {
            return new Shown(applied.hash(), applied.restartHash(), false, reason);
        }
    }

    /**
     * The row, in one place.
     *
     * @param tuned      the plan, null when the reconcile failed before one was made
     * @param allocation the allocation, null when none could be made
     * @param shown      the allocation the row names when it is not {@code allocation}'s, else null
     * @param pods       the pods counted against it, null when they could not be
     * @param message    why the workload failed, else null
     */
    public static WorkloadAllocationStatus of(
            Workload workload,
            TunedPlan tuned,
            Allocation allocation,
            Shown shown,
            boolean restartPending,
            PodDrift.Count pods,
            MemoryVerdict verdict,
            String message) {
        WorkloadAllocationStatus row = start(workload);
        if (tuned != null) {
            showPlan(row, tuned);
        }
        if (allocation != null) {
            showAllocation(row, allocation);
            row.setRestartPending(restartPending);
        }
        if (shown != null) {
            row.setAllocationHash(shown.allocationHash());
            row.setRestartHash(shown.restartHash());
            row.setRestartPending(shown.restartPending());
            row.setNewerPlanPending(shown.newerPlanPending());
        }
        if (pods != null) {
            row.setPods(pods.pods());
            row.setPodsInjected(pods.injected());
            row.setPodsNotInjected(pods.notInjected());
            row.setPodsOutdated(pods.outdated());
            row.setPodsSkipped(pods.skipped());
        }
        showVerdict(row, verdict);
        row.setMessage(message);
        return row;
    }

    /** The row every reconcile of the workload starts with: which workload, and its ConfigMap. */
    static WorkloadAllocationStatus start(Workload workload) {
        WorkloadAllocationStatus row = new WorkloadAllocationStatus();
        row.setKind(workload.kind());
        row.setName(workload.name());
        row.setReplicas(workload.replicas());
        row.setConfigMap(configMapName(workload.kind(), workload.name()));
        return row;
    }

    /** The facts the plan used and where each came from, the tuned split and the replica range planned for. */
    static void showPlan(WorkloadAllocationStatus row, TunedPlan tuned) {
        FittingPlan fitted = tuned.fitted();
        LearnedFacts topology = fitted.plan().topology();
        PlannedRange range = fitted.range();
        row.setFacts(topology.facts().stream()
                .map(f -> new FactStatus(f.name(), f.value(), f.source().name()))
                .toList());
        row.setJvmCapsAwaitingReport(flags(topology.awaitingReport()));
        row.setJvmCapsLifted(flags(topology.lifted()));
        row.setTunedSplit(tuned.splitText());
        row.setSplitTuning(
                tuned.decision().message() != null
                        ? tuned.decision().message()
                        : tuned.state().said());
        List<String> provisional = topology.provisional();
        row.setProvisionalFacts(provisional.isEmpty() ? null : provisional);
        row.setReplicaRange(range.text());
        row.setReplicaRangeSource(range.source());
        row.setThreads(fitted.plan().facts().streamThreads());
        row.setMemory(format(fitted.plan().facts().memoryBytes()));
    }

    static void showAllocation(WorkloadAllocationStatus row, Allocation allocation) {
        row.setTasksPerPod(allocation.topology().activeTasksPerPod());
        row.setRocksDbInstances(allocation.topology().rocksDbInstances());
        row.setPlannedRocksDbInstances(allocation.plannedTopology().rocksDbInstances());
        row.setHeap(format(allocation.part("heap").bytes()));
        row.setRocksDb(format(allocation.part("rocksdb").bytes()));
        row.setRecordCache(format(allocation.part("record-cache").bytes()));
        row.setAllocationHash(allocation.hash());
        row.setRestartHash(allocation.restartHash());
    }

    /** What the pods reported against the plan, when they reported. */
    static void showVerdict(WorkloadAllocationStatus row, MemoryVerdict verdict) {
        if (verdict != null) {
            row.setObserved(verdict.observed());
            row.setRecommendation(verdict.recommendation());
        }
    }

    /** The caps' flags as the row lists them, null when there are none. */
    private static List<String> flags(List<JvmCap> caps) {
        return caps.isEmpty() ? null : caps.stream().map(JvmCap::flag).toList();
    }
}
