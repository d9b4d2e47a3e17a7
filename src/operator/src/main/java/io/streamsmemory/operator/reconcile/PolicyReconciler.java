package io.streamsmemory.operator.reconcile;

import static io.streamsmemory.engine.ByteSize.format;
import static io.streamsmemory.operator.reconcile.WorkloadAnnotations.*;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicyStatus;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.reconcile.EventRecorder.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reconciles a StreamsMemoryPolicy with the Deployments and StatefulSets that name it: computes each
 * workload's allocation with the engine, publishes it in the workload's ConfigMap, rolls the workload
 * when a change needs a restart and the policy allows it, removes what opted out, and reports all of
 * it in status and Events. An invalid or unsatisfiable policy changes nothing already published.
 */
@ControllerConfiguration(name = "streamsmemorypolicy")
public class PolicyReconciler implements Reconciler<StreamsMemoryPolicy>, Cleaner<StreamsMemoryPolicy> {
    private final KubernetesClient client;
    private final EventRecorder events;
    private final RolloutStamper stamper;
    private final PodDrift drift;
    private final AllocationMetrics metrics;
    private final AllocationEngine engine = new AllocationEngine();

    public PolicyReconciler(KubernetesClient client, EventRecorder events, AllocationMetrics metrics) {
        this.client = client;
        this.events = events;
        this.stamper = new RolloutStamper(client);
        this.drift = new PodDrift(client);
        this.metrics = metrics;
    }

