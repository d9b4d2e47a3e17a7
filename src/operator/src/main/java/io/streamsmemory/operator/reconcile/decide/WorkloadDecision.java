package io.streamsmemory.operator.reconcile.decide;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * What one workload's reconcile decided, as a value: its outcome (the status row, built once), the ConfigMap to apply
 * (null: the published one stays), the writes to the workload ({@link RolloutStep}) and the Events. {@link
 * WorkloadActor} carries it out; nothing here has been written yet.
 *
 * @param allocation the allocation decided, for the metrics; null when none could be made
 */
public record WorkloadDecision(
        WorkloadOutcome outcome, ConfigMap toApply, List<RolloutStep> steps, List<Told> told, Allocation allocation) {
    /**
     * A workload whose allocation cannot be published: its row says why, as a Warning Event does after what was
     * already told; nothing is written.
     */
    public static WorkloadDecision failed(
            Workload workload,
            WorkloadAllocationStatus row,
            List<Told> told,
            List<String> warnings,
            String reason,
            String message) {
        List<Told> all = new ArrayList<>(told);
        all.add(Told.warning(reason, message));
        return new WorkloadDecision(
                new WorkloadOutcome(
                        row,
                        null,
                        reason,
                        workload.kind() + " " + workload.name() + ": " + message,
                        warnings,
                        null,
                        null),
                null,
                List.of(),
                List.copyOf(all),
                null);
    }
}
