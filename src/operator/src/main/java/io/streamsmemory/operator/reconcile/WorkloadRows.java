package io.streamsmemory.operator.reconcile;

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
 * A workload's row of the policy's status, filled from each step of its reconcile ({@link WorkloadReconciler}): what
 * was planned, the allocation, a plan held back, what the pods showed. Nothing here reads or writes the cluster.
 */
final class WorkloadRows {
    private WorkloadRows() {}

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

    /** A plan that could not be allocated: the row names what stays published. */
    static void showPublished(WorkloadAllocationStatus row, ConfigMap current) {
        AllocationConfigMap.annotation(current, ALLOCATION_HASH).ifPresent(row::setAllocationHash);
        AllocationConfigMap.annotation(current, RESTART_HASH).ifPresent(row::setRestartHash);
        row.setRestartPending(false);
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

    /** A newer plan held back: the pods keep the applied plan, which the row names, and says what waits and why. */
    static void showHeld(WorkloadAllocationStatus row, AllocationDocument applied, String reason) {
        row.setAllocationHash(applied.hash());
        row.setRestartHash(applied.restartHash());
        row.setRestartPending(false);
        row.setNewerPlanPending(reason);
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
