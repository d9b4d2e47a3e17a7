package io.streamsmemory.agent.report;

import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;

/**
 * What the application gets done, from Kafka's own metrics with Kafka's types (kept apart from {@link StreamsFigures}
 * for the reason {@link StoreMetrics} is: a Kafka the agent's class loader cannot see fails here alone, as a
 * LinkageError or ClassCastException its caller catches):
 * <ul>
 *   <li>records processed: {@code process-total} of group {@code stream-thread-metrics} (a cumulative count per
 *       stream thread, Kafka Streams 2.5 and later), from the instance's own registry;</li>
 *   <li>consumer lag: the client-level {@code records-lag-max} of group {@code consumer-fetch-manager-metrics} (the
 *       largest lag of any partition over the metric's window) of each stream thread's main consumer, from
 *       {@code StreamThread.consumerMetrics()} (the consumers' registries, no lock taken); the restore consumer's
 *       lag is the restoration's, not the application's, and is left out.</li>
 * </ul>
 * Neither reads a RocksDB handle ({@link StoreMetrics} says why that must never happen): a stream thread's count and a
 * consumer's fetch statistics are plain Java sums and maxima, under their sensor's short lock.
 */
final class ProgressMetrics {
    static final String THREAD_GROUP = "stream-thread-metrics";
    static final String PROCESS_TOTAL = "process-total";
    static final String FETCH_GROUP = "consumer-fetch-manager-metrics";
    static final String LAG_MAX = "records-lag-max";
    static final String RESTORE_CONSUMER = "-restore-consumer";

    private ProgressMetrics() {}

    /**
     * {@code process-total} summed over the instance's stream threads, or -1 when no thread's count is readable; throws
     * ClassCastException when the registry is of another class loader's Kafka.
     */
    static long processed(Object registry) {
        long total = -1;
        for (Map.Entry<MetricName, KafkaMetric> entry :
                ((Metrics) registry).metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (!THREAD_GROUP.equals(name.group()) || !PROCESS_TOTAL.equals(name.name())) {
                continue;
            }
            long count = valueOf(name, entry.getValue());
            if (count >= 0) {
                total = Math.max(total, 0) + count;
            }
        }
        return total;
    }

    /**
     * The largest client-level {@code records-lag-max} of a main consumer among one stream thread's consumer metrics,
     * or -1 when none has a value (no fetch in the metric's window gives NaN).
     */
    static long lagMax(Map<?, ?> consumerMetrics) {
        long max = -1;
        for (Map.Entry<?, ?> entry : consumerMetrics.entrySet()) {
            MetricName name = (MetricName) entry.getKey();
            if (!FETCH_GROUP.equals(name.group())
                    || !LAG_MAX.equals(name.name())
                    || name.tags().containsKey("topic")
                    || name.tags().containsKey("partition")) {
                continue;
            }
            String client = name.tags().get("client-id");
            if (client != null && client.endsWith(RESTORE_CONSUMER)) {
                continue;
            }
            max = Math.max(max, valueOf(name, (Metric) entry.getValue()));
        }
        return max;
    }

    /**
     * The agent's one evaluation of a Kafka metric (StoreMetricsTest's architecture rule admits this method alone):
     * only a stream thread's {@code process-total} or a consumer's {@code records-lag-max}, never a store's gauge. The
     * value as a whole non-negative number, -1 when it is not one (NaN, infinite, not a number) or not such a metric.
     */
    static long valueOf(MetricName name, Metric metric) {
        boolean admitted = THREAD_GROUP.equals(name.group()) && PROCESS_TOTAL.equals(name.name())
                || FETCH_GROUP.equals(name.group()) && LAG_MAX.equals(name.name());
        if (!admitted) {
            return -1;
        }
        Object value = metric.metricValue();
        if (!(value instanceof Number)) {
            return -1;
        }
        double figure = ((Number) value).doubleValue();
        return Double.isNaN(figure) || Double.isInfinite(figure) || figure < 0 ? -1 : (long) figure;
    }
}
