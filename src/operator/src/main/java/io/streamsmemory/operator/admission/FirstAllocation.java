package io.streamsmemory.operator.admission;

import static io.streamsmemory.engine.ByteSize.format;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.plan.FittingPlan;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.ConfigMapPublisher;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a workload's first allocation from the admission webhook, for the first pods of a workload created
 * together with its policy (one {@code kubectl apply}): their controller creates them before the operator's first
 * reconcile has published anything, so they would start without the agent and the workload would be rolled once
 * for the drift. The webhook plans them as the reconciler would ({@link FittingPlan}, before any report: the
 * policy, the workload, its autoscaler), creates the ConfigMap, and injects them with it; the reconciler then
 * finds its own plan already published.
 *
 * <p>Only a ConfigMap that does not exist is created, through the reconciler's writer ({@link
 * ConfigMapPublisher#create}: a create, never an apply, so a user's ConfigMap under the name is never written), and every read is bounded well inside the webhook's 2 s timeout. Whatever fails leaves the pod as
 * before this class existed: admitted without the agent, reported as drift.
 */
public final class FirstAllocation {
    private static final Logger LOG = LoggerFactory.getLogger(FirstAllocation.class);

    /** The namespace's autoscalers (one may set the workload's replica range), read on the webhook's own pool. */
    private CompletableFuture<List<HorizontalPodAutoscaler>> autoscalers(String namespace) {
        return LiveReads.start(() -> client.autoscaling()
                .v2()
                .horizontalPodAutoscalers()
                .inNamespace(namespace)
                .list()
                .getItems());
    }

    /** The Event on the workload: what was published, before the operator's first reconcile. */
    private void told(HasMetadata resource, ConfigMap desired, Allocation allocation) {
        events.record(
                resource,
                Type.Normal,
                "Allocated",
                String.format(
                        "published to ConfigMap %s at the admission of the workload's first pod, before the "
                                + "operator's first reconcile: heap %s, RocksDB %s, record cache %s (allocation %s)",
                        desired.getMetadata().getName(),
                        format(allocation.part("heap").bytes()),
                        format(allocation.part("rocksdb").bytes()),
                        format(allocation.part("record-cache").bytes()),
                        allocation.hash()));
    }

    /** Bound on each API call (the policy and the autoscalers are read at once, then the create). */
    static final Duration CALL_TIMEOUT = Duration.ofMillis(500);

    private final KubernetesClient client;
    private final ConfigMapPublisher publisher;
    private final EventRecorder events;

    public FirstAllocation(KubernetesClient client, EventRecorder events) {
        this.client = client;
        this.publisher = new ConfigMapPublisher(client);
        this.events = events;
    }

    /**
     * The ConfigMap created for {@code resource}, an opted-in Deployment or StatefulSet whose allocation ConfigMap
     * does not exist; empty when its policy is missing, being deleted, invalid or does not fit (the reconciler
     * reports each), or when a call failed or was late.
     */
    public Optional<ConfigMap> publish(HasMetadata resource) {
        Optional<Workload> found = Workload.of(resource);
        if (found.isEmpty() || found.get().policyName().isEmpty()) {
            return Optional.empty();
        }
        Workload workload = found.get();
        String policyName = workload.policyName().get();
        try {
            CompletableFuture<StreamsMemoryPolicy> policyRead =
                    LiveReads.start(() -> client.resources(StreamsMemoryPolicy.class)
                            .inNamespace(workload.namespace())
                            .withName(policyName)
                            .get());
            CompletableFuture<List<HorizontalPodAutoscaler>> autoscalersRead = autoscalers(workload.namespace());
            StreamsMemoryPolicy policy = policyRead.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (policy == null || policy.getMetadata().getDeletionTimestamp() != null) {
                return Optional.empty();
            }
            List<HorizontalPodAutoscaler> autoscalers =
                    autoscalersRead.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            FittingPlan fitted = FittingPlan.of(
                    policy.getSpec(),
                    workload,
                    PlannedRange.of(workload, policy.getSpec().getScaling(), autoscalers),
                    Optional.empty(),
                    Map.of());
            if (!fitted.result().ok()) {
                return Optional.empty();
            }
            Allocation allocation = fitted.result().allocation();
            ConfigMap desired = AllocationConfigMap.desired(
                    policyName, workload, allocation, fitted.plan().topology().annotation());
            ConfigMap created = LiveReads.start(() -> publisher.create(desired))
                    .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (created == null) {
                return Optional.empty();
            }
            told(resource, desired, allocation);
            return Optional.of(created);
        } catch (Exception e) {
            // A conflict (the reconciler or another pod's admission created it meanwhile), a late call, a bad spec.
            LOG.info("no first allocation for {} {}/{}: {}", workload.kind(), workload.namespace(), workload.name(), e);
            return Optional.empty();
        }
    }
}
