package io.streamsmemory.operator.plan;

import io.fabric8.kubernetes.api.model.Container;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.Overrides;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.api.OverridesSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.observe.ObservedTopology;
import io.streamsmemory.operator.workload.MemoryLimit;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a policy and one of its workloads into the engine's facts: the workload's replicas, its
 * thread annotation and its container's memory limit refine what the policy says, and what the workload's pods
 * report fills in the topology the policy leaves out ({@link LearnedFacts}).
 */
public final class WorkloadPlanner {

    /**
     * The facts for one workload, what the user should hear about how they were read, and where each topology fact
     * came from (declared, observed, default).
     */
    public record Plan(WorkloadFacts facts, List<String> warnings, LearnedFacts topology) {}

    /**
     * The facts the policy alone gives, for one pod running every task (replicas = 1), with the provisional defaults
     * for what it leaves to the pods.
     *
     * @throws IllegalArgumentException naming the field when the spec cannot be read
     */
    public static WorkloadFacts policyFacts(StreamsMemoryPolicySpec spec) {
        return facts(spec, Optional.empty(), Optional.empty(), Map.of()).facts();
    }

    /**
     * The policy's facts, the workload's threads annotation and what its pods reported.
     *
     * @throws IllegalArgumentException naming the field when the spec cannot be read
     */
    private static Plan facts(
            StreamsMemoryPolicySpec spec,
            Optional<Integer> threadsAnnotation,
            Optional<ObservedTopology> seen,
            Map<String, Integer> learnedBefore) {
        if (spec == null) {
            throw new IllegalArgumentException("spec is required");
        }
        StreamsSpec streams = spec.getStreams() == null ? new StreamsSpec() : spec.getStreams();
        WorkloadFacts.Builder builder = WorkloadFacts.builder()
                .memoryBytes(positiveQuantity("spec.memory", spec.getMemory()))
                .replicas(1)
                .globalStores(orDefault(streams.getGlobalStores(), 0))
                .transactionalStateStores(Boolean.TRUE.equals(streams.getTransactionalStateStores()))
                .overrides(overrides(spec.getOverrides()));
        if (streams.getRecordSize() != null) {
            long recordBytes = positiveQuantity("spec.streams.recordSize", streams.getRecordSize());
            if (recordBytes > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("spec.streams.recordSize is too large");
            }
            builder.recordBytes((int) recordBytes);
        }
        if (spec.getJvm() != null && spec.getJvm().getExtraDirectMemory() != null) {
            builder.extraDirectMemoryBytes(
                    quantity("spec.jvm.extraDirectMemory", spec.getJvm().getExtraDirectMemory()));
        }
        LearnedFacts topology =
                LearnedFacts.apply(spec.getStreams(), spec.getJvm(), threadsAnnotation, seen, learnedBefore, builder);
        WorkloadFacts facts = builder.build();
        List<String> problems = facts.validate();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return new Plan(facts, new ArrayList<>(), topology);
    }

    /**
     * The policy's facts refined by the workload and what its pods reported (the largest topology over the
     * observation window, empty before any report, never below {@code learnedBefore}, what the published plan had
     * learned), planned for {@code range}.
     */
    public static Plan plan(
            StreamsMemoryPolicySpec spec,
            Workload workload,
            PlannedRange range,
            Optional<ObservedTopology> seen,
            Map<String, Integer> learnedBefore) {
        List<String> warnings = new ArrayList<>();
        Optional<Integer> threadsAnnotation = Optional.empty();
        String threads = workload.annotations().get(MetadataKeys.STREAM_THREADS);
        if (threads != null) {
            Optional<Integer> parsed = positiveInt(threads);
            if (parsed.isPresent() && parsed.get() <= StreamsSpec.MAX_THREADS) {
                threadsAnnotation = parsed;
            } else {
                warnings.add(String.format(
                        "annotation %s=\"%s\" is not a thread count between 1 and %d; using the " + "policy's threads",
                        MetadataKeys.STREAM_THREADS, threads, StreamsSpec.MAX_THREADS));
            }
        }
        Plan policy = facts(spec, threadsAnnotation, seen, learnedBefore);
        WorkloadFacts facts = policy.facts();
        WorkloadFacts.Builder builder =
                facts.toBuilder().replicas(workload.replicas()).replicaRange(range.planned());

        Optional<Container> container = targetContainer(workload, warnings);
        Optional<Long> limit = container
                .map(Container::getResources)
                .map(resources -> resources.getLimits() == null
                        ? null
                        : resources.getLimits().get("memory"))
                .flatMap(MemoryLimit::bytes);
        if (limit.isPresent() && limit.get() < 1) {
            // Nothing to split: the workload's row says so (a plan of 0 bytes used to reach the engine; found by
            // PolicyQuantitiesFuzzTest), and nothing is published for it.
            throw new IllegalArgumentException(String.format(
                    "container %s: its memory limit %s leaves nothing to split",
                    container.get().getName(),
                    container.get().getResources().getLimits().get("memory")));
        }
        if (limit.isPresent() && limit.get() < facts.memoryBytes()) {
            warnings.add(String.format(
                    "container %s has a memory limit of %s, below the policy's %s; splitting the " + "limit",
                    container.get().getName(), ByteSize.format(limit.get()), ByteSize.format(facts.memoryBytes())));
            builder.memoryBytes(limit.get());
        }
        return new Plan(builder.build(), warnings, policy.topology());
    }

    /** The container named by the annotation, else the first; a bad name is a warning. */
    public static Optional<Container> targetContainer(Workload workload, List<String> warnings) {
        if (workload.template() == null
                || workload.template().getSpec() == null
                || workload.template().getSpec().getContainers() == null
                || workload.template().getSpec().getContainers().isEmpty()) {
            return Optional.empty();
        }
        List<Container> containers = workload.template().getSpec().getContainers();
        String wanted = workload.annotations().get(MetadataKeys.CONTAINER);
        if (wanted != null) {
            Optional<Container> named =
                    containers.stream().filter(c -> wanted.equals(c.getName())).findFirst();
            if (named.isPresent()) {
                return named;
            }
            warnings.add(String.format(
                    "annotation %s=\"%s\" names no container of the pod template; using the first " + "container, %s",
                    MetadataKeys.CONTAINER, wanted, containers.get(0).getName()));
        }
        return Optional.of(containers.get(0));
    }

    private static Overrides overrides(OverridesSpec spec) {
        if (spec == null) {
            return Overrides.NONE;
        }
        return new Overrides(
                spec.getHeap() == null ? null : positiveQuantity("spec.overrides.heap", spec.getHeap()),
                spec.getRocksDbFraction(),
                spec.getRecordCacheFraction(),
                spec.getStrictCacheLimit(),
                spec.getHighPriorityPoolRatio(),
                spec.getWriteBufferFraction());
    }

    /** A quantity the engine requires positive: "0" fails here, naming the field, not in the engine's words. */
    private static long positiveQuantity(String field, String value) {
        long bytes = quantity(field, value);
        if (bytes < 1) {
            throw new IllegalArgumentException(field + ": '" + value + "' is not a positive quantity");
        }
        return bytes;
    }

    static long quantity(String field, String value) {
        try {
            return ByteSize.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": " + e.getMessage(), e);
        }
    }

    private static Optional<Integer> positiveInt(String text) {
        try {
            int value = Integer.parseInt(text.trim());
            return value > 0 ? Optional.of(value) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static int orDefault(Integer value, int fallback) {
        return value == null ? fallback : value;
    }
}
