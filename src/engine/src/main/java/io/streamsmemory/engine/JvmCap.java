package io.streamsmemory.engine;

/**
 * A JVM cap the engine plans from a fact about the application that nothing outside the running JVM can tell: the
 * classes it loads and the direct memory its own libraries use. Set too low, either crash-loops the pod
 * ({@code OutOfMemoryError: Metaspace}, {@code OutOfMemoryError: Direct buffer memory}); so a plan made before the
 * pods reported that fact leaves the flag unset and keeps the room it would have capped as headroom
 * ({@link WorkloadFacts#uncappedJvmCaps()}).
 *
 * <p>The other flags the engine emits cannot harm a JVM whose facts are unknown: {@code -Xms}/{@code -Xmx} are sized
 * from the pod's memory and the Kafka Streams settings the same plan bounds (the heap is the part the application's
 * objects live in whatever its facts); {@code -XX:ReservedCodeCacheSize} at 1/16 of the pod, at least 48 MiB, only
 * slows a JIT that fills it (HotSpot stops compiling, it does not fail); {@code -Xss1m} is HotSpot's own default on
 * Linux x64; {@code -Djdk.nio.maxCachedBufferSize} frees large temporary buffers instead of caching them, never
 * refusing one.
 */
public enum JvmCap {
    /** {@code -XX:MaxMetaspaceSize}, from the classes the application loads. */
    METASPACE("-XX:MaxMetaspaceSize", "loaded classes"),
    /** {@code -XX:MaxDirectMemorySize}, from the clients' read copies and the application's own direct memory. */
    DIRECT_MEMORY("-XX:MaxDirectMemorySize", "direct memory");

    private final String flag;
    private final String fact;

    JvmCap(String flag, String fact) {
        this.flag = flag;
        this.fact = fact;
    }

    /** The JVM flag, without its value: {@code -XX:MaxMetaspaceSize}. */
    public String flag() {
        return flag;
    }

    /** What a pod must report before the cap is planned: "loaded classes". */
    public String fact() {
        return fact;
    }
}
