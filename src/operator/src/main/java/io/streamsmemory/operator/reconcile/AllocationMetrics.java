package io.streamsmemory.operator.reconcile;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.Part;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.observe.WorkloadObservation;
import io.streamsmemory.operator.workload.Workload;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prometheus gauges of what the operator manages: workloads per policy and every top-level part of
 * each workload's allocation ({@code streamsmemory_allocation_bytes{namespace,workload,part}}).
 * Reconcile counts, errors and durations come from java-operator-sdk's own Micrometer support.
 */
public class AllocationMetrics {
    private final MeterRegistry registry;
    private final Map<Tags, AtomicLong> values = new ConcurrentHashMap<>();

    public AllocationMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void recordPolicy(StreamsMemoryPolicy policy, List<WorkloadAllocationStatus> workloads) {
        workloadsManaged(policy).set(workloads.size());
    }

    /** The planned parts and, when its pods reported, what the busiest of them really uses next to them. */
    void recordWorkload(Workload workload, Allocation allocation, MemoryVerdict verdict) {
        Tags workloadTags = Tags.of("namespace", workload.namespace(), "workload", workload.name());
        for (Part part : allocation.parts()) {
            gauge(
                            "streamsmemory.allocation.bytes",
                            "Bytes of one allocation part of a workload's pods",
                            workloadTags.and("part", part.name()))
                    .set(part.bytes());
        }
        gauge(
                        "streamsmemory.pod.memory.bytes",
                        "The memory of one of the workload's pods (the plan's total)",
                        workloadTags)
                .set(allocation.memoryBytes());
        if (verdict == null) {
            return;
        }
        WorkloadObservation seen = verdict.seen();
        observed(workloadTags, "memory-peak", seen.peakBytes());
        observed(workloadTags, "memory-now", seen.usedBytes());
        observed(workloadTags, "heap-used", seen.heapUsedBytes());
        observed(workloadTags, "rocksdb-block-cache-usage", seen.blockCacheUsageBytes());
        observed(workloadTags, "unexplained", seen.unexplainedBytes());
        gauge(
                        "streamsmemory.observed.pods",
                        "Pods of the workload by whether their memory report was read",
                        workloadTags.and("state", "reporting"))
                .set(seen.podsReporting());
        gauge(
                        "streamsmemory.observed.pods",
                        "Pods of the workload by whether their memory report was read",
                        workloadTags.and("state", "not-answering"))
                .set(seen.podsNotAnswering());
        gauge(
                        "streamsmemory.observed.oom.kills",
                        "OOM kills of the workload's pods over the observation window (kubelet's container statuses"
                                + " and the pods' cgroups)",
                        workloadTags)
                .set(seen.oomKills() == null ? 0 : seen.oomKills());
    }

    private void observed(Tags workloadTags, String part, Long bytes) {
        if (bytes != null) {
            gauge(
                            "streamsmemory.observed.bytes",
                            "What the busiest pod of a workload really uses, by part (from "
                                    + "the agents' memory reports)",
                            workloadTags.and("part", part))
                    .set(bytes);
        }
    }

    void forget(String namespace, String workload) {
        values.forEach((tags, value) -> {
            if (tags.stream()
                            .anyMatch(t -> t.getKey().equals("workload")
                                    && t.getValue().equals(workload))
                    && tags.stream()
                            .anyMatch(t -> t.getKey().equals("namespace")
                                    && t.getValue().equals(namespace))) {
                value.set(0);
            }
        });
    }

    void forgetPolicy(StreamsMemoryPolicy policy) {
        workloadsManaged(policy).set(0);
    }

    private AtomicLong workloadsManaged(StreamsMemoryPolicy policy) {
        return gauge(
                "streamsmemory.workloads.managed",
                "Workloads that name the policy",
                Tags.of(
                        "namespace",
                        policy.getMetadata().getNamespace(),
                        "policy",
                        policy.getMetadata().getName()));
    }

    private AtomicLong gauge(String name, String description, Tags tags) {
        return values.computeIfAbsent(tags.and("metric", name), key -> {
            AtomicLong value = new AtomicLong();
            Gauge.builder(name, value, AtomicLong::get)
                    .description(description)
                    .tags(tags)
                    .register(registry);
            return value;
        });
    }
}
