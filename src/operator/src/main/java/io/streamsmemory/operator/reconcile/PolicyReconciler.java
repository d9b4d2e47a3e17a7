package io.streamsmemory.operator.reconcile;

import static io.streamsmemory.operator.workload.AllocationConfigMap.configMapName;
import static io.streamsmemory.operator.workload.MetadataKeys.*;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicyStatus;
import io.streamsmemory.operator.observe.MemoryObserver;
import io.streamsmemory.operator.plan.WorkloadPlanner;
import io.streamsmemory.operator.reconcile.act.AllocationMetrics;
import io.streamsmemory.operator.reconcile.decide.Conditions;
import io.streamsmemory.operator.reconcile.decide.PolicyStatusBuilder;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.reconcile.decide.WebhookServing;
import io.streamsmemory.operator.reconcile.decide.WorkloadOutcome;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.ConfigMapPublisher;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.Workload;
import io.streamsmemory.operator.workload.WorkloadCache;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reconciles a StreamsMemoryPolicy with the Deployments and StatefulSets that name it: each workload is
 * reconciled on its own ({@link WorkloadReconciler}), what opted out is removed, and the status is built in
 * one place ({@link PolicyStatusBuilder}). An invalid spec changes nothing already published.
 *
 * <p>No finalizer: a policy's deletion must never wait for the operator, which may be down or uninstalled.
 * The reconciler is called for delete events too ({@code triggerReconcilerOnAllEvents}) and then tells the
 * workloads; a policy deleted while the operator was down is reported from the workload side
 * ({@link MissingPolicyReporter}) when the operator starts.
 *
 * <p>The memory observer is started by the first reconcile, not by a leader callback: java-operator-sdk calls
 * {@code reconcile} only where it processes events, which is the Lease holder with leader election and the one
 * instance without; its {@code LeaderCallbacks} fire with leader election only, and would need a second start for
 * the other case (tests, {@code make run}). {@link MemoryObserver#start} runs once.
 */
@ControllerConfiguration(name = "streamsmemorypolicy", triggerReconcilerOnAllEvents = true)
public class PolicyReconciler implements Reconciler<StreamsMemoryPolicy> {
    /** The finalizer the previous version put on every policy (java-operator-sdk's default name); removed. */
    static final String PREVIOUS_FINALIZER = "streamsmemorypolicies.streamsmemory.io/finalizer";

    private final KubernetesClient client;
    private final EventRecorder events;
    private final MemoryObserver observer;
    private final AllocationMetrics metrics;
    private final ConfigMapPublisher publisher;
    private final WorkloadReconciler workloads;
    private final WebhookServing webhook;
    private final AllocationEngine engine = new AllocationEngine();
    private final StatusSettings statusSettings;
    /** The workloads and published ConfigMaps, shared with the webhook. */
    private final WorkloadCache cache;

    public PolicyReconciler(
            KubernetesClient client,
            EventRecorder events,
            AllocationMetrics metrics,
            WebhookServing webhook,
            RolloutGate gate,
            MemoryObserver observer,
            StatusSettings statusSettings,
            WorkloadCache cache) {
        this.cache = cache;
        this.observer = observer;
        this.statusSettings = statusSettings;
        this.client = client;
        this.events = events;
        this.metrics = metrics;
        this.publisher = new ConfigMapPublisher(client);
        this.webhook = webhook;
        this.workloads = new WorkloadReconciler(client, events, metrics, publisher, webhook, gate, observer);
    }

    @Override
    public List<EventSource<?, StreamsMemoryPolicy>> prepareEventSources(
            EventSourceContext<StreamsMemoryPolicy> context) {
        // Every change of a published ConfigMap (a hand edit included) reconciles its policy, which restores it.
        SharedCacheEventSource<ConfigMap> configMaps = new SharedCacheEventSource<>(
                ConfigMap.class,
                "configmaps",
                cache,
                cache::configMaps,
                cm -> Set.of(new ResourceID(
                        AllocationConfigMap.policyOf(cm), cm.getMetadata().getNamespace())));
        MissingPolicyReporter missing = new MissingPolicyReporter(
                events, id -> context.getPrimaryCache().get(id));
        // An autoscaler's range is the workloads' planned range: a change re-plans the policies of its namespace.
        InformerEventSource<HorizontalPodAutoscaler, StreamsMemoryPolicy> autoscalers = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(HorizontalPodAutoscaler.class, StreamsMemoryPolicy.class)
                        .withName("horizontalpodautoscalers")
                        .withSecondaryToPrimaryMapper(hpa -> context.getPrimaryCache()
                                .list(hpa.getMetadata().getNamespace())
                                .map(ResourceID::fromResource)
                                .collect(Collectors.toSet()))
                        .build(),
                context);
        return List.of(
                configMaps,
                autoscalers,
                observations(),
                webhookReach(context),
                workloadSource(Deployment.class, "deployments", cache::deployments, missing, context),
                workloadSource(StatefulSet.class, "statefulsets", cache::statefulSets, missing, context));
    }

    /**
     * The agents' reports as events: the observer tells which workloads' observation changed in what a reconcile acts
     * on (a verdict, a learned fact, a crash loop, what the split tuner judges by), and each one's policy is
     * reconciled; none is reconciled on a timer to look for them.
     */
    private SimpleInboundEventSource<StreamsMemoryPolicy> observations() {
        SimpleInboundEventSource<StreamsMemoryPolicy> observations = new SimpleInboundEventSource<>("observations");
        observer.onChange(workloads -> workloads.stream()
                .map(ref -> Optional.ofNullable(cache.workload(ref.kind(), ref.namespace(), ref.name()))
                        .flatMap(Workload::of))
                .flatMap(Optional::stream)
                .map(w -> w.policyName().map(policy -> new ResourceID(policy, w.namespace())))
                .flatMap(Optional::stream)
                .distinct()
                .forEach(observations::propagateEvent));
        return observations;
    }

    /**
     * A changed verdict of the webhook's install check in a namespace, when the check ran again on its own: the
     * namespace's policies are reconciled (their WebhookReachable condition, and rollouts that waited for it).
     */
    private SimpleInboundEventSource<StreamsMemoryPolicy> webhookReach(
            EventSourceContext<StreamsMemoryPolicy> context) {
        SimpleInboundEventSource<StreamsMemoryPolicy> reach = new SimpleInboundEventSource<>("webhook-reach");
        webhook.onReachChanged(namespace -> context.getPrimaryCache()
                .list(namespace)
                .map(ResourceID::fromResource)
                .forEach(reach::propagateEvent));
        return reach;
    }

    private <W extends HasMetadata> SharedCacheEventSource<W> workloadSource(
            Class<W> kind,
            String name,
            Supplier<SharedIndexInformer<W>> informer,
            MissingPolicyReporter missing,
            EventSourceContext<StreamsMemoryPolicy> context) {
        WorkloadToPolicyMapper<W> mapper = new WorkloadToPolicyMapper<>(
                id -> Optional.ofNullable(cache.configMap(id.getNamespace().orElseThrow(), id.getName())),
                namespace -> context.getPrimaryCache().list(namespace));
        return new SharedCacheEventSource<>(kind, name, cache, informer, workload -> {
            missing.check(workload);
            return mapper.toPrimaryResourceIDs(workload);
        });
    }

    @Override
    public UpdateControl<StreamsMemoryPolicy> reconcile(
            StreamsMemoryPolicy deliveredPolicy, Context<StreamsMemoryPolicy> context) {
        if (context.isPrimaryResourceDeleted()) {
            tellWorkloadsThePolicyIsGone(deliveredPolicy, context);
            return UpdateControl.noUpdate();
        }
        StreamsMemoryPolicy policy = withoutPreviousFinalizer(deliveredPolicy, context);
        if (policy.getMetadata().getDeletionTimestamp() != null) {
            return UpdateControl
                    .noUpdate(); // going away (another finalizer holds it); its delete event tells the workloads
        }
        // java-operator-sdk reconciles on the leader only (with leader election on or off), so this starts the
        // pods' reads on the replica that acts on them; see the class comment.
        observer.start();
        PolicyStatusBuilder status = new PolicyStatusBuilder(policy, statusSettings.maxWorkloadRows());
        WorkloadFacts policyFacts;
        try {
            policyFacts = WorkloadPlanner.policyFacts(policy.getSpec());
        } catch (IllegalArgumentException invalid) {
            events.record(policy, Type.Warning, "InvalidSpec", invalid.getMessage());
            return UpdateControl.patchStatus(withStatus(policy, status.invalidSpec(invalid.getMessage())));
        }
        List<Workload> named = workloadsNaming(policy, context);
        Map<String, ConfigMap> published = context.getSecondaryResources(ConfigMap.class).stream()
                .collect(Collectors.toMap(cm -> cm.getMetadata().getName(), cm -> cm, (a, b) -> a));
        // From the cache by namespace, not as secondary resources: an autoscaler created before the policy is
        // mapped to no policy when it arrives, yet targets its workloads all the same.
        List<HorizontalPodAutoscaler> autoscalers = ((InformerEventSource<HorizontalPodAutoscaler, StreamsMemoryPolicy>)
                        context.eventSourceRetriever().getEventSourceFor(HorizontalPodAutoscaler.class))
                .list(policy.getMetadata().getNamespace())
                .toList();
        NamespacePods pods = new NamespacePods(client, policy.getMetadata().getNamespace());
        // Checked before the workloads, whose rollouts wait while it is False: they read the result kept here.
        WebhookReach reach = webhook.reach(policy.getMetadata().getNamespace());
        WorkloadReconciler.PolicyReads reads = new WorkloadReconciler.PolicyReads(policy, autoscalers, pods, reach);
        // Each workload on its own (its failure is its own), several at once on the SDK's executor.
        List<WorkloadOutcome> outcomes = WorkloadFanOut.each(
                named,
                w -> workloads.reconcile(reads, w, published.get(configMapName(w.kind(), w.name()))),
                context.getWorkflowExecutorService());
        publisher.removeUnwanted(named, published.values(), removed -> optedOut(policy, removed));
        metrics.recordPolicy(policy, outcomes.stream().map(WorkloadOutcome::row).toList());
        UpdateControl<StreamsMemoryPolicy> control =
                UpdateControl.patchStatus(withStatus(policy, status(policy, status, outcomes, policyFacts, reach)));
        return lookAgain(outcomes, reach).map(control::rescheduleAfter).orElse(control);
    }

    /**
     * The soonest of what waits (a rollout's rate limit, the webhook's reach); the pods' reports come as events of their
     * own ({@link #observations}).
     */
    private Optional<Duration> lookAgain(List<WorkloadOutcome> outcomes, WebhookReach reach) {
        return Stream.concat(
                        outcomes.stream().map(WorkloadOutcome::retryAfter).filter(Objects::nonNull),
                        checkReachAgain(reach).stream())
                .min(Comparator.naturalOrder());
    }

    /** A 404 on the status patch of a policy deleted meanwhile ends the reconcile without an error. */
    @Override
    public ErrorStatusUpdateControl<StreamsMemoryPolicy> updateErrorStatus(
            StreamsMemoryPolicy policy, Context<StreamsMemoryPolicy> context, Exception e) {
        return DeletedMidReconcile.errorStatus(e);
    }

    /**
     * Takes off the finalizer the previous version added: with it, deleting the policy (or its namespace, or the
     * CRD) would wait for this operator, for ever if it is down or uninstalled.
     */
    private static StreamsMemoryPolicy withoutPreviousFinalizer(
            StreamsMemoryPolicy policy, Context<StreamsMemoryPolicy> context) {
        List<String> finalizers = policy.getMetadata().getFinalizers();
        if (finalizers == null || !finalizers.contains(PREVIOUS_FINALIZER)) {
            return policy;
        }
        return PrimaryUpdateAndCacheUtils.removeFinalizer(context, PREVIOUS_FINALIZER);
    }

    private StreamsMemoryPolicyStatus status(
            StreamsMemoryPolicy policy,
            PolicyStatusBuilder status,
            List<WorkloadOutcome> outcomes,
            WorkloadFacts policyFacts,
            WebhookReach reach) {
        WorkloadOutcome.Parts shown = outcomes.stream()
                .map(WorkloadOutcome::parts)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
        String policyProblem = null;
        if (outcomes.isEmpty()) {
            // No workload yet: show what one pod running every task would get, and whether it fits at all.
            AllocationResult nominal = engine.allocate(policyFacts);
            shown = nominal.ok() ? WorkloadOutcome.Parts.of(nominal.allocation()) : null;
            policyProblem = nominal.ok() ? null : "one pod running every task does not fit: " + nominal.message();
        }
        String failure = PolicyStatusBuilder.failure(outcomes, policyProblem);
        if (failure != null) {
            events.record(policy, Type.Warning, PolicyStatusBuilder.failureReason(outcomes), failure);
        }
        StreamsMemoryPolicyStatus next =
                status.reconciled(outcomes, shown, failure, policy.getMetadata().getName(), reach);
        announceObservedChanges(policy, next);
        announceUnreachable(policy, next);
        return next;
    }

    /** An Event when MemoryPressure or TopologyMismatch turns true or clears, not on every read of the reports. */
    private void announceObservedChanges(StreamsMemoryPolicy policy, StreamsMemoryPolicyStatus next) {
        for (String type : List.of(Conditions.MEMORY_PRESSURE, Conditions.TOPOLOGY_MISMATCH)) {
            Optional<Condition> before = condition(policy.getStatus(), type);
            Optional<Condition> now = condition(next, type);
            boolean wasTrue = before.filter(c -> "True".equals(c.getStatus())).isPresent();
            boolean isTrue = now.filter(c -> "True".equals(c.getStatus())).isPresent();
            if (isTrue && !wasTrue) {
                events.record(policy, Type.Warning, type, now.get().getMessage());
            } else if (wasTrue && !isTrue) {
                events.record(
                        policy,
                        Type.Normal,
                        type + "Resolved",
                        now.map(Condition::getMessage).orElse(""));
            }
        }
    }

    /** An Event when WebhookReachable turns False (the API server does not call the webhook), and when it recovers. */
    private void announceUnreachable(StreamsMemoryPolicy policy, StreamsMemoryPolicyStatus next) {
        String type = Conditions.WEBHOOK_REACHABLE;
        boolean wasFalse = condition(policy.getStatus(), type)
                .filter(c -> "False".equals(c.getStatus()))
                .isPresent();
        Optional<Condition> now = condition(next, type);
        boolean isFalse = now.filter(c -> "False".equals(c.getStatus())).isPresent();
        if (isFalse && !wasFalse) {
            events.record(policy, Type.Warning, "WebhookUnreachable", now.get().getMessage());
        } else if (wasFalse && now.filter(c -> "True".equals(c.getStatus())).isPresent()) {
            events.record(policy, Type.Normal, "WebhookReachable", now.get().getMessage());
        }
    }

    /**
     * While the check has no verdict or a bad one, the condition is refreshed when it runs again. A good one is refreshed
     * by the policy's next reconcile; a rollout asks the check itself.
     */
    private static Optional<Duration> checkReachAgain(WebhookReach reach) {
        return reach.unreachable() || reach.checking() ? Optional.ofNullable(reach.checkAgainIn()) : Optional.empty();
    }

    private static Optional<Condition> condition(StreamsMemoryPolicyStatus status, String type) {
        return status == null || status.getConditions() == null
                ? Optional.empty()
                : status.getConditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst();
    }

    /** The live workloads that name the policy, in a stable order. */
    private static List<Workload> workloadsNaming(StreamsMemoryPolicy policy, Context<StreamsMemoryPolicy> context) {
        String policyName = policy.getMetadata().getName();
        return Stream.concat(
                        context.getSecondaryResources(Deployment.class).stream(),
                        context.getSecondaryResources(StatefulSet.class).stream())
                .map(Workload::of)
                .flatMap(Optional::stream)
                .filter(w -> w.policyName().filter(policyName::equals).isPresent())
                .filter(w -> w.resource().getMetadata().getDeletionTimestamp() == null)
                .sorted(Comparator.comparing(Workload::kind).thenComparing(Workload::name))
                .toList();
    }

    private void optedOut(StreamsMemoryPolicy policy, ConfigMap removed) {
        metrics.forget(removed.getMetadata().getNamespace(), AllocationConfigMap.workloadName(removed));
        events.record(
                policy,
                Type.Normal,
                "OptedOut",
                String.format(
                        "%s no longer names this policy: removed " + "ConfigMap %s",
                        AllocationConfigMap.workloadOf(removed),
                        removed.getMetadata().getName()));
    }

    /** Workloads keep running with their last allocation; each is told. */
    private void tellWorkloadsThePolicyIsGone(StreamsMemoryPolicy policy, Context<StreamsMemoryPolicy> context) {
        for (Workload w : workloadsNaming(policy, context)) {
            events.record(
                    w.resource(),
                    Type.Warning,
                    "PolicyDeleted",
                    String.format(
                            "StreamsMemoryPolicy %s was deleted; the workload keeps its last allocation (ConfigMap %s)",
                            policy.getMetadata().getName(), configMapName(w.kind(), w.name())));
        }
        metrics.forgetPolicy(policy);
    }

    /** A fresh object carrying only identity and status, so the status patch claims nothing else. */
    private static StreamsMemoryPolicy withStatus(StreamsMemoryPolicy policy, StreamsMemoryPolicyStatus status) {
        StreamsMemoryPolicy patch = new StreamsMemoryPolicy();
        patch.setMetadata(new ObjectMetaBuilder()
                .withName(policy.getMetadata().getName())
                .withNamespace(policy.getMetadata().getNamespace())
                .build());
        patch.setStatus(status);
        return patch;
    }
}
