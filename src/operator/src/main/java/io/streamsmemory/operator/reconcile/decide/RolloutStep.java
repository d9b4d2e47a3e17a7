package io.streamsmemory.operator.reconcile.decide;

/**
 * The one write a decision asks of a workload's own object, if any ({@code WorkloadActor} makes it through {@link
 * RolloutStamper}). A stamp is preceded by one read, the only one of an act: the template as the API server holds it
 * (a cache a moment behind this operator's own stamp would stamp again), and a drift rollout by whether the webhook
 * is installed at all (rolling without it only restarts the pods without the agent again).
 */
public sealed interface RolloutStep {
    /** Nothing to write. */
    record None() implements RolloutStep {}

    /**
     * Stamps {@code restartHash} on the pod template, which rolls the workload, telling {@code rolling}; when the live
     * template already has it, tells {@code alreadyLive} instead (null: nothing).
     */
    record Stamp(String restartHash, Told rolling, Told alreadyLive) implements RolloutStep {}

    /**
     * Rolls a workload whose pods run without the agent, once for {@code restartHash}, telling {@code rolling}; tells
     * {@code webhookMissing} instead when the webhook configuration is not installed.
     */
    record DriftStamp(String restartHash, Told rolling, Told webhookMissing) implements RolloutStep {}

    /** Records on the workload that its pods already run {@code restartHash} (rolls nothing). */
    record RecordAdmitted(String restartHash) implements RolloutStep {}

    RolloutStep NONE = new None();
}
