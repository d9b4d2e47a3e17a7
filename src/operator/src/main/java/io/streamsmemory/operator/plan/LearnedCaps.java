package io.streamsmemory.operator.plan;

import static io.streamsmemory.operator.plan.LearnedAnnotation.CAPS_RESTORED;
import static io.streamsmemory.operator.plan.LearnedAnnotation.CODE_CACHE_PEAK_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.HEADROOM_PEAK_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.LIVE_THREADS;
import static io.streamsmemory.operator.plan.LearnedAnnotation.METASPACE_PEAK_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.RESTORED_CODE_CACHE_CAP_MIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.RESTORED_HEADROOM_MIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.RESTORED_METASPACE_CAP_MIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.liftedKey;

import io.streamsmemory.engine.JvmCap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The JVM caps' way back, as the published plan's learned values carry it from one plan to the next: a cap lifted
 * for good (until the policy changes) after a JVM hit it, and the model's caps restored after a pod used 90% of a
 * learned one (spec.jvm.sizing: Observed), with the learned caps they replaced.
 */
public final class LearnedCaps {
    /** The keys a restore writes, and the next plan keeps while the model's caps stay. */
    static final List<String> RESTORE_KEYS =
            List.of(CAPS_RESTORED, RESTORED_METASPACE_CAP_MIB, RESTORED_CODE_CACHE_CAP_MIB, RESTORED_HEADROOM_MIB);

    /** The learned caps and headroom a restore replaced, in MiB; null where there was none (the model's headroom). */
    public record Restored(Integer metaspaceCapMiB, Integer codeCacheCapMiB, Integer headroomMiB) {}

    private LearnedCaps() {}

    /**
     * What the published plan learned, with {@code caps} lifted at the policy's {@code generation}: the next plan
     * leaves them unset until the policy changes.
     */
    public static Map<String, Integer> lift(Map<String, Integer> before, Set<JvmCap> caps, int generation) {
        Map<String, Integer> lifted = new LinkedHashMap<>(before);
        caps.forEach(cap -> lifted.put(liftedKey(cap), generation));
        return lifted;
    }

    /** What the published plan learned, without the lifts of an earlier generation of the policy. */
    public static Map<String, Integer> liftsOf(Map<String, Integer> before, int generation) {
        Map<String, Integer> current = new LinkedHashMap<>(before);
        for (JvmCap cap : JvmCap.values()) {
            current.computeIfPresent(liftedKey(cap), (key, at) -> at == generation ? at : null);
        }
        return current;
    }

    /** Whether a JVM hit {@code cap} since the policy last changed: the generation it was lifted at, if so. */
    public static Optional<Integer> liftedAt(Map<String, Integer> before, JvmCap cap) {
        return Optional.ofNullable(before.get(liftedKey(cap)));
    }

    /**
     * What the published plan learned, with the JVM caps restored: the next plan uses the model's caps and headroom,
     * and keeps the learned caps and headroom it replaced (MiB, the headroom's 0 when it was the model's) to hold
     * MemoryPressure against.
     */
    public static Map<String, Integer> restored(
            Map<String, Integer> before, long metaspaceCapMiB, long codeCacheCapMiB, long headroomMiB) {
        Map<String, Integer> restored = new LinkedHashMap<>(before);
        restored.keySet().removeAll(List.of(METASPACE_PEAK_KIB, CODE_CACHE_PEAK_KIB, LIVE_THREADS, HEADROOM_PEAK_KIB));
        restored.put(CAPS_RESTORED, 1);
        restored.put(RESTORED_METASPACE_CAP_MIB, (int) metaspaceCapMiB);
        restored.put(RESTORED_CODE_CACHE_CAP_MIB, (int) codeCacheCapMiB);
        if (headroomMiB > 0) {
            restored.put(RESTORED_HEADROOM_MIB, (int) headroomMiB);
        }
        return restored;
    }

    /** The caps a restore replaced, when the published plan has the model's caps back. */
    public static Optional<Restored> restoredIn(Map<String, Integer> before) {
        return before.containsKey(CAPS_RESTORED)
                ? Optional.of(new Restored(
                        before.get(RESTORED_METASPACE_CAP_MIB),
                        before.get(RESTORED_CODE_CACHE_CAP_MIB),
                        before.get(RESTORED_HEADROOM_MIB)))
                : Optional.empty();
    }

    /** Whether the published plan sized its caps from the JVM's peaks (spec.jvm.sizing: Observed, not restored). */
    public static boolean learnedFromPeaks(Map<String, Integer> before) {
        return before.containsKey(METASPACE_PEAK_KIB);
    }
}
