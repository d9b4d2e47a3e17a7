package io.streamsmemory.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.streamsmemory.operator.reconcile.AllocationMetrics;
import io.streamsmemory.operator.reconcile.EventRecorder;
import io.streamsmemory.operator.reconcile.RolloutGate;
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

    /**
     * The rate limit of operator-initiated rollouts per workload: with an autoscaler in the loop, a restart per scale
     * step would feed the load that made it scale.
     */
    @Produces
    @Singleton
    RolloutGate rolloutGate(@ConfigProperty(name = "streamsmemory.rollout.min-interval", defaultValue = "PT10M")
                            Duration minInterval) {
        return new RolloutGate(minInterval);
    }

    @Produces
    @Singleton
    AllocationMetrics allocationMetrics(MeterRegistry registry) {
        return new AllocationMetrics(registry);
    }
}
