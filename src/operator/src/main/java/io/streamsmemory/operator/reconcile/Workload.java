package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Map;
import java.util.Optional;

/** A Deployment or StatefulSet seen through what the operator needs of it. */
public record Workload(HasMetadata resource, int replicas, PodTemplateSpec template) {

    public static Optional<Workload> of(HasMetadata resource) {
        if (resource instanceof Deployment d && d.getSpec() != null) {
            return Optional.of(new Workload(d, replicasOf(d.getSpec().getReplicas()), d.getSpec().getTemplate()));
        }
        if (resource instanceof StatefulSet s && s.getSpec() != null) {
            return Optional.of(new Workload(s, replicasOf(s.getSpec().getReplicas()), s.getSpec().getTemplate()));
        }
        return Optional.empty();
    }

    /** Kubernetes defaults replicas to 1; a workload scaled to 0 is sized as if it had one pod. */
    private static int replicasOf(Integer replicas) {
        return replicas == null || replicas < 1 ? 1 : replicas;
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
        return Optional.ofNullable(annotations().get(WorkloadAnnotations.POLICY)).map(String::trim)
                .filter(name -> !name.isEmpty());
    }

    /** The restart hash stamped on the pod template, if any. */
    public Optional<String> templateRestartHash() {
        if (template == null || template.getMetadata() == null || template.getMetadata().getAnnotations() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(template.getMetadata().getAnnotations().get(WorkloadAnnotations.RESTART_HASH));
    }
}
