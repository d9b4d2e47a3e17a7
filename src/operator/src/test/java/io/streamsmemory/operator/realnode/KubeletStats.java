package io.streamsmemory.operator.realnode;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.OptionalLong;

/**
 * kubelet's own memory figures, from its summary API through the API server's node proxy
 * ({@code /api/v1/nodes/<node>/proxy/stats/summary}): the working set is what {@code kubectl top} shows and what the
 * eviction manager acts on (the cgroup's usage less its inactive file pages).
 */
final class KubeletStats {
    private KubeletStats() {}

    /** The container's working set now, if kubelet reports it. */
    static OptionalLong workingSetBytes(KubernetesClient client, String namespace, String pod, String container) {
        String node = client.nodes().list().getItems().get(0).getMetadata().getName();
        JsonNode summary =
                Serialization.unmarshal(client.raw("/api/v1/nodes/" + node + "/proxy/stats/summary"), JsonNode.class);
        for (JsonNode p : summary.path("pods")) {
            if (!namespace.equals(p.path("podRef").path("namespace").asText())
                    || !pod.equals(p.path("podRef").path("name").asText())) {
                continue;
            }
            for (JsonNode c : p.path("containers")) {
                JsonNode bytes = c.path("memory").path("workingSetBytes");
                if (container.equals(c.path("name").asText()) && bytes.isNumber()) {
                    return OptionalLong.of(bytes.asLong());
                }
            }
        }
        return OptionalLong.empty();
    }
}
