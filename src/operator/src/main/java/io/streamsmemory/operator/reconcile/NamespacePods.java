package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods of a policy's namespace, listed at most once per reconcile of the policy and only when a workload needs
 * them: one request for all its workloads, not one per workload (which, re-read every observation round, would be
 * a steady load on the API server of a cluster with many workloads).
 */
final class NamespacePods {
    private static final Logger LOG = LoggerFactory.getLogger(NamespacePods.class);
    private final KubernetesClient client;
    private final String namespace;
    private List<Pod> pods;
    private boolean failed;

    NamespacePods(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** The namespace's pods; empty when they cannot be listed (drift is then not counted this time). */
    synchronized Optional<List<Pod>> get() {
        if (pods == null && !failed) {
            try {
                pods = client.pods().inNamespace(namespace).list().getItems();
            } catch (KubernetesClientException e) {
                LOG.warn("cannot list the pods of namespace {} to check for drift: {}", namespace, e.getMessage());
                failed = true;
            }
        }
        return Optional.ofNullable(pods);
    }
}
