package io.streamsmemory.operator.reconcile.decide;

import io.fabric8.kubernetes.api.model.Pod;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Counts how a workload's pods compare with its allocation, from the annotations the admission webhook
 * writes on each pod: injected with the current restart hash, injected with an older one (outdated),
 * skipped by the webhook for a reason it reported, or never seen by it (not injected: created while the
 * webhook was unreachable or before the allocation was published).
 */
public final class PodDrift {
    /**
     * {@code driftedFromTemplate}: the drifted pods created from a template stamped with the current restart hash
     * (or from the unstamped template of a workload admitted with it, {@link MetadataKeys#ADMITTED_RESTART_HASH}).
     * Once the workload has settled on that template, only these are drift a rollout could mend; a drifted pod of
     * an older template is one its controller is already replacing, which a pod list read before the workload's
     * status still shows.
     */
    public record Count(int pods, int injected, int notInjected, int outdated, int skipped, int driftedFromTemplate) {
        public int drifted() {
            return notInjected + outdated;
        }
    }

    private PodDrift() {}

    /** The workload's pods (from its namespace's, {@code pods}) against {@code restartHash}; empty when they were not listed. */
    static Optional<Count> count(Workload workload, String restartHash, Optional<List<Pod>> pods) {
        return pods.map(all -> count(workload, restartHash, all));
    }

    static Count count(Workload workload, String restartHash, List<Pod> pods) {
        // A pod carries its template's stamp, which the template of a workload admitted with its allocation lacks.
        String templateStamp =
                workload.templateAnnotation(MetadataKeys.RESTART_HASH).isEmpty()
                                && workload.annotation(MetadataKeys.ADMITTED_RESTART_HASH)
                                        .isPresent()
                        ? null
                        : restartHash;
        int total = 0, injected = 0, notInjected = 0, outdated = 0, skipped = 0, driftedFromTemplate = 0;
        for (Pod pod : pods) {
            if (pod.getMetadata().getDeletionTimestamp() != null || !ownedBy(pod, workload) || finished(pod)) {
                continue;
            }
            total++;
            Map<String, String> annotations = pod.getMetadata().getAnnotations() == null
                    ? Map.of()
                    : pod.getMetadata().getAnnotations();
            boolean drifted = false;
            if (annotations.containsKey(MetadataKeys.ALLOCATION_HASH)) {
                if (Objects.equals(annotations.get(MetadataKeys.APPLIED_RESTART_HASH), restartHash)) {
                    injected++;
                } else {
                    outdated++;
                    drifted = true;
                }
            } else if (annotations.containsKey(MetadataKeys.INJECTION_SKIPPED)) {
                skipped++;
            } else {
                notInjected++;
                drifted = true;
            }
            if (drifted && Objects.equals(templateStamp, annotations.get(MetadataKeys.RESTART_HASH))) {
                driftedFromTemplate++;
            }
        }
        return new Count(total, injected, notInjected, outdated, skipped, driftedFromTemplate);
    }

    private static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private static boolean ownedBy(Pod pod, Workload workload) {
        String hash = pod.getMetadata().getLabels() == null
                ? null
                : pod.getMetadata().getLabels().get(Workload.POD_TEMPLATE_HASH);
        return pod.getMetadata().getOwnerReferences().stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()))
                .findFirst()
                .flatMap(o -> Workload.controllingWorkload(o.getKind(), o.getName(), hash))
                .filter(w -> w.getKey().equals(workload.kind()) && w.getValue().equals(workload.name()))
                .isPresent();
    }
}
