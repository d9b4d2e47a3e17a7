package io.streamsmemory.operator.admission;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.controlplane.ControlPlaneOptions;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.Rollout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * {@code make bench-webhook}: creates pods through a real kube-apiserver, one at a time, with the
 * operator's webhook on (the API server calls it over TLS and applies its patch), on but for pods in a
 * namespace without any policy (the configuration's namespaceSelector keeps the API server from calling
 * it), and off (no webhook configuration), alternating in rounds so all modes see the same API server, etcd
 * and JIT state, and prints the client-side latency of each create.
 *
 * <p>The pods look like a Deployment's (controller owner ReplicaSet {@code bench-app-<hash>}, label
 * {@code pod-template-hash}) of an opted-in Deployment, so every pod with the webhook on is injected;
 * no controller-manager runs, so nothing else creates or deletes pods. Arguments: pods per mode (500),
 * rounds (5), warm-up pods per mode (200).
 */
public final class WebhookBenchmark {
    private static final String NS = "bench";
    private static final String NS_WITHOUT_POLICY = "bench-no-policy";
    private static final String HASH = "5d8f7c9b4";

    public static void main(String[] args) throws Exception {
        int pods = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        System.out.printf(
                "bench-webhook: starting etcd + kube-apiserver, the operator and its webhook "
                        + "(%d pods per mode in %d rounds, %d warm-up pods per mode)%n",
                pods, rounds, warmup);
        try (LocalControlPlane controlPlane = LocalControlPlane.start(ControlPlaneOptions.apiServerOnly())) {
            KubernetesClient client = controlPlane.adminClient();
            int port = WebhookOperator.prepareLocal(client, NS, NS_WITHOUT_POLICY);
            try (WebhookOperator operator = WebhookOperator.start(client, WebhookOperator.localSettings(port))) {
                client.resource(WebhookOperator.policy(NS, "bench", Rollout.Manual))
                        .create();
                var deployment = client.resource(WebhookOperator.deployment(NS, "bench-app", "bench", 1, List.of()))
                        .create();
                await().atMost(WebhookOperator.WAIT)
                        .until(() -> WebhookOperator.configMap(client, NS, "bench-app") != null);
                Pod template = WebhookOperator.replicaSetPod(deployment, HASH);
                // Same pod, owned by a workload that does not opt in: the API server still calls the webhook, which
                // answers "allowed, unchanged". Splits the added latency into the call itself and the injection.
                Pod passThrough = WebhookOperator.replicaSetPod(
                        client.resource(WebhookOperator.deployment(NS, "other-app", null, 1, List.of()))
                                .create(),
                        HASH);
                // Same pod in a namespace that holds no policy: the API server must not call the webhook at all.
                Pod noPolicy = WebhookOperator.replicaSetPod(
                        client.resource(WebhookOperator.deployment(NS_WITHOUT_POLICY, "other-app", null, 1, List.of()))
                                .create(),
                        HASH);

                Bench bench = new Bench(client, template);
                Bench called = new Bench(client, passThrough);
                Bench elsewhere = new Bench(client, noPolicy);
                await().atMost(WebhookOperator.WAIT).until(() -> bench.probe());
                // Taken once the operator has put the policy's namespace into the namespaceSelector.
                MutatingWebhookConfiguration on = Fixtures.webhookConfiguration(
                                client, WebhookSettings.DEFAULT_CONFIGURATION_NAME)
                        .get();
                bench.run(warmup, null);
                off(client);
                await().atMost(WebhookOperator.WAIT).until(() -> !bench.probe());
                bench.run(warmup, null);

                List<Double> with = new ArrayList<>();
                List<Double> calledOnly = new ArrayList<>();
                List<Double> noPolicyNamespace = new ArrayList<>();
                long reviewsWithoutPolicy = 0;
                List<Double> without = new ArrayList<>();
                int perRound = (pods + rounds - 1) / rounds;
                int injected = 0;
                for (int round = 0; round < rounds; round++) {
                    int n = Math.min(perRound, pods - with.size());
                    on(client, on, operator);
                    await().atMost(WebhookOperator.WAIT).until(() -> bench.probe());
                    injected += bench.run(n, with);
                    called.run(n, calledOnly);
                    long reviews = operator.webhook.podReviews();
                    elsewhere.run(n, noPolicyNamespace);
                    reviewsWithoutPolicy += operator.webhook.podReviews() - reviews;
                    off(client);
                    await().atMost(WebhookOperator.WAIT).until(() -> !bench.probe());
                    bench.run(n, without);
                }
                System.out.println();
                System.out.printf(
                        "%-16s %6s %8s %8s %8s %8s %8s %8s%n",
                        "mode", "pods", "p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms", "injected");
                row("webhook on", with, injected);
                row("called, no patch", calledOnly, 0);
                row("no policy in ns", noPolicyNamespace, 0);
                row("webhook off", without, 0);
                List<Double> handling = operator.webhook.recentHandlingMillis();
                System.out.printf(
                        "webhook reviews answered: %d injected, %d skipped, %d errors (answered allowed); "
                                + "time inside the webhook p50 %.3f ms, p99 %.3f ms (last %d reviews); %d TLS handshakes%n",
                        operator.webhook.injected(),
                        operator.webhook.skipped(),
                        operator.webhook.errors(),
                        percentile(handling, 0.5),
                        percentile(handling, 0.99),
                        handling.size(),
                        operator.webhook.handshakes());
                double p50 = percentile(with, 0.50);
                double p99 = percentile(with, 0.99);
                double p99Off = percentile(without, 0.99);
                System.out.printf(
                        "webhook reviews for the %d pods of the namespace without policies: %d%n",
                        noPolicyNamespace.size(), reviewsWithoutPolicy);
                System.out.printf(
                        "summary: pods=%d p50_ms=%.2f p99_ms=%.2f p99_no_webhook_ms=%.2f p99_added_ms=%.2f "
                                + "p99_no_policy_namespace_ms=%.2f%n",
                        with.size(), p50, p99, p99Off, p99 - p99Off, percentile(noPolicyNamespace, 0.99));
            }
        }
        System.exit(0);
    }

