package io.streamsmemory.agent.report;

import java.util.Map;

/**
 * {@code io.streamsmemory:type=Agent}: what the agent applied next to what the JVM really does, so a user (or the
 * operator) can compare the budget with reality. Byte values are -1 when not known (yet).
 */
public interface StreamsMemoryAgentMXBean {
    /** "active", or "inactive: reason". */
    String getStatus();

    /** How the allocation was loaded: "agent", "attached agent" or "library …". */
    String getMode();

    String getAgentVersion();

    String getAllocationHash();

    String getAllocationSource();

    long getMemoryBytes();

    String getKafkaStreamsVersion();

    /** The allocation's Kafka Streams properties, as published. */
    Map<String, String> getAllocatedStreamsConfig();

    /** Each property the agent changed, as "old -> new". */
    Map<String, String> getAppliedChanges();

    /** Allocated keys this Kafka Streams version does not know, and why they were left out. */
    Map<String, String> getSkippedKeys();

    long getStreamsConfigsMerged();

    /** The allocation's record cache for one KafkaStreams instance. */
    long getRecordCacheBytes();

    /**
     * Which record cache the application's StreamsConfig got: "plan", "application" (its own smaller value),
     * "kafka-default" (the heap in force is smaller than the plan's) or "none" (no allocation, not merged yet).
     */
    String getRecordCacheSource();

    /** Why that record cache, in one sentence. */
    String getRecordCacheReason();

    long getBlockCacheCapacityBytes();

    long getBlockCacheUsageBytes();

    long getBlockCachePinnedUsageBytes();

    long getWriteBufferManagerBytes();

    long getWriteBufferSizeBytes();

    int getMaxWriteBufferNumber();

    /** RocksDB's flush threads in force now, for the whole JVM (-1 before the shared cache exists). */
    int getRocksDbFlushThreads();

    /** RocksDB instances (store x task x segment) open now with the shared cache. */
    int getRocksDbInstances();

    long getRocksDbInstancesOpened();

    /** The application's own RocksDB config setters the agent chains. */
    String getChainedConfigSetters();

    /**
     * The planned RocksDB options the application's own setter had set, which the agent left as it set them (today
     * {@code optimize_filters_for_hits}), comma-separated; empty when none.
     */
    String getKeptApplicationRocksDbOptions();

    /** Live stream threads, from Kafka Streams' own metrics (-1 when none are registered). */
    int getStreamThreads();

    /** Tasks with metrics registered by Kafka Streams (-1 when none are). */
    int getTasks();

    /** KafkaStreams instances of this JVM constructed and not closed. */
    int getStreamsInstances();

    /** The instances the allocation divided its per-instance values among (inputs.instancesPerPod); -1 without one. */
    int getPlannedStreamsInstances();

    /** The allocation's heap (-Xmx), -1 without one. */
    long getPlannedHeapBytes();

    /** Runtime.maxMemory(): the heap in force. */
    long getEffectiveHeapBytes();

    long getPlannedMaxMetaspaceBytes();

    /** -XX:MaxMetaspaceSize in force; Long.MAX_VALUE when unlimited, -1 when unreadable. */
    long getEffectiveMaxMetaspaceBytes();

    long getPlannedMaxDirectMemoryBytes();

    /** -XX:MaxDirectMemorySize in force (the heap's size when unset); -1 when unreadable. */
    long getEffectiveMaxDirectMemoryBytes();

    /** Each JVM limit that differs from the allocation's (heap, MaxMetaspaceSize, MaxDirectMemorySize): why. */
    Map<String, String> getJvmLimitMismatches();

    /** Classes loaded now (ClassLoadingMXBean). */
    long getLoadedClasses();

    /** The loaded classes -XX:MaxMetaspaceSize was planned for (the policy's spec.jvm.loadedClasses); -1 when unknown. */
    long getPlannedLoadedClasses();

    /** Bytes of metaspace in use (the "Metaspace" memory pool), to read against the MaxMetaspaceSize attributes. */
    long getMetaspaceUsedBytes();

    /** Bytes of direct buffers in use (BufferPoolMXBean "direct"). */
    long getDirectUsedBytes();

    /** -XX:MaxDirectMemorySize in force (the heap's size when unset). */
    long getDirectMaxBytes();

    /** The process's resident set (VmRSS of /proc/self/status); -1 when unreadable. */
    long getRssBytes();
}
