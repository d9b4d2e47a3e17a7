package io.streamsmemory.operator.api;

/** Where the JVM's caps (metaspace, code cache, thread stacks) come from. */
public enum JvmSizing {
    /** From the model: what an application might need (loaded classes, the pod's size, its threads). */
    Declared,
    /**
     * From what the workload's pods were seen to use over the observation window plus a margin, within a floor and
     * the model's cap; what that frees goes to RocksDB's write buffers. A pod that uses 90% of a learned cap restores
     * the model's caps at once.
     */
    Observed
}
