package io.streamsmemory.operator.api;

/** Whether the operator tunes the memory split of a policy's workloads from what their pods report. */
public enum SplitTuning {
    /**
     * With {@code spec.jvm.sizing: Observed}: one bounded step per judgement from the pods' GC pauses, write stalls,
     * memtable flushes and storage reads, each undone when it does not help (docs/model.md, "Tuning the split").
     * A Declared plan is never tuned: it is planned from what the policy states alone.
     */
    Auto,
    /** The model's split (and the overrides') only. */
    Off
}
