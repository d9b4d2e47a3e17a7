package io.streamsmemory.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.LocalControlPlane;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;

/**
 * A class that runs the operator's ServiceAccount under deploy/'s namespace, ServiceAccount, RBAC and write policy:
 * {@link #asDeployedOperator} applies them, and they are deleted after the class, as the control plane it shares wants.
 */
abstract class UnderDeployedRbac {
    static final String OPERATOR_NAMESPACE = "streams-memory-system";
    static final String SERVICE_ACCOUNT = "streams-memory-operator";

    static KubernetesClient client;
    static LocalControlPlane controlPlane;

    /** The CRD and deploy/'s RBAC manifests applied, and a client as the operator's ServiceAccount under them. */
    static KubernetesClient asDeployedOperator() throws IOException {
        Fixtures.installCrd(client);
        Fixtures.applyRbacManifests(client);
        return controlPlane.clientAs(OPERATOR_NAMESPACE, SERVICE_ACCOUNT);
    }

    @AfterAll
    static void deleteTheAppliedManifests() {
        Fixtures.deleteDeployFiles(client, Fixtures.RBAC_MANIFESTS);
    }
}
