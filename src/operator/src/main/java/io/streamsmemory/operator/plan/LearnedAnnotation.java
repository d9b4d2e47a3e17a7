package io.streamsmemory.operator.plan;

import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.KafkaStreamsVersion;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The learned-facts annotation of a published ConfigMap: its keys and how it is written
 * ({@code "threads=2,partitions=8"}). What a plan learned is published with it and read back as the floor of the
 * next plan ({@link LearnedFacts}); the JVM caps' way back is kept under its own keys ({@link LearnedCaps}).
 */
public final class LearnedAnnotation {
    static final String ROCKSDB_PER_TASK = "rocksDbInstancesPerTask";
    // The JVM's peaks a plan with learned caps used, each only growing as the topology's facts do.
    public static final String METASPACE_PEAK_KIB = "metaspacePeakKiB";
    static final String CODE_CACHE_PEAK_KIB = "codeCachePeakKiB";
    static final String LIVE_THREADS = "liveThreads";
    /**
     * The most resident memory a settled pod held beyond the bounded parts, in KiB (in steps of
     * {@link LearnedFacts#HEADROOM_PEAK_STEP_MIB} MiB): the learned headroom is planned from it.
     */
    public static final String HEADROOM_PEAK_KIB = "headroomPeakKiB";
    /** Set once a pod crossed 90% of a learned cap: the workload keeps the model's caps until its policy is deleted. */
    public static final String CAPS_RESTORED = "jvmCapsRestored";
    /** The learned caps that were restored, in MiB: MemoryPressure holds while the window's peak is above 90% of them. */
    public static final String RESTORED_METASPACE_CAP_MIB = "restoredMetaspaceCapMiB";

    public static final String RESTORED_CODE_CACHE_CAP_MIB = "restoredCodeCacheCapMiB";

    public static final String RESTORED_HEADROOM_MIB = "restoredHeadroomMiB";
    /** The most direct memory a pod held, in KiB (in steps of 4 MiB): the direct memory cap is planned from it. */
    public static final String DIRECT_PEAK_KIB = "directPeakKiB";
    /** The Kafka Streams version the pods ran, as {@link #versionCode}: 304 for 3.4. */
    static final String KAFKA_STREAMS_VERSION = "kafkaStreamsVersion";
    /** The in-memory state a pod was planned to hold, in KiB (a margin over the most seen, in steps). */
    static final String IN_MEMORY_STATE_KIB = "inMemoryStateKiB";
    /** The record cache the application sets itself, in KiB (rounded up): the heap is planned for that cache. */
    static final String APPLICATION_RECORD_CACHE_KIB = "applicationRecordCacheKiB";
    /** The learned fact a cap is planned from once the pods report it. */
    public static final String LOADED_CLASSES = "loadedClasses";

    private LearnedAnnotation() {}

    /**
     * A lifted cap's key; its value is the policy's generation when it was lifted, so a change of the policy (a user
     * raising spec.jvm.loadedClasses, say) plans the cap again ({@link LearnedCaps#liftsOf}).
     */
    public static String liftedKey(JvmCap cap) {
        return cap == JvmCap.METASPACE ? "metaspaceCapLifted" : "directMemoryCapLifted";
    }

    /** A version as the annotation's int keeps it: major times 100 plus minor (no Kafka minor has reached 100). */
    static int versionCode(KafkaStreamsVersion version) {
        return version.major() * 100 + Math.min(version.minor(), 99);
    }

    /** The version a published plan learned, if it learned one. */
    static Optional<KafkaStreamsVersion> version(Map<String, Integer> learned) {
        return Optional.ofNullable(learned.get(KAFKA_STREAMS_VERSION))
                .map(code -> new KafkaStreamsVersion(code / 100, code % 100));
    }

    /** The learned values as the annotation keeps them: "threads=2,partitions=8". */
    public static String format(Map<String, Integer> learned) {
        return String.join(
                ",",
                learned.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList());
    }

    /** An annotation {@link #format} wrote; what is not a name=count pair is left out. */
    public static Map<String, Integer> parse(String annotation) {
        Map<String, Integer> values = new LinkedHashMap<>();
        if (annotation == null) {
            return values;
        }
        for (String pair : annotation.split(",")) {
            String[] nameAndValue = pair.split("=", 2);
            if (nameAndValue.length == 2) {
                try {
                    String name = nameAndValue[0].trim();
                    int value = Integer.parseInt(nameAndValue[1].trim());
                    // Counts and peaks are positive; only a size the application chose may be 0.
                    if (value > 0 || (value == 0 && name.equals(APPLICATION_RECORD_CACHE_KIB))) {
                        values.put(name, value);
                    }
                } catch (NumberFormatException notACount) {
                    // left out: the next plan learns it again
                }
            }
        }
        return values;
    }
}
