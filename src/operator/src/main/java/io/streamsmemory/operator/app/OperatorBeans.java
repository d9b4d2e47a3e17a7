package io.streamsmemory.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.streamsmemory.operator.reconcile.AllocationMetrics;
import io.streamsmemory.operator.reconcile.EventRecorder;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

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

    @Produces
    @Singleton
    AllocationMetrics allocationMetrics(MeterRegistry registry) {
        return new AllocationMetrics(registry);
    }
}
