package io.streamsmemory.operator.reconcile.decide;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.observe.CrashLoop;
import io.streamsmemory.operator.observe.ObservedTopology;
import io.streamsmemory.operator.observe.WorkloadObservation;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Everything one workload's decision reads, gathered before it (by the reconcile's {@code WorkloadReconciler}): the decision
 * itself reads nothing else.
 *
 * @param current     the ConfigMap under the workload's name, null when there is none
 * @param pods        the pods of the workload's namespace, empty when they could not be listed
 * @param autoscalers the HorizontalPodAutoscalers of the workload's namespace (one may target it)
 * @param seen        what the workload's pods reported over the observation window, empty before any report
 * @param crash       an injected container of the workload in a restart loop, if the last round saw one
 * @param observation the pods' reports of the last round, empty before any
 * @param window      the observation window a verdict is judged over
 * @param settle      how long a split tuning step settles before it is judged
 * @param reach       whether the API server calls the webhook in the workload's namespace, as the policy's reconcile
 *                    read it once for all its workloads
 */
public record WorkloadInputs(
        StreamsMemoryPolicy policy,
        Workload workload,
        ConfigMap current,
        Optional<List<Pod>> pods,
        Collection<HorizontalPodAutoscaler> autoscalers,
        Optional<ObservedTopology> seen,
        Optional<CrashLoop> crash,
        Optional<WorkloadObservation> observation,
        Duration window,
        Duration settle,
        WebhookReach reach,
        Instant now) {}