    @Override
    public List<EventSource<?, StreamsMemoryPolicy>> prepareEventSources(EventSourceContext<StreamsMemoryPolicy> context) {
        InformerEventSource<ConfigMap, StreamsMemoryPolicy> configMaps = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(ConfigMap.class, StreamsMemoryPolicy.class)
                        .withName("configmaps")
                        .withLabelSelector(MANAGED_BY_LABEL + "=" + MANAGED_BY)
                        .withSecondaryToPrimaryMapper(cm -> Set.of(new ResourceID(
                                cm.getMetadata().getLabels().get(POLICY_LABEL), cm.getMetadata().getNamespace())))
                        .build(), context);
        MissingPolicyReporter missing = new MissingPolicyReporter(events, id -> context.getPrimaryCache().get(id));
        return List.of(configMaps,
                workloadSource(Deployment.class, "deployments", configMaps::get, missing, context),
                workloadSource(StatefulSet.class, "statefulsets", configMaps::get, missing, context));
    }

    private static <W extends HasMetadata> InformerEventSource<W, StreamsMemoryPolicy> workloadSource(
            Class<W> kind, String name, Function<ResourceID, Optional<ConfigMap>> configMaps,
            MissingPolicyReporter missing, EventSourceContext<StreamsMemoryPolicy> context) {
        WorkloadToPolicyMapper<W> mapper = new WorkloadToPolicyMapper<>(configMaps);
        return new InformerEventSource<>(InformerEventSourceConfiguration.from(kind, StreamsMemoryPolicy.class)
                .withName(name)
                .withSecondaryToPrimaryMapper(workload -> {
                    missing.check(workload);
                    return mapper.toPrimaryResourceIDs(workload);
                })
                .build(), context);
    }

    @Override
    public UpdateControl<StreamsMemoryPolicy> reconcile(StreamsMemoryPolicy policy, Context<StreamsMemoryPolicy> context) {
        long generation = policy.getMetadata().getGeneration() == null ? 0 : policy.getMetadata().getGeneration();
        StreamsMemoryPolicyStatus previous = policy.getStatus() == null ? new StreamsMemoryPolicyStatus()
                : policy.getStatus();
        Conditions conditions = new Conditions(previous.getConditions(), generation);
        StreamsMemoryPolicyStatus status = new StreamsMemoryPolicyStatus();
        status.setObservedGeneration(generation);

        WorkloadFacts policyFacts;
        try {
            policyFacts = WorkloadPlanner.policyFacts(policy.getSpec());
        } catch (IllegalArgumentException invalid) {
            // Nothing published changes: keep the last known workloads and numbers, say why.
            events.record(policy, Type.Warning, "InvalidSpec", invalid.getMessage());
            copyNumbers(previous, status);
            status.setConditions(conditions.set(Conditions.READY, false, "InvalidSpec", invalid.getMessage())
                    .set(Conditions.INVALID_SPEC, true, "InvalidSpec", invalid.getMessage()).build());
            return UpdateControl.patchStatus(withStatus(policy, status));
        }

        String policyName = policy.getMetadata().getName();
        List<Workload> workloads = Stream.concat(context.getSecondaryResources(Deployment.class).stream(),
                        context.getSecondaryResources(StatefulSet.class).stream())
                .map(Workload::of).flatMap(Optional::stream)
                .filter(w -> w.policyName().filter(policyName::equals).isPresent())
                .filter(w -> w.resource().getMetadata().getDeletionTimestamp() == null)
                .sorted(Comparator.comparing(Workload::kind).thenComparing(Workload::name))
                .toList();
        Map<String, ConfigMap> published = context.getSecondaryResources(ConfigMap.class).stream()
                .collect(Collectors.toMap(cm -> cm.getMetadata().getName(), cm -> cm, (a, b) -> a));

        List<String> warnings = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<WorkloadAllocationStatus> rows = new ArrayList<>();
        Allocation shown = null;
        for (Workload workload : workloads) {
            WorkloadOutcome outcome = reconcileWorkload(policy, workload,
                    published.get(configMapName(workload.name())), warnings, failures);
            rows.add(outcome.row());
            if (shown == null && outcome.allocation() != null) {
                shown = outcome.allocation();
            }
        }
        removeOptedOut(policy, workloads, published.values());
        metrics.recordPolicy(policy, rows);

        if (shown == null && workloads.isEmpty()) {
            // No workload yet: show what one pod running every task would get, and whether it fits at all.
            AllocationResult nominal = engine.allocate(policyFacts);
            if (nominal.ok()) {
                shown = nominal.allocation();
            } else {
                failures.add("one pod running every task does not fit: " + nominal.message());
            }
        }
        if (shown != null) {
            status.setHeap(format(shown.part("heap").bytes()));
            status.setRocksDb(format(shown.part("rocksdb").bytes()));
            status.setRecordCache(format(shown.part("record-cache").bytes()));
        } else {
            copyNumbers(previous, status);
        }
        status.setWorkloadCount(rows.size());
        status.setWorkloads(rows);
        status.setDriftedPods(rows.stream().mapToInt(r -> (r.getPodsNotInjected() == null ? 0 : r.getPodsNotInjected())
                + (r.getPodsOutdated() == null ? 0 : r.getPodsOutdated())).sum());

        conditions.set(Conditions.INVALID_SPEC, false, "Valid", "the spec is valid");
        if (failures.isEmpty()) {
            conditions.set(Conditions.READY, true, "Allocated", rows.isEmpty()
                    ? "no workload names this policy yet (annotate one with " + POLICY + ": " + policyName + ")"
                    : "allocated " + rows.size() + " workload(s)");
            conditions.set(Conditions.DEGRADED, false, "AllAllocated", "every workload fits its memory");
        } else {
            String message = String.join("; ", failures);
            conditions.set(Conditions.READY, false, "Unsatisfiable", message);
            conditions.set(Conditions.DEGRADED, true, "Unsatisfiable", message);
            events.record(policy, Type.Warning, "Unsatisfiable", message);
        }
        conditions.set(Conditions.WARNING, !warnings.isEmpty(), warnings.isEmpty() ? "NoWarnings" : "WorkloadWarnings",
                warnings.isEmpty() ? "no warnings" : String.join("; ", warnings));
        status.setConditions(conditions.build());
        return UpdateControl.patchStatus(withStatus(policy, status));
    }

    private record WorkloadOutcome(WorkloadAllocationStatus row, Allocation allocation) {
    }

    private WorkloadOutcome reconcileWorkload(StreamsMemoryPolicy policy, Workload workload, ConfigMap published,
                                              List<String> warnings, List<String> failures) {
        WorkloadPlanner.Plan plan = WorkloadPlanner.plan(policy.getSpec(), workload);
        for (String warning : plan.warnings()) {
            events.record(workload.resource(), Type.Warning, "WorkloadWarning", warning);
            warnings.add(workload.kind() + " " + workload.name() + ": " + warning);
        }
        WorkloadAllocationStatus row = new WorkloadAllocationStatus();
        row.setKind(workload.kind());
        row.setName(workload.name());
        row.setReplicas(workload.replicas());
        row.setThreads(plan.facts().streamThreads());
        row.setConfigMap(configMapName(workload.name()));
        row.setMemory(format(plan.facts().memoryBytes()));

        AllocationResult result = engine.allocate(plan.facts());
        if (!result.ok()) {
            // Keep what is published; report why it could not be updated.
            row.setMessage(result.message());
            AllocationConfigMap.annotation(published, ALLOCATION_HASH).ifPresent(row::setAllocationHash);
            AllocationConfigMap.annotation(published, RESTART_HASH).ifPresent(row::setRestartHash);
            row.setRestartPending(false);
            events.record(workload.resource(), Type.Warning, "AllocationFailed", result.message());
            failures.add(workload.kind() + " " + workload.name() + ": " + result.message());
            return new WorkloadOutcome(row, null);
        }
        Allocation allocation = result.allocation();
        row.setTasksPerPod(allocation.topology().activeTasksPerPod());
        row.setRocksDbInstances(allocation.topology().rocksDbInstances());
        row.setHeap(format(allocation.part("heap").bytes()));
        row.setRocksDb(format(allocation.part("rocksdb").bytes()));
        row.setRecordCache(format(allocation.part("record-cache").bytes()));
        row.setAllocationHash(allocation.hash());
        row.setRestartHash(allocation.restartHash());

        publish(policy, workload, published, allocation);
        row.setRestartPending(rollIfNeeded(policy, workload, allocation));
        reportDrift(policy, workload, allocation, row);
        metrics.recordWorkload(workload, allocation);
        return new WorkloadOutcome(row, allocation);
    }

    private void publish(StreamsMemoryPolicy policy, Workload workload, ConfigMap published, Allocation allocation) {
        ConfigMap desired = AllocationConfigMap.desired(policy.getMetadata().getName(), workload, allocation);
        if (AllocationConfigMap.sameAs(published, desired)) {
            return;
        }
        client.resource(desired).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
        if (AllocationConfigMap.annotation(published, ALLOCATION_HASH).filter(allocation.hash()::equals).isPresent()) {
            return; // the same allocation; only the target container or the data hash was (re)recorded
        }
        String numbers = String.format("heap %s, RocksDB %s, record cache %s (allocation %s)",
                format(allocation.part("heap").bytes()), format(allocation.part("rocksdb").bytes()),
                format(allocation.part("record-cache").bytes()), allocation.hash());
        if (published == null) {
            events.record(workload.resource(), Type.Normal, "Allocated", String.format(
                    "published to ConfigMap %s: %s", configMapName(workload.name()), numbers));
        } else {
            String before = AllocationConfigMap.annotation(published, FACTS).orElse("?");
            events.record(workload.resource(), Type.Normal, "Resplit", String.format("re-split (%s -> %s): %s",
                    before, AllocationConfigMap.factsSummary(allocation), numbers));
        }
    }

    /** Stamps the template when the running settings need a restart and the policy allows it; returns "pending". */
    private boolean rollIfNeeded(StreamsMemoryPolicy policy, Workload workload, Allocation allocation) {
        if (workload.templateRestartHash().filter(allocation.restartHash()::equals).isPresent()) {
            return false;
        }
        if (policy.getSpec().getRollout() == Rollout.Manual) {
            events.record(workload.resource(), Type.Normal, "RestartPending", String.format(
                    "JVM flags or RocksDB capacities changed (restart hash %s); rollout is Manual, restart the pods to "
                            + "apply them", allocation.restartHash()));
            return true;
        }
        stamper.stamp(workload, allocation.restartHash());
        events.record(workload.resource(), Type.Normal, "RollingRestart", String.format(
                "JVM flags or RocksDB capacities changed: stamped restart hash %s on the pod template",
                allocation.restartHash()));
        return false;
    }

    /**
     * Counts the workload's pods against the allocation (status) and, once the workload has settled on its
     * current template, reports pods without the agent in an Event; with rollout Automatic it rolls the
     * workload once for this restart hash (never again for the same allocation, so never in a loop).
     */
    private void reportDrift(StreamsMemoryPolicy policy, Workload workload, Allocation allocation,
                             WorkloadAllocationStatus row) {
        Optional<PodDrift.Count> counted = drift.count(workload, allocation.restartHash());
        if (counted.isEmpty()) {
            return;
        }
        PodDrift.Count count = counted.get();
        row.setPods(count.pods());
        row.setPodsInjected(count.injected());
        row.setPodsNotInjected(count.notInjected());
        row.setPodsOutdated(count.outdated());
        row.setPodsSkipped(count.skipped());
        boolean templateCurrent = workload.templateRestartHash().filter(allocation.restartHash()::equals).isPresent();
        if (count.drifted() == 0 || !PodDrift.settled(workload)
                || (policy.getSpec().getRollout() != Rollout.Manual && !templateCurrent)) {
            // Nothing drifted, or a rollout is still under way (it replaces these pods).
            return;
        }
        String what = String.format("%d of %d pod(s) run without the agent (created while the admission webhook was "
                        + "unreachable or before allocation %s was published) and %d with JVM flags of an older allocation",
                count.notInjected(), count.pods(), allocation.hash(), count.outdated());
        if (policy.getSpec().getRollout() == Rollout.Manual) {
            events.record(workload.resource(), Type.Warning, "Drift", what + "; rollout is Manual: restart the pods "
                    + "(kubectl rollout restart) to inject them");
            return;
        }
        String rolledFor = workload.template() == null || workload.template().getMetadata() == null
                || workload.template().getMetadata().getAnnotations() == null ? null
                : workload.template().getMetadata().getAnnotations().get(DRIFT_ROLLOUT);
        if (allocation.restartHash().equals(rolledFor)) {
            events.record(workload.resource(), Type.Warning, "Drift", what + "; the workload was already rolled once "
                    + "for this allocation and is not rolled again: check that the webhook is reachable, then restart "
                    + "the pods");
            return;
        }
        if (!webhookInstalled()) {
            events.record(workload.resource(), Type.Warning, "Drift", what + "; the admission webhook is not installed "
                    + "(MutatingWebhookConfiguration " + WEBHOOK_CONFIGURATION + "), so rolling would not help");
            return;
        }
        stamper.stampDriftRollout(workload, allocation.restartHash());
        events.record(workload.resource(), Type.Warning, "Drift", what + "; rolling the workload once to inject them");
    }

    private boolean webhookInstalled() {
        try {
            return client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(WEBHOOK_CONFIGURATION)
                    .get() != null;
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return false;
        }
    }

    private void removeOptedOut(StreamsMemoryPolicy policy, List<Workload> workloads,
                                Collection<ConfigMap> published) {
        Set<String> wanted = workloads.stream().map(w -> configMapName(w.name())).collect(Collectors.toSet());
        for (ConfigMap configMap : published) {
            if (!wanted.contains(configMap.getMetadata().getName())) {
                client.resource(configMap).delete();
                metrics.forget(configMap.getMetadata().getNamespace(),
                        configMap.getMetadata().getLabels().get(WORKLOAD_NAME_LABEL));
                events.record(policy, Type.Normal, "OptedOut", String.format(
                        "%s %s no longer names this policy: removed ConfigMap %s",
                        configMap.getMetadata().getLabels().get(WORKLOAD_KIND_LABEL),
                        configMap.getMetadata().getLabels().get(WORKLOAD_NAME_LABEL), configMap.getMetadata().getName()));
            }
        }
    }

    @Override
    public DeleteControl cleanup(StreamsMemoryPolicy policy, Context<StreamsMemoryPolicy> context) {
        // Workloads keep running with their last allocation; tell each of them.
        Stream.concat(context.getSecondaryResources(Deployment.class).stream(),
                        context.getSecondaryResources(StatefulSet.class).stream())
                .map(Workload::of).flatMap(Optional::stream)
                .filter(w -> w.policyName().filter(policy.getMetadata().getName()::equals).isPresent())
                .forEach(w -> events.record(w.resource(), Type.Warning, "PolicyDeleted", String.format(
                        "StreamsMemoryPolicy %s was deleted; the workload keeps its last allocation (ConfigMap %s)",
                        policy.getMetadata().getName(), configMapName(w.name()))));
        metrics.forgetPolicy(policy);
        return DeleteControl.defaultDelete();
    }

    private static void copyNumbers(StreamsMemoryPolicyStatus from, StreamsMemoryPolicyStatus to) {
        to.setHeap(from.getHeap());
        to.setRocksDb(from.getRocksDb());
        to.setRecordCache(from.getRecordCache());
        to.setWorkloadCount(from.getWorkloadCount());
        to.setWorkloads(from.getWorkloads());
    }

    /** A fresh object carrying only identity and status, so the status patch claims nothing else. */
    private static StreamsMemoryPolicy withStatus(StreamsMemoryPolicy policy, StreamsMemoryPolicyStatus status) {
        StreamsMemoryPolicy patch = new StreamsMemoryPolicy();
        patch.setMetadata(new ObjectMetaBuilder()
                .withName(policy.getMetadata().getName()).withNamespace(policy.getMetadata().getNamespace()).build());
        patch.setStatus(status);
        return patch;
    }
}
