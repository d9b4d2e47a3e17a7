package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.observe.MemoryObserver;
import io.streamsmemory.operator.reconcile.act.AllocationMetrics;
import io.streamsmemory.operator.reconcile.act.RolloutStamper;
import io.streamsmemory.operator.reconcile.act.WorkloadActor;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.reconcile.decide.RolloutWaits;
import io.streamsmemory.operator.reconcile.decide.WebhookServing;
import io.streamsmemory.operator.reconcile.decide.WorkloadDecider;
import io.streamsmemory.operator.reconcile.decide.WorkloadDecision;
import io.streamsmemory.operator.reconcile.decide.WorkloadInputs;
import io.streamsmemory.operator.reconcile.decide.WorkloadOutcome;
import io.streamsmemory.operator.reconcile.decide.WorkloadRows;
import io.streamsmemory.operator.workload.ConfigMapPublisher;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.Workload;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one workload of a policy in three steps: {@link #gather} what it reads (the caches, the observer, one
 * live read of a ConfigMap the cache cannot hold), {@link WorkloadDecider#decide} (pure: a {@link WorkloadDecision}),
 * {@link WorkloadActor#act} (the writes and the Events). Whatever goes wrong is recorded in the workload's status row
 * and an Event on it, never thrown, so one workload's trouble never stops the policy's others.
 */
final class WorkloadReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadReconciler.class);

    private final ConfigMapPublisher publisher;
    private final MemoryObserver observer;
    private final WorkloadDecider decider;
    private final WorkloadActor actor;
    private final EventRecorder events;

    WorkloadReconciler(
            KubernetesClient client,
            EventRecorder events,
            AllocationMetrics metrics,
            ConfigMapPublisher publisher,
            WebhookServing webhook,
            RolloutGate gate,
            MemoryObserver observer) {
        this.publisher = publisher;
        this.observer = observer;
        this.events = events;
        this.decider = new WorkloadDecider(new RolloutWaits(gate, webhook));
        this.actor = new WorkloadActor(publisher, new RolloutStamper(client, gate), events, metrics);
    }

    /**
     * What a policy's reconcile reads once for all its workloads.
     *
     * @param autoscalers the HorizontalPodAutoscalers of the policy's namespace (one may target a workload)
     * @param pods        the namespace's pods, listed at most once
     * @param reach       whether the API server calls the webhook in the namespace
     */
    record PolicyReads(
            StreamsMemoryPolicy policy,
            Collection<HorizontalPodAutoscaler> autoscalers,
            NamespacePods pods,
            WebhookReach reach) {}

    /** @param cached the workload's ConfigMap from the operator's cache, null when it holds none */
    WorkloadOutcome reconcile(PolicyReads policy, Workload workload, ConfigMap cached) {
        try {
            return actor.act(workload, decider.decide(gather(policy, workload, cached)));
        } catch (RuntimeException e) {
            LOG.warn("{} {}/{} could not be reconciled", workload.kind(), workload.namespace(), workload.name(), e);
            String message = "could not be reconciled: "
                    + Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName());
            WorkloadDecision failed = WorkloadDecision.failed(
                    workload,
                    WorkloadRows.of(workload, null, null, null, false, null, null, message),
                    List.of(),
                    List.of(),
                    "WorkloadFailed",
                    message);
            failed.told().forEach(told -> WorkloadActor.post(told, events, workload.resource()));
            return failed.outcome();
        }
    }

    /** Everything the decision reads, read now. */
    private WorkloadInputs gather(PolicyReads policy, Workload workload, ConfigMap cached) {
        String namespace = workload.namespace();
        return new WorkloadInputs(
                policy.policy(),
                workload,
                publisher.current(workload, cached),
                policy.pods().get(),
                policy.autoscalers(),
                observer.topology(namespace, workload.kind(), workload.name()),
                observer.crashLoop(namespace, workload.kind(), workload.name()),
                observer.observation(namespace, workload.kind(), workload.name()),
                observer.settings().window(),
                observer.settings().settle(),
                policy.reach(),
                Instant.now());
    }
}
