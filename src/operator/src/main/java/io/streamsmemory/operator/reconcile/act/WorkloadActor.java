package io.streamsmemory.operator.reconcile.act;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.streamsmemory.operator.reconcile.decide.RolloutStep;
import io.streamsmemory.operator.reconcile.decide.Told;
import io.streamsmemory.operator.reconcile.decide.WorkloadDecision;
import io.streamsmemory.operator.reconcile.decide.WorkloadOutcome;
import io.streamsmemory.operator.workload.ConfigMapPublisher;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.Workload;

/**
 * Carries out a {@link WorkloadDecision}: applies its ConfigMap through the one writer ({@link ConfigMapPublisher}),
 * makes its writes to the workload ({@link RolloutStamper}), posts its Events and records its metrics. The only
 * reads are the one before each stamp that {@link RolloutStep} names.
 */
public final class WorkloadActor {
    private final ConfigMapPublisher publisher;
    private final RolloutStamper stamper;
    private final EventRecorder events;
    private final AllocationMetrics metrics;

    public WorkloadActor(
            ConfigMapPublisher publisher, RolloutStamper stamper, EventRecorder events, AllocationMetrics metrics) {
        this.publisher = publisher;
        this.stamper = stamper;
        this.events = events;
        this.metrics = metrics;
    }

    public WorkloadOutcome act(Workload workload, WorkloadDecision decision) {
        if (decision.toApply() != null) {
            publisher.apply(decision.toApply());
        }
        decision.told().forEach(told -> post(told, events, workload.resource()));
        for (RolloutStep step : decision.steps()) {
            perform(step, workload, stamper, events);
        }
        if (decision.allocation() != null) {
            metrics.recordWorkload(
                    workload, decision.allocation(), decision.outcome().verdict());
        }
        return decision.outcome();
    }

    /** Posts an Event a decision told, on {@code on}. */
    public static void post(Told told, EventRecorder events, HasMetadata on) {
        events.record(on, told.type(), told.reason(), told.message(), told.gist());
    }

    /** One write to the workload, and the Event that tells what was written. */
    public static void perform(RolloutStep step, Workload workload, RolloutStamper stamper, EventRecorder events) {
        if (step instanceof RolloutStep.RecordAdmitted admitted) {
            stamper.recordAdmitted(workload, admitted.restartHash());
        } else if (step instanceof RolloutStep.Stamp stamp) {
            // The cache can lag this operator's own stamp by seconds on a loaded API server, and a reconcile right
            // after it would stamp again: an Event telling of a restart that is none, and a new last-rollout time,
            // which moves a Deployment's generation. The live template decides.
            if (stamper.liveRestartHash(workload)
                    .filter(stamp.restartHash()::equals)
                    .isPresent()) {
                if (stamp.alreadyLive() != null) {
                    post(stamp.alreadyLive(), events, workload.resource());
                }
            } else {
                stamper.stamp(workload, stamp.restartHash());
                post(stamp.rolling(), events, workload.resource());
            }
        } else if (step instanceof RolloutStep.DriftStamp drift) {
            if (stamper.webhookInstalled()) {
                stamper.stampDriftRollout(workload, drift.restartHash());
                post(drift.rolling(), events, workload.resource());
            } else {
                post(drift.webhookMissing(), events, workload.resource());
            }
        }
    }
}
