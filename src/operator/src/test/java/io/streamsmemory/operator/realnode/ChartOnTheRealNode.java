package io.streamsmemory.operator.realnode;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.Helm;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * A real-node test class's control plane, the operator's chart it installs before its tests and the broker its
 * applications use; the chart is uninstalled after them. The real-node classes run one at a time (their lock), so
 * they share these fields, each class leaving them empty.
 */
abstract class ChartOnTheRealNode {
    static KubernetesClient client;
    static LocalControlPlane controlPlane;
    static Helm helm;
    static String bootstrapServers;

    /** The chart installed as {@code name} ({@link OperatorChart#installOnRealNode}), a broker in a new namespace. */
    static void installChartAndBroker(String name, String namespace, Duration podStart) throws IOException {
        helm = OperatorChart.installOnRealNode(controlPlane, client, name, podStart);
        Fixtures.namespace(client, namespace, Map.of());
        bootstrapServers = RealPods.startBroker(client, namespace, podStart);
    }

    /** The chart this class installed, uninstalled; the fields emptied, so a next class that fails early finds none. */
    @AfterAll
    static void uninstallTheChart() {
        try {
            OperatorChart.uninstall(helm);
        } finally {
            helm = null;
            bootstrapServers = null;
        }
    }
}
