package io.streamsmemory.operator.workload;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A Deployment or StatefulSet seen through what the operator needs of it: the one home of the facts the reconciler
 * and the webhook both read (replicas and their default, the pod template, the owner chain from a pod).
 *
 * @param declaredReplicas {@code spec.replicas} with Kubernetes' default of 1; 0 when scaled to zero
 */
public record Workload(HasMetadata resource, int declaredReplicas, PodTemplateSpec template, LabelSelector selector) {
    public static final String POD_TEMPLATE_HASH = "pod-template-hash";

    public static Optional<Workload> of(HasMetadata resource) {
        if (resource instanceof Deployment d && d.getSpec() != null) {
            return Optional.of(new Workload(
                    d,
                    defaulted(d.getSpec().getReplicas()),
                    d.getSpec().getTemplate(),
                    d.getSpec().getSelector()));
        }
        if (resource instanceof StatefulSet s && s.getSpec() != null) {
            return Optional.of(new Workload(
                    s,
                    defaulted(s.getSpec().getReplicas()),
                    s.getSpec().getTemplate(),
                    s.getSpec().getSelector()));
        }
        return Optional.empty();
    }

    private static int defaulted(Integer replicas) {
        return replicas == null ? 1 : Math.max(0, replicas);
    }

    /** The pods one allocation is sized for: a workload scaled to 0 is sized as if it had one pod. */
    public int replicas() {
        return Math.max(1, declaredReplicas);
    }

    /**
     * The kind and name of the workload controlling a pod, from the pod's controller owner: a StatefulSet owns its
     * pods; a Deployment's pods are owned by its ReplicaSets, named {@code <deployment>-<pod-template-hash>}.
     * Empty for any other owner.
     */
    public static Optional<Map.Entry<String, String>> controllingWorkload(
            String ownerKind, String ownerName, String podTemplateHash) {
        if ("StatefulSet".equals(ownerKind)) {
            return Optional.of(Map.entry("StatefulSet", ownerName));
        }
        if ("ReplicaSet".equals(ownerKind)
                && podTemplateHash != null
                && !podTemplateHash.isEmpty()
                && ownerName.endsWith("-" + podTemplateHash)) {
            return Optional.of(
                    Map.entry("Deployment", ownerName.substring(0, ownerName.length() - podTemplateHash.length() - 1)));
        }
        return Optional.empty();
    }

    public String kind() {
        return resource.getKind();
    }

    public String name() {
        return resource.getMetadata().getName();
    }

    public String namespace() {
        return resource.getMetadata().getNamespace();
    }

    public Map<String, String> annotations() {
        Map<String, String> annotations = resource.getMetadata().getAnnotations();
        return annotations == null ? Map.of() : annotations;
    }

    /** The policy this workload names, if any. */
    public Optional<String> policyName() {
        return Optional.ofNullable(annotations().get(MetadataKeys.POLICY))
                .map(String::trim)
                .filter(name -> !name.isEmpty());
    }

    /**
     * The restart hash the pods of the current template were made to run with: the one a rollout stamped on the
     * template, else the one recorded on the workload when it opted in with its pods already running it
     * ({@link MetadataKeys#ADMITTED_RESTART_HASH}); empty before either.
     */
    public Optional<String> appliedRestartHash() {
        Optional<String> stamped = templateAnnotation(MetadataKeys.RESTART_HASH);
        return stamped.isPresent() ? stamped : annotation(MetadataKeys.ADMITTED_RESTART_HASH);
    }

    /** An annotation of the workload's own metadata, if any. */
    public Optional<String> annotation(String key) {
        return Optional.ofNullable(annotations().get(key));
    }

    /** An annotation of the pod template, if any. */
    public Optional<String> templateAnnotation(String key) {
        if (template == null
                || template.getMetadata() == null
                || template.getMetadata().getAnnotations() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(template.getMetadata().getAnnotations().get(key));
    }

    /**
     * True when the workload's controller has finished rolling out its current template (the API server leaves
     * counts of 0 out of the status).
     */
    public boolean settled() {
        Long generation = resource.getMetadata().getGeneration();
        if (resource instanceof Deployment d) {
            DeploymentStatus status = d.getStatus();
            return status != null
                    && status.getObservedGeneration() != null
                    && generation != null
                    && status.getObservedGeneration() >= generation
                    && count(status.getUpdatedReplicas()) == declaredReplicas
                    && count(status.getReplicas()) == declaredReplicas;
        }
        if (resource instanceof StatefulSet s) {
            StatefulSetStatus status = s.getStatus();
            return status != null
                    && status.getObservedGeneration() != null
                    && generation != null
                    && status.getObservedGeneration() >= generation
                    && Objects.equals(status.getUpdateRevision(), status.getCurrentRevision())
                    && count(status.getReplicas()) == declaredReplicas;
        }
        return false;
    }

    /**
     * True while its controller replaces pods of an older template (scaling is no rollout: a StatefulSet adding
     * pods one by one, or pods that cannot be scheduled, leave the template current); false before any controller
     * reported (the API server gives a new workload an empty status).
     */
    public boolean rolloutInProgress() {
        Long generation = resource.getMetadata().getGeneration();
        if (resource instanceof Deployment d && d.getStatus() != null) {
            DeploymentStatus status = d.getStatus();
            return behind(status.getObservedGeneration(), generation)
                    || count(status.getUpdatedReplicas()) < count(status.getReplicas());
        }
        if (resource instanceof StatefulSet s && s.getStatus() != null) {
            StatefulSetStatus status = s.getStatus();
            return behind(status.getObservedGeneration(), generation)
                    || !Objects.equals(status.getUpdateRevision(), status.getCurrentRevision());
        }
        return false;
    }

    /** The controller has not yet acted on the latest spec; never having reported at all is not behind. */
    private static boolean behind(Long observedGeneration, Long generation) {
        return observedGeneration != null && generation != null && observedGeneration < generation;
    }

    private static int count(Integer value) {
        return value == null ? 0 : value;
    }
}
