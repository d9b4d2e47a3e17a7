package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.Overrides;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.OverridesSpec;
import io.streamsmemory.operator.api.StoresSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.api.StreamsSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns a policy and one of its workloads into the engine's facts: the workload's replicas, its
 * thread annotation and its container's memory limit refine what the policy says.
 */
public final class WorkloadPlanner {
    /** The facts for one workload, and what the user should hear about how they were read. */
    public record Plan(WorkloadFacts facts, List<String> warnings) {}

    /**
     * The facts the policy alone gives, for one pod running every task (replicas = 1).
     *
     * @throws IllegalArgumentException naming the field when the spec cannot be read
     */
    public static WorkloadFacts policyFacts(StreamsMemoryPolicySpec spec) {
        if (spec == null || spec.getStreams() == null) {
            throw new IllegalArgumentException("spec.streams is required");
        }
        StreamsSpec streams = spec.getStreams();
        StoresSpec stores = streams.getStores() == null ? new StoresSpec() : streams.getStores();
        WorkloadFacts.Builder builder = WorkloadFacts.builder()
                .memoryBytes(quantity("spec.memory", spec.getMemory()))
                .streamThreads(orDefault(streams.getThreads(), 1))
                .instancesPerPod(orDefault(streams.getInstancesPerPod(), 1))
                .replicas(1)
                .standbyReplicas(orDefault(streams.getStandbyReplicas(), 0))
                .stores(new StoreCounts(
                        orDefault(stores.getKeyValue(), 0),
                        orDefault(stores.getWindow(), 0),
                        orDefault(stores.getSession(), 0)))
                .globalStores(orDefault(streams.getGlobalStores(), 0))
                .transactionalStateStores(Boolean.TRUE.equals(streams.getTransactionalStateStores()))
                .overrides(overrides(spec.getOverrides()));
        if (streams.getRecordSize() != null) {
            long recordBytes = quantity("spec.streams.recordSize", streams.getRecordSize());
            if (recordBytes > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("spec.streams.recordSize is too large");
            }
            builder.recordBytes((int) recordBytes);
        }
        if (streams.getKafkaStreamsVersion() != null) {
            builder.kafkaStreamsVersion(streams.getKafkaStreamsVersion());
        }
        jvm(spec.getJvm(), builder);
        if (streams.getPartitions() != null) {
            builder.partitions(streams.getPartitions());
        }
        if (streams.getTasksPerPod() != null) {
            builder.tasksPerPod(streams.getTasksPerPod());
        }
        WorkloadFacts facts = builder.build();
        List<String> problems = facts.validate();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return facts;
    }

    /** The policy's facts refined by the workload, planned for {@code range}. */
    public static Plan plan(StreamsMemoryPolicySpec spec, Workload workload, PlannedRange range) {
        WorkloadFacts facts = policyFacts(spec);
        List<String> warnings = new ArrayList<>();
        WorkloadFacts.Builder builder =
                facts.toBuilder().replicas(workload.replicas()).replicaRange(range.planned());

        String threads = workload.annotations().get(MetadataKeys.STREAM_THREADS);
        if (threads != null) {
            Optional<Integer> parsed = positiveInt(threads);
            if (parsed.isPresent() && parsed.get() <= StreamsSpec.MAX_THREADS) {
                builder.streamThreads(parsed.get());
            } else {
                warnings.add(String.format(
                        "annotation %s=\"%s\" is not a thread count between 1 and %d; using the "
                                + "policy's %d threads",
                        MetadataKeys.STREAM_THREADS, threads, StreamsSpec.MAX_THREADS, facts.streamThreads()));
            }
        }

        Optional<Container> container = targetContainer(workload, warnings);
        Optional<Long> limit = container
                .map(Container::getResources)
                .map(resources -> resources.getLimits() == null
                        ? null
                        : resources.getLimits().get("memory"))
                .map(q -> Quantity.getAmountInBytes(q).longValue());
        if (limit.isPresent() && limit.get() < facts.memoryBytes()) {
            warnings.add(String.format(
                    "container %s has a memory limit of %s, below the policy's %s; splitting the " + "limit",
                    container.get().getName(), ByteSize.format(limit.get()), ByteSize.format(facts.memoryBytes())));
            builder.memoryBytes(limit.get());
        }
        return new Plan(builder.build(), warnings);
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

    /** {@code spec.jvm}: what is unset keeps the engine's default. */
    private static void jvm(JvmSpec jvm, WorkloadFacts.Builder builder) {
        if (jvm == null) {
            return;
        }
        if (jvm.getLoadedClasses() != null) {
            builder.loadedClasses(jvm.getLoadedClasses());
        }
        if (jvm.getExtraDirectMemory() != null) {
            builder.extraDirectMemoryBytes(quantity("spec.jvm.extraDirectMemory", jvm.getExtraDirectMemory()));
        }
    }

    private static Overrides overrides(OverridesSpec spec) {
        if (spec == null) {
            return Overrides.NONE;
        }
        return new Overrides(
                spec.getHeap() == null ? null : quantity("spec.overrides.heap", spec.getHeap()),
                spec.getRocksDbFraction(),
                spec.getRecordCacheFraction(),
                spec.getStrictCacheLimit(),
                spec.getHighPriorityPoolRatio());
    }

    private static long quantity(String field, String value) {
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
