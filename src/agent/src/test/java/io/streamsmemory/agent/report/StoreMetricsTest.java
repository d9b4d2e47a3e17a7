package io.streamsmemory.agent.report;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServerConnection;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;

/**
 * The report counts stores without evaluating any metric: Kafka Streams' RocksDB gauges read a native handle a stream
 * thread may be freeing (KAFKA-10025), which crashed an application whose agent's report read them.
 */
class StoreMetricsTest {
    /** A RocksDB gauge as Kafka Streams registers one (KIP-607), whose store was closed: evaluating it is a crash. */
    private static Gauge<Long> closedStoreGauge(AtomicInteger evaluations) {
        return (config, now) -> {
            evaluations.incrementAndGet();
            throw new IllegalStateException("the store's RocksDB handle was freed");
        };
    }

    @Test
    void storesAreCountedFromTheMetricsNamesAndNoMetricIsEvaluated() {
        AtomicInteger evaluations = new AtomicInteger();
        try (Metrics registry = new Metrics()) {
            for (String task : new String[] {"0_0", "0_1"}) {
                Map<String, String> store = Map.of("thread-id", "t1", "task-id", task, "rocksdb-state-id", "counts");
                for (String gauge : new String[] {"cur-size-all-mem-tables", "num-immutable-mem-table"}) {
                    registry.addMetric(
                            registry.metricName(gauge, StoreMetrics.STATE_GROUP, store), closedStoreGauge(evaluations));
                }
            }
            Map<String, String> heapStore = Map.of("thread-id", "t1", "task-id", "0_0", "in-memory-state-id", "cache");
            registry.addMetric(
                    registry.metricName("put-rate", StoreMetrics.STATE_GROUP, heapStore),
                    closedStoreGauge(evaluations));
            // Not a store's: a thread's metric in the same registry.
            registry.addMetric(
                    registry.metricName("process-rate", "stream-thread-metrics", Map.of("thread-id", "t1")),
                    closedStoreGauge(evaluations));

            Set<Map<String, String>> stores = new HashSet<>();
            StoreMetrics.read(registry, stores);

            assertThat(stores).hasSize(3);
            assertThat(evaluations).as("metrics evaluated").hasValue(0);
        }
    }

    /**
     * Nowhere in the agent: evaluating a Kafka metric ({@code metricValue()}, {@code value()}) or reading an MBean's
     * attribute (which evaluates Kafka Streams' gauges behind its JMX beans). One method alone is admitted:
     * {@link ProgressMetrics#valueOf}, which evaluates a stream thread's {@code process-total} or a consumer's
     * {@code records-lag-max} and nothing else (ProgressMetricsTest holds that).
     */
    @Test
    void noAgentCodeEvaluatesAKafkaMetricOrReadsAnMBeanAttribute() {
        noClasses()
                .should()
                .callMethodWhere(
                        new DescribedPredicate<JavaMethodCall>(
                                "the call evaluates a Kafka metric or reads an MBean attribute") {
                            @Override
                            public boolean test(JavaMethodCall call) {
                                String name = call.getTarget().getName();
                                var owner = call.getTarget().getOwner();
                                if (call.getOriginOwner().isEquivalentTo(ProgressMetrics.class)
                                        && call.getOrigin().getName().equals("valueOf")) {
                                    return false;
                                }
                                return owner.isAssignableTo(Metric.class)
                                                && (name.equals("metricValue") || name.equals("value"))
                                        || owner.isAssignableTo(MBeanServerConnection.class)
                                                && name.startsWith("getAttribute");
                            }
                        })
                .check(new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.streamsmemory.agent"));
    }
}
