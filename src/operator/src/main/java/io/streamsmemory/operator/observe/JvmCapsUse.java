package io.streamsmemory.operator.observe;

import static io.streamsmemory.engine.ByteSize.format;

import java.util.Locale;

/**
 * What a JVM used of its capped non-heap memory: the metaspace (committed: what -XX:MaxMetaspaceSize caps) and code
 * cache peaks since it started and the live threads, the figures {@code spec.jvm.sizing: Observed} plans the caps from,
 * and the direct memory it held (the JDK's "direct" buffer pool, once its Kafka Streams runs), which the direct memory
 * cap is planned from, and the resident memory it held beyond the plan's bounded parts
 * ({@link io.streamsmemory.engine.ObservedJvm#headroomUsed}), which the learned headroom is planned from; each null
 * when not reported. Across pods and over the window each is the largest seen.
 */
public record JvmCapsUse(
        Long metaspacePeakBytes,
        Long codeCachePeakBytes,
        Long liveThreads,
        Long directPeakBytes,
        Long headroomPeakBytes) {
    public static final JvmCapsUse NONE = new JvmCapsUse(null, null, null, null, null);

    /** Without the headroom figure. */
    public JvmCapsUse(Long metaspacePeakBytes, Long codeCachePeakBytes, Long liveThreads, Long directPeakBytes) {
        this(metaspacePeakBytes, codeCachePeakBytes, liveThreads, directPeakBytes, null);
    }

    /** Without the direct memory and headroom figures. */
    public JvmCapsUse(Long metaspacePeakBytes, Long codeCachePeakBytes, Long liveThreads) {
        this(metaspacePeakBytes, codeCachePeakBytes, liveThreads, null, null);
    }

    /** The same figures without the headroom's: a pod that has not run long enough for it to say anything. */
    JvmCapsUse withoutHeadroom() {
        return new JvmCapsUse(metaspacePeakBytes, codeCachePeakBytes, liveThreads, directPeakBytes, null);
    }
    /**
     * Used this close to a cap in force (of the JVM's own max), the JVM has hit it: metaspace then fails with
     * {@code OutOfMemoryError: Metaspace}, a full code cache disables the JIT ("CodeCache is full").
     */
    public static final long HIT_PERCENT = 98;

    static final double HIT_RATIO = HIT_PERCENT / 100.0;

    JvmCapsUse max(JvmCapsUse other) {
        return new JvmCapsUse(
                AgentReport.max(metaspacePeakBytes, other.metaspacePeakBytes),
                AgentReport.max(codeCachePeakBytes, other.codeCachePeakBytes),
                AgentReport.max(liveThreads, other.liveThreads),
                AgentReport.max(directPeakBytes, other.directPeakBytes),
                AgentReport.max(headroomPeakBytes, other.headroomPeakBytes));
    }

    /**
     * A cap one JVM hit, from its own figures against the max in force (metaspace committed: what the cap bounds;
     * code cache used), as the status row says it; or null.
     */
    static String capHit(Long metaspaceCommitted, Long metaspaceMax, Long codeCacheUsed, Long codeCacheMax) {
        if (hit(metaspaceCommitted, metaspaceMax)) {
            return describe("metaspace", metaspaceCommitted, metaspaceMax, "OutOfMemoryError: Metaspace");
        }
        if (hit(codeCacheUsed, codeCacheMax)) {
            return describe("code cache", codeCacheUsed, codeCacheMax, "the JIT stops compiling (CodeCache is full)");
        }
        return null;
    }

    private static boolean hit(Long used, Long max) {
        return used != null && max != null && max > 0 && used >= HIT_RATIO * max;
    }

    private static String describe(String pool, long used, long max, String consequence) {
        return String.format(
                Locale.ROOT,
                "a pod's %s holds %s of its %s cap (%.0f%%): %s",
                pool,
                format(used),
                format(max),
                100.0 * used / max,
                consequence);
    }
}
