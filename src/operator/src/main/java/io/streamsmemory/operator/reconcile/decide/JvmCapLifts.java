package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.format;

import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.observe.CrashLoop;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.plan.LearnedAnnotation;
import io.streamsmemory.operator.plan.LearnedCaps;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * When a JVM cap in force must go (issue 42): a JVM that hit it (an injected container in a restart loop, its
 * termination message naming the cap, or naming none: then every cap the operator set that can stop a JVM; or a
 * running JVM whose report shows the cap full), or a pod using {@link MemoryModel#LEARNED_CAP_PRESSURE_PERCENT}% of a cap learned from the pods' own reports. The next plan
 * leaves the cap unset (its room stays as headroom) until the policy changes, and rolls at once: the operator never
 * keeps a workload in a crash loop it caused. Caps of {@code spec.jvm.sizing: Observed} below the model's are
 * {@link LearnedCapsGuard}'s to restore first.
 */
public final class JvmCapLifts {
    private JvmCapLifts() {}

    /**
     * The caps to lift and why, as the Event says it.
     *
     * @param afterCrash whether a JVM hit the cap (a restart loop), rather than came near one learned from its reports
     */
    record Lift(Set<JvmCap> caps, String message, boolean afterCrash) {}

    /**
     * @param published the published allocation (its flags are the caps in force), null before the first
     * @param before    what the published plan learned, lifts of earlier policy generations left out
     * @param crash     an injected container of the workload in a restart loop, if the last round saw one
     * @param seen      the most the workload's pods used over the window
     */
    static Optional<Lift> check(
            AllocationDocument published, Map<String, Integer> before, Optional<CrashLoop> crash, JvmCapsUse seen) {
        Map<JvmCap, Long> inForce = capsInForce(published, before);
        if (inForce.isEmpty()) {
            return Optional.empty();
        }
        if (crash.isPresent()) {
            Set<JvmCap> named = crash.get().namedCaps();
            EnumSet<JvmCap> caps = EnumSet.copyOf(inForce.keySet());
            if (!named.isEmpty()) {
                caps.retainAll(named);
            }
            if (!caps.isEmpty()) {
                return Optional.of(new Lift(caps, crash.get().describe() + ": lifting " + flags(caps), true));
            }
        }
        // A JVM that filled a cap it runs with has hit it, whatever planned the cap: an OutOfMemoryError in a thread
        // that does not end the JVM (a stream thread replaced, a request failed) leaves it running at the cap. A
        // metaspace cap of Observed sizing is LearnedCapsGuard's: it restores the model's cap first.
        boolean observedSizing = LearnedCaps.learnedFromPeaks(before);
        EnumSet<JvmCap> hit = EnumSet.noneOf(JvmCap.class);
        List<String> hitWhy = new ArrayList<>();
        if (!observedSizing) {
            crossed(JvmCap.METASPACE, seen.metaspacePeakBytes(), inForce, JvmCapsUse.HIT_PERCENT, "", hit, hitWhy);
        }
        crossed(JvmCap.DIRECT_MEMORY, seen.directPeakBytes(), inForce, JvmCapsUse.HIT_PERCENT, "", hit, hitWhy);
        if (!hit.isEmpty()) {
            return Optional.of(new Lift(hit, String.join("; ", hitWhy) + ": lifting " + flags(hit), true));
        }
        // A cap learned from the pods' reports that a pod came near: lifted before a JVM hits it.
        EnumSet<JvmCap> pressed = EnumSet.noneOf(JvmCap.class);
        List<String> why = new ArrayList<>();
        String learned = " learned from the pods' reports";
        if (before.containsKey(LearnedAnnotation.LOADED_CLASSES) && !observedSizing) {
            crossed(JvmCap.METASPACE, seen.metaspacePeakBytes(), inForce, PRESSURE, learned, pressed, why);
        }
        if (before.containsKey(LearnedAnnotation.DIRECT_PEAK_KIB)) {
            crossed(JvmCap.DIRECT_MEMORY, seen.directPeakBytes(), inForce, PRESSURE, learned, pressed, why);
        }
        return pressed.isEmpty()
                ? Optional.empty()
                : Optional.of(new Lift(pressed, String.join("; ", why) + ": lifting " + flags(pressed), false));
    }

    private static final long PRESSURE = MemoryModel.LEARNED_CAP_PRESSURE_PERCENT;

    /** Adds {@code cap} to {@code caps} when the peak reached {@code percent}% of it, and says so in {@code why}. */
    private static void crossed(
            JvmCap cap,
            Long peak,
            Map<JvmCap, Long> inForce,
            long percent,
            String source,
            Set<JvmCap> caps,
            List<String> why) {
        Long limit = inForce.get(cap);
        if (peak == null || limit == null || peak * 100 < limit * percent) {
            return;
        }
        caps.add(cap);
        why.add(String.format(
                Locale.ROOT,
                "a pod's %s reached %s, %.0f%% of the %s=%s%s (at %d%% it is lifted)",
                cap == JvmCap.METASPACE ? "metaspace" : cap.fact(),
                format(peak),
                100.0 * peak / limit,
                cap.flag(),
                format(limit),
                source,
                percent));
    }

    /** The caps the published plan sets, in bytes, that were not lifted already. */
    private static Map<JvmCap, Long> capsInForce(AllocationDocument published, Map<String, Integer> before) {
        Map<JvmCap, Long> caps = new EnumMap<>(JvmCap.class);
        if (published == null || published.jvmOptions() == null) {
            return caps;
        }
        for (JvmCap cap : JvmCap.values()) {
            if (LearnedCaps.liftedAt(before, cap).isPresent()) {
                continue;
            }
            for (String option : published.jvmOptions()) {
                if (option.startsWith(cap.flag() + "=")) {
                    Long bytes =
                            ByteSize.parseJvmSize(option.substring(cap.flag().length() + 1));
                    if (bytes != null) {
                        caps.put(cap, bytes);
                    }
                }
            }
        }
        return caps;
    }

    private static String flags(Set<JvmCap> caps) {
        return String.join(" and ", caps.stream().map(JvmCap::flag).toList())
                + " (unset from the next plan, its room kept as headroom, until the policy changes)";
    }
}
