package io.streamsmemory.operator.realnode;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/** The operator pod's Prometheus metrics, read at its pod IP as a Prometheus server in the cluster would scrape them. */
final class OperatorMetrics {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String text;

    private OperatorMetrics(String text) {
        this.text = text;
    }

    /** {@code GET http://<operator pod IP>:8080/q/metrics}; empty when the operator does not answer. */
    static OperatorMetrics scrape(KubernetesClient client) throws InterruptedException {
        List<Pod> pods =
                client.pods().inNamespace(OperatorChart.NAMESPACE).list().getItems();
        for (Pod pod : pods) {
            String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
            if (ip == null) {
                continue;
            }
            try {
                HttpResponse<String> response = HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://" + ip + ":8080/q/metrics"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return new OperatorMetrics(response.body());
                }
            } catch (IOException unanswered) {
                // the next pod, or nothing this round
            }
        }
        return new OperatorMetrics("");
    }

    /** The value of {@code metric} for the workload (and {@code part}, when not null), if exported. */
    OptionalLong value(String metric, String namespace, String workload, String part) {
        return text.lines()
                .filter(line -> line.startsWith(metric + "{"))
                .filter(line -> line.contains("namespace=\"" + namespace + "\"")
                        && line.contains("workload=\"" + workload + "\"")
                        && (part == null || line.contains("part=\"" + part + "\"")))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst();
    }

    /**
     * Prometheus' {@code deriv}: the least-squares slope, per second, of samples taken every {@code intervalSeconds}.
     */
    static double deriv(List<Long> samples, double intervalSeconds) {
        int n = samples.size();
        if (n < 2) {
            return 0;
        }
        double meanX = (n - 1) / 2.0;
        double meanY = samples.stream().mapToLong(Long::longValue).average().orElse(0);
        double covariance = 0;
        double variance = 0;
        for (int i = 0; i < n; i++) {
            covariance += (i - meanX) * (samples.get(i) - meanY);
            variance += (i - meanX) * (i - meanX);
        }
        return covariance / variance / intervalSeconds;
    }
}