    private static void row(String mode, List<Double> latencies, int injected) {
        System.out.printf(
                "%-16s %6d %8.2f %8.2f %8.2f %8.2f %8.2f %8s%n",
                mode,
                latencies.size(),
                percentile(latencies, 0.50),
                percentile(latencies, 0.90),
                percentile(latencies, 0.99),
                percentile(latencies, 1.0),
                latencies.stream().mapToDouble(Double::doubleValue).average().orElse(0),
                mode.endsWith("on") ? String.valueOf(injected) : "-");
    }

    /** Nearest-rank percentile. */
    static double percentile(List<Double> values, double p) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static void off(KubernetesClient client) {
        Fixtures.webhookConfiguration(client, WebhookSettings.DEFAULT_CONFIGURATION_NAME)
                .delete();
    }

    /** The configuration again, with the operator's caBundle already in it. */
    private static void on(
            KubernetesClient client, MutatingWebhookConfiguration configuration, WebhookOperator operator) {
        MutatingWebhookConfiguration fresh =
                new io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder(
                                configuration)
                        .editMetadata()
                        .withResourceVersion(null)
                        .withUid(null)
                        .withCreationTimestamp(null)
                        .withManagedFields(List.of())
                        .endMetadata()
                        .build();
        String bundle = Base64.getEncoder()
                .encodeToString(operator.webhook.caBundlePem().getBytes(StandardCharsets.UTF_8));
        for (MutatingWebhook webhook : fresh.getWebhooks()) {
            webhook.getClientConfig().setCaBundle(bundle);
        }
        client.resource(fresh).create();
    }

    private static final class Bench {
        private final KubernetesClient client;
        private final Pod template;

        Bench(KubernetesClient client, Pod template) {
            this.client = client;
            this.template = template;
        }

        /** Creates one pod outside the measurements: is the webhook in effect? */
        boolean probe() {
            return WebhookOperator.injected(
                    client.resource(new PodBuilder(template).build()).create());
        }

        /** Creates {@code n} pods one after the other, adding each create's latency (ms); returns how many were injected. */
        int run(int n, List<Double> latencies) {
            int injected = 0;
            for (int i = 0; i < n; i++) {
                Pod pod = new PodBuilder(template).build();
                long start = System.nanoTime();
                Pod created = client.resource(pod).create();
                long elapsed = System.nanoTime() - start;
                if (latencies != null) {
                    latencies.add(elapsed / 1e6);
                }
                if (WebhookOperator.injected(created)) {
                    injected++;
                }
            }
            return injected;
        }
    }
}
