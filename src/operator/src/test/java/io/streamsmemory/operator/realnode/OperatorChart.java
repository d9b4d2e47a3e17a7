package io.streamsmemory.operator.realnode;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.ControlPlaneFixture;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.Helm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The operator installed on the real node as a user does: {@code make publish}'s script pushes the images and the chart
 * to the control plane's registry, helm installs from {@code oci://}, and the kubelet pulls every image from there.
 */
final class OperatorChart {
    static final String NAMESPACE = "streams-memory-system";
    static final String RELEASE = "streams-memory-operator";
    /** Where the real-node tests keep what they saw (helm's and kubectl's output, their figures). */
    static final Path OUT = Path.of("target/real-node");
    /** The version installed first: the chart's own (and the images' tag in examples/). */
    static final String VERSION = "0.1.0";

    private OperatorChart() {}

    /** The chart as {@link Installed} installed it, for the real-node classes; null without a real node. */
    static Helm helm;
    /** What {@link Installed} published and installed. */
    static PublishedRelease installed;
    /** The key of {@link #signing()}, once made. */
    private static Cosign cosign;

    /**
     * This run's signing key, and the installed release signed with it by src/scripts/sign.sh: both on first use, so
     * that the install need not wait for cosign, the last and longest of make test's Go builds on a fresh machine
     * (four minutes there). {@link RealNodeTest}, which checks the signatures, is handed to the executor last.
     */
    static synchronized Cosign signing() throws IOException {
        if (cosign == null) {
            Cosign key = new Cosign(OUT.resolve("cosign"));
            installed.sign(helm, key, OUT);
            cosign = key;
        }
        return cosign;
    }

    /**
     * The chart published and installed once on the real node's control plane, before its first class, and kept for
     * them all (its operator, webhook configuration and cluster roles are in no class's footprint): each class starts
     * from the operator a user installed, without an install, a wait for the operator's pod and an uninstall of its
     * own. What publish.sh and helm printed goes to target/real-node/publish.txt and install.txt. Without a real node it
     * installs nothing, and each class skips or fails with the reason ({@link RealNodeRequirement}).
     */
    static final class Installed implements ControlPlaneFixture {
        @Override
        public void install(LocalControlPlane controlPlane) throws IOException {
            if (!controlPlane.hasRealNode()) {
                return;
            }
            Files.createDirectories(OUT);
            Helm installing = Helm.locate(OUT.resolve("helm-home"), controlPlane.kubeconfigPath());
            // Under streams-memory/, as make run publishes: the node takes its sandbox (pause) image from there.
            // Unsigned for now: signing() signs it once cosign is built.
            PublishedRelease release = PublishedRelease.publishUnsigned(
                    installing, controlPlane.registryAddress() + "/streams-memory", VERSION, Helm.CHART);
            Files.writeString(OUT.resolve("publish.txt"), release.output());
            Files.writeString(
                    OUT.resolve("install.txt"),
                    OperatorChart.install(installing, controlPlane, "install", release)
                            .output());
            awaitReady(controlPlane.adminClient(), Duration.ofMinutes(3));
            helm = installing;
            installed = release;
        }
    }

    /**
     * helm install (or upgrade) of the published chart. The operator's pod reaches the API server at the node's bridge
     * address: this node runs no kube-proxy, so the "kubernetes" Service's cluster IP is not routed. The operator reads
     * the pods' reports every 5 s.
     */
    static Helm.Result install(Helm helm, LocalControlPlane controlPlane, String verb, PublishedRelease release) {
        return helm.run(
                        verb,
                        RELEASE,
                        release.chartReference(),
                        "--version",
                        release.version(),
                        "--plain-http",
                        "--wait",
                        "--timeout",
                        "3m",
                        "--namespace",
                        NAMESPACE,
                        "--create-namespace",
                        "--set",
                        "operator.replicas=1",
                        "--set",
                        "logFormat=text",
                        "--set",
                        "operator.extraEnv[0].name=KUBERNETES_SERVICE_HOST",
                        "--set-string",
                        "operator.extraEnv[0].value=" + controlPlane.nodeAddress(),
                        "--set",
                        "operator.extraEnv[1].name=KUBERNETES_SERVICE_PORT",
                        "--set-string",
                        "operator.extraEnv[1].value=" + controlPlane.apiServerPort(),
                        "--set",
                        "operator.extraEnv[2].name=STREAMSMEMORY_OBSERVE_INTERVAL",
                        "--set-string",
                        "operator.extraEnv[2].value=PT5S")
                .orFail("helm " + verb + " " + release.chartReference() + " " + release.version());
    }

    /** The image of examples/ ({@code ghcr.io/streams-memory/<name>:<tag>}) as published to the registry. */
    static String fromRegistry(String image) {
        String prefix = "ghcr.io/streams-memory/";
        return installed != null && image.startsWith(prefix)
                ? installed.registry() + "/" + image.substring(prefix.length())
                : image;
    }

    /** Until the operator's Deployment has one updated, ready replica and no other, as of its latest spec. */
    static void awaitReady(KubernetesClient client, Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofSeconds(1)).until(() -> {
            Deployment d = client.apps()
                    .deployments()
                    .inNamespace(NAMESPACE)
                    .withName(RELEASE)
                    .get();
            return d != null
                    && d.getStatus() != null
                    && Objects.equals(
                            d.getStatus().getObservedGeneration(),
                            d.getMetadata().getGeneration())
                    && Objects.equals(d.getStatus().getUpdatedReplicas(), 1)
                    && Objects.equals(d.getStatus().getReadyReplicas(), 1)
                    && Objects.equals(d.getStatus().getReplicas(), 1);
        });
    }
}
