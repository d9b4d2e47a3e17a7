package io.streamsmemory.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.streamsmemory.operator.observe.MemoryObserver;
import io.streamsmemory.operator.observe.ObserveSettings;
import io.streamsmemory.operator.reconcile.StatusSettings;
import io.streamsmemory.operator.reconcile.act.AllocationMetrics;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.WorkloadCache;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Wires the plain-Java reconcile classes into Quarkus; the reconcilers themselves know nothing of CDI. */
@Singleton
public class OperatorBeans {
    @Produces
    @Singleton
    EventRecorder eventRecorder(KubernetesClient client) {
        return new EventRecorder(client);
    }

    void closeEventRecorder(@Disposes EventRecorder recorder) {
        recorder.close();
    }

    /** The one cache of workloads and published ConfigMaps, read by the reconciler and the webhook alike. */
    @Produces
    @Singleton
    WorkloadCache workloadCache(KubernetesClient client) {
        return new WorkloadCache(client);
    }

    void closeWorkloadCache(@Disposes WorkloadCache cache) {
        cache.close();
    }

    /**
     * The rate limit of operator-initiated rollouts per workload: with an autoscaler in the loop, a restart per scale
     * step would feed the load that made it scale.
     */
    @Produces
    @Singleton
    RolloutGate rolloutGate(
            @ConfigProperty(name = "streamsmemory.rollout.min-interval", defaultValue = "PT10M") Duration minInterval,
            @ConfigProperty(name = "streamsmemory.rollout.model-upgrade-interval", defaultValue = "PT1M")
                    Duration modelUpgradeInterval) {
        return new RolloutGate(minInterval, modelUpgradeInterval);
    }

    /** Reads the injected pods' memory reports (streamsmemory.observe.* in application.properties). */
    @Produces
    @Singleton
    MemoryObserver memoryObserver(
            KubernetesClient client,
            @ConfigProperty(name = "streamsmemory.observe.interval", defaultValue = "PT30S") Duration interval,
            @ConfigProperty(name = "streamsmemory.observe.timeout", defaultValue = "PT2S") Duration timeout,
            @ConfigProperty(name = "streamsmemory.observe.concurrency", defaultValue = "8") int concurrency,
            @ConfigProperty(name = "streamsmemory.observe.window", defaultValue = "PT24H") Duration window,
            @ConfigProperty(name = "streamsmemory.observe.settle", defaultValue = "PT10M") Duration settle) {
        return new MemoryObserver(client, new ObserveSettings(interval, timeout, concurrency, window, settle));
    }

    void closeMemoryObserver(@Disposes MemoryObserver observer) {
        observer.close();
    }

    /** How many workload rows a policy's status lists (streamsmemory.status.* in application.properties). */
    @Produces
    @Singleton
    StatusSettings statusSettings(
            @ConfigProperty(name = "streamsmemory.status.max-workload-rows", defaultValue = "100")
                    int maxWorkloadRows) {
        return new StatusSettings(maxWorkloadRows);
    }

    @Produces
    @Singleton
    AllocationMetrics allocationMetrics(PrometheusMeterRegistry registry) {
        return new AllocationMetrics(registry);
    }

    /**
     * java-operator-sdk's own metrics (operator_sdk_reconciliations_*, operator_sdk_events_*), per resource as the
     * extension makes them, but on the registry from the start. The extension's producer (a {@code MeterBinder}) hands
     * out the no-op metrics it holds until Micrometer binds it, and the operator keeps what it got for the life of the
     * process: a packaged operator's /q/metrics once had none of them, its reconciles done (.ci/run, 2026-12-07,
     * {@code OperatorAppIT}). Replaces the extension's {@code @DefaultBean}.
     */
    @Produces
    @Singleton
    Metrics operatorSdkMetrics(MeterRegistry registry) {
        return MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(registry)
                .build();
    }
}
