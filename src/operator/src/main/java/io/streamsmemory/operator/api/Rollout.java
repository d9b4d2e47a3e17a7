package io.streamsmemory.operator.api;

/** How a change that needs a restart reaches running pods. */
public enum Rollout {
    /** Stamp the allocation hash on the pod template; the workload controller rolls the pods. */
    Automatic,
    /** Publish the new allocation and report the pending restart; the user rolls. */
    Manual
}
