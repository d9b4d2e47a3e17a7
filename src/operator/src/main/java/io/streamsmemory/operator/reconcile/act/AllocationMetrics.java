package io.streamsmemory.operator.reconcile.act;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.prometheus.client.Collector;
import io.prometheus.client.Collector.MetricFamilySamples;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.Part;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.observe.WorkloadObservation;
import io.streamsmemory.operator.workload.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prometheus gauges of what the operator manages: workloads per policy, every top-level part of each workload's
 * allocation ({@code streamsmemory_allocation_bytes{namespace,workload,part}}) and what its pods report. Reconcile
 * counts, errors and durations come from java-operator-sdk's own Micrometer support.
 *
 * <p>The per-workload series are one {@link Collector} over a map of small records, read at each scrape, not a
 * Micrometer gauge per series: at 5,000 workloads the 30,000 gauges (each registered in Quarkus' composite registry
 * and again in the Prometheus one) held about 20 MiB of the operator's heap. A workload that opts out or is deleted
 * loses its series.
 */
public class AllocationMetrics {
    static final String ALLOCATION_BYTES = "streamsmemory_allocation_bytes";
    static final String POD_MEMORY_BYTES = "streamsmemory_pod_memory_bytes";
    static final String OBSERVED_BYTES = "streamsmemory_observed_bytes";
    static final String OBSERVED_PODS = "streamsmemory_observed_pods";
    static final String OBSERVED_OOM_KILLS = "streamsmemory_observed_oom_kills";

    private final PrometheusMeterRegistry registry;
    private final Map<String, AtomicLong> managed = new ConcurrentHashMap<>();
    /** "namespace/workload" -> its figures, replaced whole at each reconcile. */
    private final Map<String, WorkloadFigures> workloads = new ConcurrentHashMap<>();

    public AllocationMetrics(PrometheusMeterRegistry registry) {
        this.registry = registry;
        new WorkloadCollector().register(registry.getPrometheusRegistry());
    }

    public void recordPolicy(StreamsMemoryPolicy policy, List<WorkloadAllocationStatus> rows) {
        workloadsManaged(policy).set(rows.size());
    }

    /** The planned parts and, when its pods reported, what the busiest of them really uses next to them. */
    void recordWorkload(Workload workload, Allocation allocation, MemoryVerdict verdict) {
        Map<String, Long> parts = new LinkedHashMap<>();
        for (Part part : allocation.parts()) {
            parts.put(part.name(), part.bytes());
        }
        workloads.put(
                key(workload.namespace(), workload.name()),
                new WorkloadFigures(
                        workload.namespace(),
                        workload.name(),
                        Map.copyOf(parts),
                        allocation.memoryBytes(),
                        verdict == null ? null : verdict.seen()));
    }

    public void forget(String namespace, String workload) {
        workloads.remove(key(namespace, workload));
    }

    public void forgetPolicy(StreamsMemoryPolicy policy) {
        workloadsManaged(policy).set(0);
    }

    private AtomicLong workloadsManaged(StreamsMemoryPolicy policy) {
        String namespace = policy.getMetadata().getNamespace();
        String name = policy.getMetadata().getName();
        return managed.computeIfAbsent(key(namespace, name), key -> {
            AtomicLong value = new AtomicLong();
            Gauge.builder("streamsmemory.workloads.managed", value, AtomicLong::get)
                    .description("Workloads that name the policy")
                    .tags(Tags.of("namespace", namespace, "policy", name))
                    .register(registry);
            return value;
        });
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    /** One workload's series: its plan's parts, and what its pods reported (null before any report). */
    private record WorkloadFigures(
            String namespace,
            String workload,
            Map<String, Long> parts,
            long podMemoryBytes,
            WorkloadObservation seen) {}

    /** The per-workload families, built from {@link #workloads} at each scrape. */
    private final class WorkloadCollector extends Collector {
        @Override
        public List<MetricFamilySamples> collect() {
            Family allocation = new Family(ALLOCATION_BYTES, "Bytes of one allocation part of a workload's pods");
            Family podMemory =
                    new Family(POD_MEMORY_BYTES, "The memory of one of the workload's pods (the plan's total)");
            Family observed = new Family(
                    OBSERVED_BYTES,
                    "What the busiest pod of a workload really uses, by part (from the agents' memory reports)");
            Family pods = new Family(OBSERVED_PODS, "Pods of the workload by whether their memory report was read");
            Family oomKills = new Family(
                    OBSERVED_OOM_KILLS,
                    "OOM kills of the workload's pods over the observation window (kubelet's container statuses and"
                            + " the pods' cgroups)");
            for (WorkloadFigures w : workloads.values()) {
                w.parts().forEach((part, bytes) -> allocation.add(w, "part", part, bytes));
                podMemory.add(w, null, null, w.podMemoryBytes());
                WorkloadObservation seen = w.seen();
                if (seen == null) {
                    continue;
                }
                observed.addIfKnown(w, "memory-peak", seen.peakBytes());
                observed.addIfKnown(w, "memory-now", seen.usedBytes());
                observed.addIfKnown(w, "heap-used", seen.heapUsedBytes());
                observed.addIfKnown(w, "rocksdb-block-cache-usage", seen.blockCacheUsageBytes());
                observed.addIfKnown(w, "unexplained", seen.unexplainedBytes());
                pods.add(w, "state", "reporting", seen.podsReporting());
                pods.add(w, "state", "not-answering", seen.podsNotAnswering());
                oomKills.add(w, null, null, seen.oomKills() == null ? 0 : seen.oomKills());
            }
            return List.of(
                    allocation.family(), podMemory.family(), observed.family(), pods.family(), oomKills.family());
        }
    }

    /**
     * The samples of one gauge family, labelled by namespace and workload and at most one more label, in the order
     * Micrometer wrote them (by name), so a scrape reads as it did.
     */
    private record Family(String name, String help, List<MetricFamilySamples.Sample> collected) {
        Family(String name, String help) {
            this(name, help, new ArrayList<>());
        }

        void addIfKnown(WorkloadFigures w, String part, Long value) {
            if (value != null) {
                add(w, "part", part, value);
            }
        }

        void add(WorkloadFigures w, String label, String value, double sample) {
            collected.add(
                    label == null
                            ? new MetricFamilySamples.Sample(
                                    name,
                                    List.of("namespace", "workload"),
                                    List.of(w.namespace(), w.workload()),
                                    sample)
                            : new MetricFamilySamples.Sample(
                                    name,
                                    List.of("namespace", label, "workload"),
                                    List.of(w.namespace(), value, w.workload()),
                                    sample));
        }

        MetricFamilySamples family() {
            return new MetricFamilySamples(name, Collector.Type.GAUGE, help, collected);
        }
    }
}
