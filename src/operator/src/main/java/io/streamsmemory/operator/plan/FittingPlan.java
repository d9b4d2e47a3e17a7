package io.streamsmemory.operator.plan;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.TunedSplit;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.observe.ObservedTopology;
import io.streamsmemory.operator.workload.Workload;
import java.util.Map;
import java.util.Optional;

/**
 * A workload's plan, the engine's answer to it and the replica range it was planned for. The reconciler and the
 * admission webhook (for the first pods of a workload created together with its policy, {@link FirstAllocation})
 * both plan through here, so the same inputs give the same allocation whichever of them publishes it.
 */
public record FittingPlan(WorkloadPlanner.Plan plan, AllocationResult result, PlannedRange range) {
    private static final AllocationEngine ENGINE = new AllocationEngine();

    /**
     * @param seen   what the workload's pods reported over the window, empty before any report
     * @param before what the published plan had learned ({@link LearnedAnnotation#parse})
     * @throws IllegalArgumentException naming the field when the spec cannot be read
     */
    public static FittingPlan of(
            StreamsMemoryPolicySpec spec,
            Workload workload,
            PlannedRange range,
            Optional<ObservedTopology> seen,
            Map<String, Integer> before) {
        FittingPlan first = planned(spec, workload, range, seen, before);
        if (first.result().ok() || !range.isDefault()) {
            return first;
        }
        return planned(spec, workload, fewestReplicasThatFit(spec, workload, range, seen, before), seen, before);
    }

    /**
     * This plan with the split the operator tuned from the pods' reports ({@code null}: the model's), in the same
     * replica range; the engine plans the whole pod again, so the parts still sum to its memory.
     */
    public FittingPlan withTunedSplit(TunedSplit tuned) {
        if (java.util.Objects.equals(tuned, plan.facts().tunedSplit())) {
            return this;
        }
        WorkloadPlanner.Plan tunedPlan = new WorkloadPlanner.Plan(
                plan.facts().toBuilder().tunedSplit(tuned).build(), plan.warnings(), plan.topology());
        return new FittingPlan(tunedPlan, ENGINE.allocate(tunedPlan.facts()), range);
    }

    private static FittingPlan planned(
            StreamsMemoryPolicySpec spec,
            Workload workload,
            PlannedRange range,
            Optional<ObservedTopology> seen,
            Map<String, Integer> before) {
        WorkloadPlanner.Plan plan = WorkloadPlanner.plan(spec, workload, range, seen, before);
        return new FittingPlan(plan, ENGINE.allocate(plan.facts()), range);
    }

    /**
     * The default range starts at 1 replica (one pod holding every task); when the pod's memory cannot hold that, it
     * starts at the fewest replicas whose tasks it can hold, found by bisection (fitting only gets easier with more
     * replicas), so a workload that fits at its current count is never refused for the default. Called once
     * {@code range} is known not to fit.
     */
    private static PlannedRange fewestReplicasThatFit(
            StreamsMemoryPolicySpec spec,
            Workload workload,
            PlannedRange range,
            Optional<ObservedTopology> seen,
            Map<String, Integer> before) {
        int low = range.declared().min(); // does not fit
        int high = range.declared().max();
        if (high <= low
                || !planned(spec, workload, range.from(high), seen, before)
                        .result()
                        .ok()) {
            return range; // nothing in the range fits: the caller reports why
        }
        while (high - low > 1) {
            int middle = low + (high - low) / 2;
            if (planned(spec, workload, range.from(middle), seen, before)
                    .result()
                    .ok()) {
                high = middle;
            } else {
                low = middle;
            }
        }
        return range.from(high);
    }
}
