package io.streamsmemory.operator.reconcile.act;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.observe.WorkloadObservations;
import io.streamsmemory.operator.workload.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every metric, and every {@code part} of one, that the Grafana dashboard and the PrometheusRule in
 * deploy/monitoring/ use is one the operator exports, as Prometheus scrapes it.
 */
class MonitoringRulesTest {
    private static final Path MONITORING = Path.of("../../deploy/monitoring");
    private static final Pattern METRIC = Pattern.compile("streamsmemory_[a-z_]+");
    private static final Pattern PART = Pattern.compile("part=\\\\?\"([a-z-]+)\\\\?\"");

    @Test
    void theDashboardAndTheAlertsUseOnlyExportedMetrics() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Allocation allocation = Fixtures.smallAllocation(ByteSize.GiB);
        Workload workload = Workload.of(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("orders")
                        .withNamespace("shop")
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(2)
                        .endSpec()
                        .build())
                .orElseThrow();
        MemoryVerdict verdict = MemoryVerdict.of(
                allocation, WorkloadObservations.reporting(300 * MiB, 400 * MiB), Duration.ofHours(24));
        new AllocationMetrics(registry).recordWorkload(workload, allocation, verdict);
        String scrape = registry.scrape();

        for (String file : new String[] {"grafana-dashboard.json", "prometheusrule.yaml"}) {
            String text = Files.readString(MONITORING.resolve(file));
            Set<String> metrics = matches(METRIC, text);
            assertThat(metrics).as(file).isNotEmpty();
            for (String metric : metrics) {
                assertThat(scrape).as("%s uses %s", file, metric).containsPattern("(?m)^" + metric + "\\{");
            }
            for (String part : matches(PART, text)) {
                assertThat(scrape).as("%s uses part %s", file, part).contains("part=\"" + part + "\"");
            }
        }
    }

    private static Set<String> matches(Pattern pattern, String text) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.groupCount() > 0 ? matcher.group(1) : matcher.group());
        }
        return found;
    }
}
