package io.streamsmemory.operator.reconcile.decide;

import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * When an operator-initiated rollout of a workload may start: never while the workload's previous rollout is still
 * in progress, and at most one per {@code minInterval} (the time of the last one is recorded on the workload's
 * metadata, where it rolls nothing). With an autoscaler in the loop, a restart per scale step would feed the load
 * that made it scale; this keeps the operator from ever driving such a loop.
 */
public final class RolloutGate {
    /** The default pace of rollouts an operator upgrade alone asks for: one workload a minute, operator-wide. */
    public static final Duration MODEL_UPGRADE_INTERVAL = Duration.ofMinutes(1);

    private final Duration minInterval;
    private final Duration modelUpgradeInterval;
    private final Clock clock;
    private Instant lastModelUpgrade = Instant.MIN;

    public RolloutGate(Duration minInterval) {
        this(minInterval, MODEL_UPGRADE_INTERVAL);
    }

    public RolloutGate(Duration minInterval, Duration modelUpgradeInterval) {
        this(minInterval, modelUpgradeInterval, Clock.systemUTC());
    }

    RolloutGate(Duration minInterval, Duration modelUpgradeInterval, Clock clock) {
        this.minInterval = minInterval;
        this.modelUpgradeInterval = modelUpgradeInterval;
        this.clock = clock;
    }

    /**
     * Whether a workload whose plan changed only by the operator's model (an upgrade) may take it now: one such
     * workload per {@code modelUpgradeInterval} across the operator, so an upgrade spreads its rollouts instead of
     * rolling every workload at once. Granting records the time; a wait says when the next turn comes.
     */
    synchronized Optional<Wait> takeModelUpgradeTurn() {
        Instant now = clock.instant();
        Instant next = lastModelUpgrade.equals(Instant.MIN) ? now : lastModelUpgrade.plus(modelUpgradeInterval);
        if (!next.isAfter(now)) {
            lastModelUpgrade = now;
            return Optional.empty();
        }
        return Optional.of(new Wait(
                String.format(
                        "an operator upgrade rolls one workload every %s (streamsmemory.rollout.model-upgrade-interval)"
                                + ": next turn at %s",
                        modelUpgradeInterval, next),
                Duration.between(now, next).plusSeconds(1)));
    }

    /** How much a rollout may skip of the gate. */
    enum Urgency {
        /** Waits for a rollout in progress and for the interval. */
        NONE,
        /** A learned JVM cap restored or lifted before a JVM hit it: waits only for a rollout in progress. */
        NOW,
        /**
         * A cap lifted after a JVM hit it: waits for nothing. The rollout in progress is the one whose new pods
         * crash-loop on the cap (their ReplicaSet never becomes available), so waiting for it would keep the workload
         * in a crash loop the operator caused; the new template replaces it, as any rollout over a stuck one does.
         */
        SUPERSEDE
    }

    /** Why a rollout must wait and when to look again; empty when it may start now. */
    Optional<Wait> check(Workload workload, Urgency urgency) {
        if (urgency != Urgency.SUPERSEDE && workload.rolloutInProgress()) {
            return Optional.of(new Wait("its previous rollout is still in progress", WorkloadOutcome.RETRY_SOON));
        }
        Optional<Instant> last = workload.annotation(MetadataKeys.LAST_ROLLOUT).flatMap(RolloutGate::instant);
        Instant now = clock.instant();
        if (urgency == Urgency.NONE
                && last.isPresent()
                && last.get().plus(minInterval).isAfter(now)) {
            Instant next = last.get().plus(minInterval);
            return Optional.of(new Wait(
                    String.format(
                            "the operator rolled it at %s and rolls a workload at most "
                                    + "once every %s (streamsmemory.rollout.min-interval): next at %s",
                            last.get(), minInterval, next),
                    Duration.between(now, next).plusSeconds(1)));
        }
        return Optional.empty();
    }

    /** The value {@code RolloutStamper} records as the time of a rollout. */
    public String now() {
        return clock.instant().toString();
    }

    private static Optional<Instant> instant(String text) {
        try {
            return Optional.of(Instant.parse(text));
        } catch (DateTimeParseException e) {
            return Optional.empty(); // someone edited it: treat as never rolled
        }
    }

    record Wait(String reason, Duration retryAfter) {}
}
