package io.streamsmemory.operator.observe;

import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.format;

import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.Topology;
import io.streamsmemory.operator.api.ObservedMemoryStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A workload's observed figures held against its plan: the status row's {@code observed}, whether it is under
 * memory pressure, whether it runs another topology than the plan assumed, and what to change, in the policy's
 * own terms.
 *
 * @param pressure    why the workload is under memory pressure, null when it is not
 * @param mismatch    how the running topology differs from the planned one, null when it does not
 */
public record MemoryVerdict(
        WorkloadObservation seen,
        ObservedMemoryStatus observed,
        Double peakRatio,
        String pressure,
        String mismatch,
        String recommendation) {
    /** Above this share of the pod's memory a pod is under pressure (the OOM killer is near). */
    static final double PRESSURE_RATIO = 0.95;
    /** The margin a suggested memory keeps above the observed peak, and a suggested class count above the count seen. */
    static final double SUGGESTION_MARGIN = 1.25;
    /**
     * Above this share of its cap the metaspace is under pressure: at the cap the JVM fails with
     * {@code OutOfMemoryError: Metaspace}, and a pod that loads more classes than planned crash-loops.
     */
    static final double METASPACE_PRESSURE_RATIO = 0.90;
    /** A pod loading fewer than this share of the planned classes is told how much memory the cap holds back. */
    static final double FEW_CLASSES_RATIO = 0.5;

    private static final AllocationEngine ENGINE = new AllocationEngine();
    private static final String METASPACE_PART = "jvm-metaspace";

    public static MemoryVerdict of(Allocation allocation, WorkloadObservation seen, Duration window) {
        long memory = allocation.memoryBytes();
        Double peakRatio = seen.peakBytes() == null ? null : (double) seen.peakBytes() / memory;
        String memoryPressure = pressure(seen, memory);
        String metaspacePressure = metaspacePressure(allocation, seen);
        String pressure = memoryPressure == null
                ? metaspacePressure
                : metaspacePressure == null ? memoryPressure : memoryPressure + "; " + metaspacePressure;
        String mismatch = mismatch(allocation, seen);
        return new MemoryVerdict(
                seen,
                status(seen, peakRatio),
                peakRatio,
                pressure,
                mismatch,
                recommendation(allocation, seen, peakRatio, memoryPressure, mismatch, window));
    }

    /** The verdict with one more reason for memory pressure, found outside the reports' figures. */
    public MemoryVerdict withPressure(String more) {
        return new MemoryVerdict(
                seen, observed, peakRatio, pressure == null ? more : pressure + "; " + more, mismatch, recommendation);
    }

    private static String pressure(WorkloadObservation seen, long memory) {
        List<String> why = new ArrayList<>();
        if (seen.usedBytes() != null && seen.usedBytes() > PRESSURE_RATIO * memory) {
            why.add(String.format(
                    Locale.ROOT,
                    "a pod uses %s of its %s (%.0f%%, above %.0f%%)",
                    format(seen.usedBytes()),
                    format(memory),
                    100.0 * seen.usedBytes() / memory,
                    100 * PRESSURE_RATIO));
        }
        if (seen.oomKills() != null && seen.oomKills() > 0) {
            // The peak of the window, which holds the killed container's last reports; not the figures of the
            // container running now, which kubelet started afresh after the kill.
            String figures = seen.peakBytes() == null
                    ? ""
                    : ", peak " + format(seen.peakBytes()) + " of " + format(memory) + " in the window";
            why.add(seen.oomKills() + " OOM kill(s) of its pods (kubelet's container statuses and the pods' cgroups)"
                    + figures);
        }
        return why.isEmpty() ? null : String.join("; ", why);
    }

    private static String metaspacePressure(Allocation allocation, WorkloadObservation seen) {
        if (!allocation.facts().capped(JvmCap.METASPACE)) {
            return null; // no cap to reach: its room is headroom
        }
        long cap = allocation.part(METASPACE_PART).bytes();
        if (seen.metaspaceUsedBytes() == null || seen.metaspaceUsedBytes() <= METASPACE_PRESSURE_RATIO * cap) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "a pod's metaspace uses %s of its %s cap (%.0f%%, above %.0f%%; %s loaded classes, planned %,d): at "
                        + "the cap the JVM fails with OutOfMemoryError: Metaspace",
                format(seen.metaspaceUsedBytes()),
                format(cap),
                100.0 * seen.metaspaceUsedBytes() / cap,
                100 * METASPACE_PRESSURE_RATIO,
                seen.loadedClasses() == null ? "unknown" : String.format(Locale.ROOT, "%,d", seen.loadedClasses()),
                allocation.facts().loadedClasses());
    }

    private static String mismatch(Allocation allocation, WorkloadObservation seen) {
        List<String> why = new ArrayList<>();
        long threads = allocation.facts().streamThreadsPerPod();
        if (seen.streamThreads() != null && seen.streamThreads() != threads) {
            why.add("running " + seen.streamThreads() + " stream threads, planned " + threads);
        }
        Topology planned = allocation.plannedTopology();
        long plannedTasks = planned.activeTasksPerPod() + planned.standbyTasksPerPod();
        long tasks = (seen.activeTasks() == null ? 0 : seen.activeTasks())
                + (seen.standbyTasks() == null ? 0 : seen.standbyTasks());
        if (seen.activeTasks() != null && tasks > plannedTasks) {
            why.add("running " + tasks + " tasks in a pod, planned at most " + plannedTasks);
        }
        if (seen.rocksDbInstances() != null && seen.rocksDbInstances() > planned.rocksDbInstances()) {
            why.add("running " + seen.rocksDbInstances() + " RocksDB instances in a pod, planned at most "
                    + planned.rocksDbInstances());
        }
        return why.isEmpty() ? null : String.join("; ", why);
    }

    private static String recommendation(
            Allocation allocation,
            WorkloadObservation seen,
            Double peakRatio,
            String pressure,
            String mismatch,
            Duration window) {
        List<String> advice = new ArrayList<>();
        Topology current = allocation.topology();
        long tasks = current.activeTasksPerPod() + current.standbyTasksPerPod();
        if (seen.rocksDbInstances() != null
                && tasks > 0
                && seen.rocksDbInstances() > allocation.plannedTopology().rocksDbInstances()) {
            advice.add(storesAdvice(allocation, seen, tasks));
        }
        if (seen.streamThreads() != null
                && seen.streamThreads() != allocation.facts().streamThreadsPerPod()) {
            advice.add("declared " + allocation.facts().streamThreadsPerPod() + " stream threads per pod, running "
                    + seen.streamThreads() + ": set spec.streams.threads (or the workload's "
                    + "streamsmemory.io/stream-threads annotation) to what the application runs");
        }
        String classes = classAdvice(allocation, seen);
        if (classes != null) {
            advice.add(classes);
        }
        long memory = allocation.memoryBytes();
        if (seen.peakBytes() != null) {
            long suggested = atLeastWhatFits(allocation, roundUpTo64Mi((long) (seen.peakBytes() * SUGGESTION_MARGIN)));
            String peak = String.format(
                    Locale.ROOT,
                    "memory %s, peak %s over %s (%.2f)",
                    format(memory),
                    format(seen.peakBytes()),
                    window,
                    peakRatio);
            if (pressure != null) {
                advice.add(peak + ": raise spec.memory (and the container limit) to at least "
                        + format(Math.max(suggested, memory + 64 * MiB)));
            } else if (suggested < memory * 3 / 4 && mismatch == null) {
                advice.add(peak + ": " + format(suggested) + " would hold with a 25% margin over the peak (and "
                        + "the plan's floors)");
            } else if (advice.isEmpty()) {
                advice.add(peak + ": the plan holds");
            }
        }
        return advice.isEmpty() ? null : String.join("; ", advice);
    }

    /** More RocksDB instances per task than the policy declares stores for. */
    private static String storesAdvice(Allocation allocation, WorkloadObservation seen, long tasks) {
        long seenTasks = seen.activeTasks() == null
                ? tasks
                : seen.activeTasks() + (seen.standbyTasks() == null ? 0 : seen.standbyTasks());
        return String.format(
                Locale.ROOT,
                "declared %d RocksDB instance(s) per task, running about %.1f: " + "raise spec.streams.stores",
                allocation.facts().stores().rocksDbInstancesPerTask(),
                (double) seen.rocksDbInstances() / Math.max(1, seenTasks));
    }

    /**
     * The metaspace cap is sized from the policy's class count ({@code spec.jvm.loadedClasses}, default 15,000): a pod
     * that loads more is told the count to declare before it meets the cap; one that loads under half is told what a
     * count near its own would give back to the heap and RocksDB.
     */
    private static String classAdvice(Allocation allocation, WorkloadObservation seen) {
        Long loaded = seen.loadedClasses();
        long planned = allocation.facts().loadedClasses();
        if (loaded == null || loaded == 0) {
            return null;
        }
        int suggested = (int)
                Math.min(MemoryModel.MAX_LOADED_CLASSES, (long) Math.ceil(loaded * SUGGESTION_MARGIN / 1000.0) * 1000);
        String seenText = String.format(Locale.ROOT, "loaded %,d classes, planned %,d", loaded, planned);
        if (loaded > planned) {
            return seenText + ": set spec.jvm.loadedClasses to " + suggested
                    + " (the metaspace cap grows with it, the other parts give way)";
        }
        if (loaded >= FEW_CLASSES_RATIO * planned || suggested >= planned) {
            return null;
        }
        AllocationResult fewer = ENGINE.allocate(
                allocation.facts().toBuilder().loadedClasses(suggested).build());
        if (!fewer.ok()) {
            return null;
        }
        long freed = allocation.part(METASPACE_PART).bytes()
                - fewer.allocation().part(METASPACE_PART).bytes();
        return seenText + ": spec.jvm.loadedClasses " + suggested + " would give " + format(freed)
                + " of the metaspace cap to the heap and RocksDB";
    }

    /** {@code memory}, or the least the engine can split for these facts when that is more. */
    private static long atLeastWhatFits(Allocation allocation, long memory) {
        AllocationResult result = ENGINE.allocate(
                allocation.facts().toBuilder().memoryBytes(memory).build());
        return result.ok() || result.minimumMemoryBytes() == null ? memory : roundUpTo64Mi(result.minimumMemoryBytes());
    }

    private static ObservedMemoryStatus status(WorkloadObservation seen, Double peakRatio) {
        ObservedMemoryStatus status = new ObservedMemoryStatus();
        status.setPodsReporting(seen.podsReporting());
        status.setPodsNotAnswering(seen.podsNotAnswering());
        status.setPeakMemory(bytes(seen.peakBytes()));
        status.setPeakMemoryRatio(ratio(peakRatio));
        status.setMemoryNow(bytes(seen.usedBytes()));
        status.setHeapUsed(bytes(seen.heapUsedBytes()));
        status.setBlockCacheUsage(bytes(seen.blockCacheUsageBytes()));
        status.setUnexplained(bytes(seen.unexplainedBytes()));
        status.setRecordCache(bytes(seen.recordCacheBytes()));
        status.setRecordCacheSource(seen.recordCacheSource());
        status.setCapHit(seen.capHit());
        status.setHeapFlag(
                seen.heapOverride() == null ? null : seen.heapOverride().describe());
        status.setRocksDbInstances(seen.rocksDbInstances());
        status.setActiveTasks(seen.activeTasks());
        status.setStandbyTasks(seen.standbyTasks());
        status.setStreamThreads(seen.streamThreads());
        status.setOomKills(seen.oomKills());
        return status;
    }

    /** As the status shows a ratio: two decimals. */
    public static String ratio(Double value) {
        return value == null ? null : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String bytes(Long value) {
        return value == null ? null : format(value);
    }

    private static long roundUpTo64Mi(long bytes) {
        long step = 64 * MiB;
        return (bytes + step - 1) / step * step;
    }
}
