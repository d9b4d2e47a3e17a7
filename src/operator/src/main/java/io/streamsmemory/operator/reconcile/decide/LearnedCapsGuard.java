package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.MiB;
import static io.streamsmemory.engine.ByteSize.format;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.plan.LearnedCaps;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The safety of learned JVM caps and headroom ({@code spec.jvm.sizing: Observed}): a pod that uses
 * {@link MemoryModel#LEARNED_CAP_PRESSURE_PERCENT}% of a learned cap in force is near {@code OutOfMemoryError:
 * Metaspace} or a JIT that stops compiling, and one that holds that much of a learned headroom beyond its bounded parts
 * is near the kernel's limit, so the workload is under MemoryPressure and its next plan takes the model's caps and
 * headroom back at once (a crash-loop or an OOM kill is what waiting would cost).
 */
public final class LearnedCapsGuard {
    private LearnedCapsGuard() {}

    /**
     * A pod crossed a learned cap.
     *
     * @param message         what it used of which cap, as MemoryPressure says it
     * @param alreadyRestored whether the published plan already has the model's caps back (the pressure holds while
     *                        the window keeps the peak; nothing more is restored)
     */
    record Crossing(
            String message, boolean alreadyRestored, long metaspaceCapMiB, long codeCacheCapMiB, long headroomMiB) {}

    /**
     * Holds the window's peaks against the learned caps: those of the published plan ({@code published}) when it
     * learned them ({@code before}, its learned-facts annotation), else those it restored.
     */
    static Optional<Crossing> check(Map<String, Integer> before, AllocationDocument published, JvmCapsUse seen) {
        Optional<LearnedCaps.Restored> restoredCaps = LearnedCaps.restoredIn(before);
        boolean restored = restoredCaps.isPresent();
        Long metaspaceCap;
        Long codeCacheCap;
        Long headroom;
        if (restored) {
            metaspaceCap = mib(restoredCaps.get().metaspaceCapMiB());
            codeCacheCap = mib(restoredCaps.get().codeCacheCapMiB());
            headroom = mib(restoredCaps.get().headroomMiB());
        } else if (LearnedCaps.learnedFromPeaks(before) && published != null) {
            metaspaceCap = option(published.jvmOptions(), "-XX:MaxMetaspaceSize=");
            codeCacheCap = option(published.jvmOptions(), "-XX:ReservedCodeCacheSize=");
            // Only a headroom below the model's is held: the model's is no learned bound to cross.
            headroom = published.inputs() == null
                    ? null
                    : boxed(AllocationEngine.learnedHeadroomBytes(published.inputs()));
        } else {
            return Optional.empty();
        }
        List<String> crossed = new ArrayList<>();
        cross(crossed, "metaspace", seen.metaspacePeakBytes(), metaspaceCap, "cap");
        cross(crossed, "code cache", seen.codeCachePeakBytes(), codeCacheCap, "cap");
        cross(crossed, "resident memory beyond the bounded parts", seen.headroomPeakBytes(), headroom, "headroom");
        if (crossed.isEmpty()) {
            return Optional.empty();
        }
        String message = String.join("; ", crossed)
                + (restored
                        ? ": the model's caps are restored"
                        : ": restoring the model's caps at once (the rollout rate limit does not hold it back)");
        return Optional.of(new Crossing(
                message,
                restored,
                metaspaceCap == null ? 0 : metaspaceCap / MiB,
                codeCacheCap == null ? 0 : codeCacheCap / MiB,
                headroom == null ? 0 : headroom / MiB));
    }

    private static void cross(List<String> crossed, String pool, Long peak, Long bound, String what) {
        if (peak != null
                && bound != null
                && bound > 0
                && peak * 100 >= bound * MemoryModel.LEARNED_CAP_PRESSURE_PERCENT) {
            crossed.add(String.format(
                    Locale.ROOT,
                    "a pod's %s reached %s, %.0f%% of its learned %s %s (at %d%% the %s is restored)",
                    pool,
                    format(peak),
                    100.0 * peak / bound,
                    format(bound),
                    what,
                    MemoryModel.LEARNED_CAP_PRESSURE_PERCENT,
                    what));
        }
    }

    private static Long boxed(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }

    private static Long mib(Integer value) {
        return value == null ? null : value * MiB;
    }

    /** A size flag the engine wrote ("-XX:MaxMetaspaceSize=48m"), in bytes; null when absent. */
    private static Long option(List<String> options, String prefix) {
        return options.stream()
                .filter(option -> option.startsWith(prefix))
                .findFirst()
                .map(option -> ByteSize.parseJvmSize(option.substring(prefix.length())))
                .orElse(null);
    }
}
