package io.streamsmemory.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The kube-apiserver's own count of the requests it served ({@code apiserver_request_total} on its /metrics). */
public final class ApiServerRequests {
    private static final Pattern REQUESTS = Pattern.compile("(?m)^apiserver_request_total\\{([^}]*)} (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private ApiServerRequests() {}

    /** The requests summed over the label sets {@code which} accepts (labels: verb, resource, subresource, ...). */
    public static double sum(KubernetesClient client, Predicate<Map<String, String>> which) {
        double sum = 0;
        Matcher line = REQUESTS.matcher(client.raw("/metrics"));
        while (line.find()) {
            if (which.test(labels(line.group(1)))) {
                sum += Double.parseDouble(line.group(2));
            }
        }
        return sum;
    }

    /** The requests summed by verb and resource, keyed {@code "LIST pods"} (a request of no resource: {@code "GET "}). */
    public static Map<String, Double> byVerbAndResource(KubernetesClient client) {
        Map<String, Double> counts = new TreeMap<>();
        Matcher line = REQUESTS.matcher(client.raw("/metrics"));
        while (line.find()) {
            Map<String, String> labels = labels(line.group(1));
            counts.merge(
                    labels.getOrDefault("verb", "") + " " + labels.getOrDefault("resource", ""),
                    Double.parseDouble(line.group(2)),
                    Double::sum);
        }
        return counts;
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new HashMap<>();
        Matcher label = LABEL.matcher(text);
        while (label.find()) {
            labels.put(label.group(1), label.group(2));
        }
        return labels;
    }
}
