package io.streamsmemory.operator.reconcile.decide;

import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicyStatus;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.observe.WorkloadObservation;
import io.streamsmemory.operator.plan.WorkloadPlanner;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.WebhookReach;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The outcomes of reconciling many workloads under one policy, every field of every row filled as a real reconcile
 * fills it, with names close to Kubernetes' limit: one in 100 failed; 40 in 100 need a look (warnings, drift, a
 * pending restart, memory pressure and a topology mismatch); the others are clean (observed, within memory).
 */
final class ManyWorkloads {
    /** An object name (DNS subdomain) may have 253 characters; these have 240 and end in their index. */
    static final int NAME_LENGTH = 240;

    final StreamsMemoryPolicy policy;
    final Allocation allocation;
    final List<WorkloadOutcome> outcomes;

    ManyWorkloads(String namespace, int count) {
        policy = Fixtures.policy(namespace, "orders", "2Gi");
        AllocationResult result = new AllocationEngine().allocate(WorkloadPlanner.policyFacts(policy.getSpec()));
        allocation = result.allocation();
        outcomes = IntStream.range(0, count).mapToObj(this::outcome).toList();
    }

    static boolean failed(int index) {
        return index % 100 == 0;
    }

    static boolean needsLook(int index) {
        return index % 100 >= 1 && index % 100 <= 40;
    }

    static String kind(int index) {
        return index % 5 == 4 ? "StatefulSet" : "Deployment";
    }

    static String name(int index) {
        String suffix = String.format("-%05d", index);
        return "orders-enrichment-kafka-streams-".repeat(8).substring(0, NAME_LENGTH - suffix.length()) + suffix;
    }

    /** The drifted pods of workload {@code index} (its podsNotInjected plus podsOutdated). */
    static int driftedPods(int index) {
        return needsLook(index) ? 3 : 0;
    }

    private WorkloadOutcome outcome(int index) {
        String kind = kind(index);
        String name = name(index);
        WorkloadAllocationStatus row = row(kind, name);
        List<String> warnings = new ArrayList<>();
        if (failed(index)) {
            String message = "the pod memory 2 GiB cannot hold the floors: 24 task(s) x 3 store(s) need 2.4 GiB of "
                    + "RocksDB memtables and block cache at least; raise spec.memory to 2.9 GiB or add replicas";
            row.setMessage(message);
            row.setRestartPending(false);
            return new WorkloadOutcome(
                    row, null, "AllocationFailed", kind + " " + name + ": " + message, warnings, null, null);
        }
        fillAllocation(row);
        boolean look = needsLook(index);
        if (look) {
            warnings.add(kind + " " + name + ": runs at 1 replicas, outside the range 2-6 (spec.scaling) its JVM "
                    + "flags and RocksDB settings are planned for; planned for 1-6 instead");
            warnings.add(kind + " " + name + ": the container memory limit 1536Mi is below the policy's 2Gi; the "
                    + "split divides the limit");
        }
        row.setRestartPending(look);
        row.setPods(6);
        row.setPodsInjected(look ? 3 : 6);
        row.setPodsNotInjected(look ? 2 : 0);
        row.setPodsOutdated(look ? 1 : 0);
        row.setPodsSkipped(0);
        long memory = allocation.memoryBytes();
        WorkloadObservation seen = new WorkloadObservation(
                6,
                look ? 1 : 0,
                look ? memory * 97 / 100 : memory / 2,
                look ? memory * 98 / 100 : memory * 6 / 10,
                700L << 20,
                300L << 20,
                look ? 400L : 60L,
                8L,
                0L,
                look ? 8L : 4L,
                look ? 2L : 0L,
                90L << 20,
                look ? 24_000L : 6_000L,
                look ? 95L << 20 : 40L << 20,
                150L << 20,
                "plan",
                look ? "a pod's metaspace uses 97.0 MiB of its 97.0 MiB cap (100%): OutOfMemoryError: Metaspace" : null,
                null,
                null,
                null);
        MemoryVerdict verdict = MemoryVerdict.of(allocation, seen, Duration.ofHours(24));
        WorkloadRows.showVerdict(row, verdict);
        return new WorkloadOutcome(row, WorkloadOutcome.Parts.of(allocation), null, null, warnings, null, verdict);
    }

    private static WorkloadAllocationStatus row(String kind, String name) {
        WorkloadAllocationStatus row = new WorkloadAllocationStatus();
        row.setKind(kind);
        row.setName(name);
        row.setReplicas(3);
        row.setConfigMap(AllocationConfigMap.configMapName(kind, name));
        row.setThreads(4);
        row.setMemory("2 GiB");
        row.setReplicaRange("1-6");
        row.setReplicaRangeSource("HorizontalPodAutoscaler " + name);
        return row;
    }

    private void fillAllocation(WorkloadAllocationStatus row) {
        WorkloadRows.showAllocation(row, allocation);
    }

    /** The status a reconcile of these workloads builds, listing at most {@code maxRows}. */
    StreamsMemoryPolicyStatus status(StreamsMemoryPolicy current, int maxRows) {
        return new PolicyStatusBuilder(current, maxRows)
                .reconciled(
                        outcomes,
                        WorkloadOutcome.Parts.of(allocation),
                        PolicyStatusBuilder.failure(outcomes, null),
                        current.getMetadata().getName(),
                        WebhookReach.NOT_CHECKED);
    }
}
