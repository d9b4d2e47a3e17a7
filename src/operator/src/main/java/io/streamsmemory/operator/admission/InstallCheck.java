package io.streamsmemory.operator.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.util.Map;
import java.util.Optional;

/**
 * The answer to the install check: a dry-run create, in a namespace holding a policy, of a pod
 * ({@code src/scripts/verify-install.sh}) or a ConfigMap (the operator's own check, {@link WebhookReachCheck}) annotated
 * {@link MetadataKeys#INSTALL_CHECK} comes back with the annotation set to {@code answered by <this pod>}. Only the API server can have sent that review (the dry run is its own), so the
 * answer proves what the operator's readiness cannot: that the API server reaches the webhook through its Service
 * (a firewall between the control plane and the nodes, as in a GKE private cluster, leaves the annotation as it
 * was and every pod admitted uninjected). Never a real pod: a dry run persists nothing.
 */
final class InstallCheck {
    static final String ANSWERED_BY = "answered by ";

    private InstallCheck() {}

    /** The patch answering {@code object}; empty unless the review is a dry run of an object asking for the check. */
    static Optional<ArrayNode> answer(JsonNode object, boolean dryRun) {
        if (!dryRun || !object.path("metadata").path("annotations").has(MetadataKeys.INSTALL_CHECK)) {
            return Optional.empty();
        }
        String answeredBy = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("the operator");
        return Optional.of(PodPatch.annotated(object, Map.of(MetadataKeys.INSTALL_CHECK, ANSWERED_BY + answeredBy)));
    }
}
