package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts how a workload's pods compare with its allocation, from the annotations the admission webhook
 * writes on each pod: injected with the current restart hash, injected with an older one (outdated),
 * skipped by the webhook for a reason it reported, or never seen by it (not injected: created while the
 * webhook was unreachable or before the allocation was published).
 */
public class PodDrift {
    private static final Logger LOG = LoggerFactory.getLogger(PodDrift.class);

    public record Count(int pods, int injected, int notInjected, int outdated, int skipped) {
        public int drifted() {
            return notInjected + outdated;
        }
    }

    private final KubernetesClient client;

    public PodDrift(KubernetesClient client) {
        this.client = client;
    }

    /** The workload's pods against {@code restartHash}; empty when they cannot be listed. */
    public Optional<Count> count(Workload workload, String restartHash) {
        LabelSelector selector = selector(workload);
        if (selector == null) {
            return Optional.empty();
        }
        List<Pod> pods;
        try {
            pods = client.pods().inNamespace(workload.namespace()).withLabelSelector(selector).list().getItems();
        } catch (KubernetesClientException e) {
            LOG.warn("cannot list the pods of {} {}/{} to check for drift: {}", workload.kind(), workload.namespace(),
                    workload.name(), e.getMessage());
            return Optional.empty();
        }
        int total = 0, injected = 0, notInjected = 0, outdated = 0, skipped = 0;
        for (Pod pod : pods) {
            if (pod.getMetadata().getDeletionTimestamp() != null || !ownedBy(pod, workload) || finished(pod)) {
                continue;
            }
            total++;
            Map<String, String> annotations = pod.getMetadata().getAnnotations() == null ? Map.of()
                    : pod.getMetadata().getAnnotations();
            if (annotations.containsKey(WorkloadAnnotations.ALLOCATION_HASH)) {
                if (Objects.equals(annotations.get(WorkloadAnnotations.APPLIED_RESTART_HASH), restartHash)) {
                    injected++;
                } else {
                    outdated++;
                }
            } else if (annotations.containsKey(WorkloadAnnotations.INJECTION_SKIPPED)) {
                skipped++;
            } else {
                notInjected++;
            }
        }
        return Optional.of(new Count(total, injected, notInjected, outdated, skipped));
    }

    /** True when the workload's controller has finished rolling out its current template. */
    public static boolean settled(Workload workload) {
        Long generation = workload.resource().getMetadata().getGeneration();
        if (workload.resource() instanceof Deployment d) {
            DeploymentStatus status = d.getStatus();
            int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            return status != null && status.getObservedGeneration() != null && generation != null
                    && status.getObservedGeneration() >= generation
                    && Objects.equals(status.getUpdatedReplicas(), replicas)
                    && Objects.equals(status.getReplicas(), replicas);
        }
        if (workload.resource() instanceof StatefulSet s) {
            StatefulSetStatus status = s.getStatus();
            int replicas = s.getSpec().getReplicas() == null ? 1 : s.getSpec().getReplicas();
            return status != null && status.getObservedGeneration() != null && generation != null
                    && status.getObservedGeneration() >= generation
                    && Objects.equals(status.getUpdateRevision(), status.getCurrentRevision())
                    && Objects.equals(status.getReplicas(), replicas);
        }
        return false;
    }

    private static LabelSelector selector(Workload workload) {
        if (workload.resource() instanceof Deployment d) {
            return d.getSpec().getSelector();
        }
        if (workload.resource() instanceof StatefulSet s) {
            return s.getSpec().getSelector();
        }
        return null;
    }

    private static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** A Deployment's pods are owned by its ReplicaSets ({@code <name>-<pod-template-hash>}); a StatefulSet owns its pods. */
    private static boolean ownedBy(Pod pod, Workload workload) {
        for (OwnerReference owner : pod.getMetadata().getOwnerReferences()) {
            if (!Boolean.TRUE.equals(owner.getController())) {
                continue;
            }
            if (workload.resource() instanceof StatefulSet) {
                return "StatefulSet".equals(owner.getKind()) && workload.name().equals(owner.getName());
            }
            String hash = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get("pod-template-hash");
            return "ReplicaSet".equals(owner.getKind()) && hash != null
                    && owner.getName().equals(workload.name() + "-" + hash);
        }
        return false;
    }
}
