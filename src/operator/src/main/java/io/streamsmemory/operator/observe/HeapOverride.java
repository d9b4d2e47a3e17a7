package io.streamsmemory.operator.observe;

import static io.streamsmemory.engine.ByteSize.format;

/**
 * A pod whose heap is not the plan's: the application's own {@code -Xmx}, {@code -XX:MaxRAMPercentage} or similar won
 * over the injected flag (the webhook keeps a user's heap setting, and a flag in {@code JDK_JAVA_OPTIONS} or on the
 * command line comes after {@code JAVA_TOOL_OPTIONS}), as the pod's agent reports it.
 *
 * @param flag         the JVM argument that set the heap in force, or the agent's words for the JVM's default
 * @param inForceBytes the heap's maximum in force (null when the agent could not read it)
 * @param plannedBytes the heap the plan gave the pod (null when the agent could not read it)
 */
public record HeapOverride(String flag, Long inForceBytes, Long plannedBytes) {

    /** What the workload's row shows. */
    public String describe() {
        return String.format(
                "%s won over the plan's heap: %s in force, %s planned", flag, bytes(inForceBytes), bytes(plannedBytes));
    }

    /** What the heap in force does to the pod's bound, and what to change; for the Warning condition and Event. */
    public String effect() {
        if (inForceBytes == null || plannedBytes == null) {
            return "the pod may not stay inside its memory: remove the flag so the plan's heap applies";
        }
        if (inForceBytes > plannedBytes) {
            return String.format(
                    "the heap may take %s more than its part, so the pod's parts add up to more than its memory and the"
                            + " kernel may OOM-kill it: remove the flag (spec.overrides.heap sets the plan's heap), or"
                            + " raise spec.memory",
                    format(inForceBytes - plannedBytes));
        }
        return String.format(
                "%s of the pod's memory planned for the heap stays unused, and the record cache planned for that heap"
                        + " is not applied: remove the flag (spec.overrides.heap sets the plan's heap)",
                format(plannedBytes - inForceBytes));
    }

    private static String bytes(Long value) {
        return value == null ? "unknown" : format(value);
    }
}
