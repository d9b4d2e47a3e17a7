package io.streamsmemory.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.junit.jupiter.api.Test;

/**
 * What the application gets done, from Kafka's own metrics: the stream threads' {@code process-total} summed, the main
 * consumers' client-level {@code records-lag-max}, and no state store's metric evaluated on the way.
 */
class ProgressMetricsTest {
    @Test
    void processedRecordsAreTheThreadsCountsSummedAndNoStoreMetricIsEvaluated() {
        AtomicInteger storeEvaluations = new AtomicInteger();
        try (Metrics registry = new Metrics()) {
            for (String thread : new String[] {"t1", "t2"}) {
                registry.sensor("process-" + thread)
                        .add(
                                registry.metricName(
                                        ProgressMetrics.PROCESS_TOTAL,
                                        ProgressMetrics.THREAD_GROUP,
                                        Map.of("thread-id", thread)),
                                new CumulativeCount());
            }
            for (int i = 0; i < 7; i++) {
                registry.getSensor("process-t1").record();
            }
            registry.getSensor("process-t2").record();
            registry.addMetric(
                    registry.metricName(
                            "cur-size-all-mem-tables",
                            StoreMetrics.STATE_GROUP,
                            Map.of("thread-id", "t1", "task-id", "0_0", "rocksdb-state-id", "counts")),
                    (Gauge<Long>) (config, now) -> {
                        storeEvaluations.incrementAndGet();
                        throw new IllegalStateException("the store's RocksDB handle was freed");
                    });

            assertThat(ProgressMetrics.processed(registry)).isEqualTo(8);
            assertThat(storeEvaluations).hasValue(0);
        }
        try (Metrics empty = new Metrics()) {
            assertThat(ProgressMetrics.processed(empty)).isEqualTo(-1);
        }
    }

    @Test
    void theLagIsTheMainConsumersClientLevelRecordsLagMax() {
        try (Metrics registry = new Metrics()) {
            gauge(registry, Map.of("client-id", "app-StreamThread-1-consumer"), 1200.0);
            gauge(registry, Map.of("client-id", "app-StreamThread-2-consumer"), 300.0);
            // A partition's lag is in the client's maximum already; the restore consumer's is the restoration's.
            gauge(registry, Map.of("client-id", "app-StreamThread-1-consumer", "topic", "in", "partition", "0"), 9e9);
            gauge(registry, Map.of("client-id", "app-StreamThread-1-restore-consumer"), 9e9);
            assertThat(ProgressMetrics.lagMax(registry.metrics())).isEqualTo(1200);
        }
        try (Metrics noFetchYet = new Metrics()) {
            gauge(noFetchYet, Map.of("client-id", "app-StreamThread-1-consumer"), Double.NaN);
            assertThat(ProgressMetrics.lagMax(noFetchYet.metrics())).isEqualTo(-1);
        }
    }

    @Test
    void noOtherMetricIsEvaluated() {
        AtomicInteger evaluations = new AtomicInteger();
        try (Metrics registry = new Metrics()) {
            for (String[] groupAndName : new String[][] {
                {StoreMetrics.STATE_GROUP, ProgressMetrics.PROCESS_TOTAL},
                {ProgressMetrics.THREAD_GROUP, "process-rate"},
                {ProgressMetrics.FETCH_GROUP, "records-lag"}
            }) {
                org.apache.kafka.common.MetricName name =
                        registry.metricName(groupAndName[1], groupAndName[0], Map.of("client-id", "c"));
                registry.addMetric(name, (Gauge<Double>) (config, now) -> {
                    evaluations.incrementAndGet();
                    return 1.0;
                });
                assertThat(ProgressMetrics.valueOf(name, registry.metric(name))).isEqualTo(-1);
            }
            assertThat(evaluations).hasValue(0);
        }
    }

    private static void gauge(Metrics registry, Map<String, String> tags, double value) {
        registry.addMetric(
                registry.metricName(ProgressMetrics.LAG_MAX, ProgressMetrics.FETCH_GROUP, tags),
                (Gauge<Double>) (config, now) -> value);
    }
}
