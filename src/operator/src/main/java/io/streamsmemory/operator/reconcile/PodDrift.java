package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
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
        LabelSelector selector = workload.selector();
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
            if (annotations.containsKey(MetadataKeys.ALLOCATION_HASH)) {
                if (Objects.equals(annotations.get(MetadataKeys.APPLIED_RESTART_HASH), restartHash)) {
                    injected++;
                } else {
                    outdated++;
                }
            } else if (annotations.containsKey(MetadataKeys.INJECTION_SKIPPED)) {
                skipped++;
            } else {
                notInjected++;
            }
        }
        return Optional.of(new Count(total, injected, notInjected, outdated, skipped));
    }

    private static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private static boolean ownedBy(Pod pod, Workload workload) {
        String hash = pod.getMetadata().getLabels() == null ? null
                : pod.getMetadata().getLabels().get(Workload.POD_TEMPLATE_HASH);
        return pod.getMetadata().getOwnerReferences().stream().filter(o -> Boolean.TRUE.equals(o.getController()))
                .findFirst().flatMap(o -> Workload.controllingWorkload(o.getKind(), o.getName(), hash))
                .filter(w -> w.getKey().equals(workload.kind()) && w.getValue().equals(workload.name())).isPresent();
    }
}
