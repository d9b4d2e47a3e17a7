package io.streamsmemory.operator.realnode;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * A real-node test class's control plane, with the operator's chart installed on it before the first class
 * ({@link OperatorChart.Installed}), and the broker its applications use, in a namespace of its own. The real-node
 * classes run one at a time (their lock), so they share these fields, each class leaving the broker's empty.
 */
abstract class ChartOnTheRealNode {
    static KubernetesClient client;
    static LocalControlPlane controlPlane;
    static String bootstrapServers;

    /** Fails (or skips) without a real node; then a broker in {@code namespace}, a new namespace. */
    static void startBroker(String namespace, Duration podStart) throws IOException {
        RealNodeRequirement.check(controlPlane);
        Fixtures.namespace(client, namespace, Map.of());
        bootstrapServers = RealPods.startBroker(client, namespace, podStart);
    }

    /** Emptied, so a next class that fails early finds no broker (its namespace went with this class). */
    @AfterAll
    static void forgetTheBroker() {
        bootstrapServers = null;
    }
}
