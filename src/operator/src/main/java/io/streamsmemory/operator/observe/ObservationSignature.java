package io.streamsmemory.operator.observe;

import java.time.Duration;
import java.util.Optional;

/**
 * What of a workload's observation a reconcile acts on, coarse enough that a pod in a steady state does not change it
 * every round: the learned topology and JVM caps, a crash loop, the pods counted, the memory a pressure verdict reads
 * in 1% steps and the other figures the status shows in 5% steps, and what the split tuner judges by in 10% steps (its lag in 50% steps) with whether the pods ran
 * long enough to judge. {@link MemoryObserver} tells the reconciler of a workload only when this changed, so no policy
 * is reconciled on a timer to look for reports.
 */
record ObservationSignature(
        ObservedTopology topology,
        String crashLoop,
        int podsReporting,
        int podsNotAnswering,
        Long activeTasks,
        Long standbyTasks,
        Long streamThreads,
        Long rocksDbInstances,
        Long oomKills,
        String recordCacheSource,
        String capHit,
        HeapOverride heapOverride,
        String heapState,
        String figures,
        String tuning) {
    /**
     * What a pressure verdict compares with the plan (memory used and its peak, the metaspace): a step of 1%, so that
     * MemoryPressure (used over 95% of the pod's memory) is raised at most 1% past its line.
     */
    private static final double PRESSURE_STEP = 0.01;

    private static final double FIGURE_STEP = 0.05;
    private static final double TUNING_STEP = 0.10;
    private static final double LAG_STEP = 0.50;

    static ObservationSignature of(
            Optional<WorkloadObservation> seen,
            Optional<ObservedTopology> topology,
            Optional<CrashLoop> crash,
            Duration settle) {
        WorkloadObservation o = seen.orElse(null);
        return new ObservationSignature(
                topology.orElse(null),
                crash.map(c -> c.pod() + "/" + c.container() + ": " + c.exitCode() + " " + c.message())
                        .orElse(null),
                o == null ? 0 : o.podsReporting(),
                o == null ? 0 : o.podsNotAnswering(),
                o == null ? null : o.activeTasks(),
                o == null ? null : o.standbyTasks(),
                o == null ? null : o.streamThreads(),
                o == null ? null : o.rocksDbInstances(),
                o == null ? null : o.oomKills(),
                o == null ? null : o.recordCacheSource(),
                o == null ? null : o.capHit(),
                o == null ? null : o.heapOverride(),
                o == null ? null : heapState(o.heapState()),
                o == null ? null : figures(o),
                o == null ? null : tuning(o.tuning(), settle));
    }

    private static String figures(WorkloadObservation o) {
        return step(o.usedBytes(), PRESSURE_STEP) + "," + step(o.peakBytes(), PRESSURE_STEP) + ","
                + step(o.heapUsedBytes(), FIGURE_STEP) + "," + step(o.blockCacheUsageBytes(), FIGURE_STEP) + ","
                + step(o.unexplainedBytes(), FIGURE_STEP) + "," + step(o.loadedClasses(), FIGURE_STEP) + ","
                + step(o.metaspaceUsedBytes(), PRESSURE_STEP) + "," + step(o.recordCacheBytes(), FIGURE_STEP);
    }

    private static String heapState(HeapState state) {
        return state == null
                ? null
                : step(state.stateBytes(), FIGURE_STEP) + "," + step(state.bufferBytes(), FIGURE_STEP) + ","
                        + state.inMemoryStores() + "," + state.suppressionBuffers() + "," + state.unboundedBuffers()
                        + "," + state.unboundedNames();
    }

    private static String tuning(TuningSignals t, Duration settle) {
        if (t == null) {
            return null;
        }
        return t.allocationHash() + "," + (t.minUptimeMillis() >= settle.toMillis()) + ","
                + step(perMillion(t.gcShare()), TUNING_STEP) + "," + step(perMillion(t.stallShare()), TUNING_STEP) + ","
                + step(t.meanFlushBytes(), TUNING_STEP) + "," + step(t.storageReadsPerSecond(), TUNING_STEP) + ","
                + step(t.consumerLagRecords(), LAG_STEP) + "," + step(t.cpuNanosPerRecord(), TUNING_STEP);
    }

    /** A share (a fraction of time) in parts per million, so that it steps as the other figures do. */
    private static Double perMillion(Double share) {
        return share == null ? null : share * 1_000_000;
    }

    /** The figure's step on a scale where each is {@code step} larger than the one below; "?" when unknown. */
    static String step(Number figure, double step) {
        if (figure == null) {
            return "?";
        }
        double value = figure.doubleValue();
        long bucket = (long) Math.floor(Math.log1p(Math.abs(value)) / Math.log1p(step));
        return (value < 0 ? "-" : "") + bucket;
    }
}
