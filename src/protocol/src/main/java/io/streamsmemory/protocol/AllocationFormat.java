package io.streamsmemory.protocol;

/**
 * The identity of an allocation document (what {@code plan --output json} prints, what the operator publishes in a
 * workload's ConfigMap and what the agent applies) and the names of the parts the agent reads from it. The engine
 * writes these values and the agent checks them, both from here.
 */
public final class AllocationFormat {
    public static final String API_VERSION = "streamsmemory.io/v1alpha1";
    public static final String KIND = "StreamsMemoryAllocation";
    /**
     * Changes only when a reader written for the old version would misread the new one: fields added within a version
     * (say {@code plannedTopology}, {@code rocksdb.lastLevelFilters}) read as absent in older documents.
     */
    public static final int FORMAT_VERSION = 1;

    /** The part whose bytes are {@code -Xmx}. */
    public static final String HEAP_PART = "heap";
    /** The part whose bytes are {@code -XX:MaxMetaspaceSize}. */
    public static final String METASPACE_PART = "jvm-metaspace";
    /** The part whose bytes are {@code -XX:MaxDirectMemorySize}. */
    public static final String DIRECT_MEMORY_PART = "jvm-direct-memory";

    private AllocationFormat() {}
}
