package io.streamsmemory.operator.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.Part;
import io.streamsmemory.engine.ReplicaRange;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.fuzz.CpuBudget;
import io.streamsmemory.engine.fuzz.HostileJson;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.OverridesSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.plan.WorkloadPlanner;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Fuzz target: the policy's quantities ({@code spec.memory}, {@code spec.streams.recordSize},
 * {@code spec.jvm.extraDirectMemory}, {@code spec.overrides.heap}), the workload's annotations
 * ({@code streamsmemory.io/stream-threads}, {@code streamsmemory.io/container}) and its container's memory limit,
 * read by {@code WorkloadPlanner}. The only failure allowed is an IllegalArgumentException naming the field; a plan
 * that comes out must be for a memory that is what the user wrote (no silent overflow), and the engine's parts must
 * sum to it.
 *
 * <p>Corpus files ({@code fuzz/policy-quantities/}) hold one input each, {@code field=value} per line.
 */
class PolicyQuantitiesFuzzTest {
    /** A try's CPU time at most: {@link CpuBudget}, the thread's own, not the wall clock's. */
    private static final Duration PER_PLAN = Duration.ofSeconds(1);

    private static final String STREAM_THREADS = MetadataKeys.STREAM_THREADS;
    private static final String CONTAINER = MetadataKeys.CONTAINER;
    private final AllocationEngine engine = new AllocationEngine();

    /** One fuzzed input: null leaves a field unset. */
    record Input(
            String memory,
            String recordSize,
            String extraDirectMemory,
            String heap,
            String threads,
            String container,
            String limit) {
        static Input of(Map<String, String> fields) {
            return new Input(
                    fields.get("memory"),
                    fields.get("recordSize"),
                    fields.get("extraDirectMemory"),
                    fields.get("heap"),
                    fields.get("threads"),
                    fields.get("container"),
                    fields.get("limit"));
        }
    }

    @Example
    void theCorpusPlansOrFailsNamingTheField() {
        for (Path file : HostileJson.corpus("policy-quantities")) {
            Map<String, String> fields = new java.util.LinkedHashMap<>();
            for (String line : new String(HostileJson.bytes(file), StandardCharsets.UTF_8).split("\n")) {
                int equals = line.indexOf('=');
                if (equals > 0) {
                    fields.put(line.substring(0, equals), line.substring(equals + 1));
                }
            }
            planOrFailNamingTheField(Input.of(fields));
        }
    }

    @Property
    void anyQuantitiesAndAnnotations(
            @ForAll("quantities") String memory,
            @ForAll("optionalQuantities") String recordSize,
            @ForAll("optionalQuantities") String extraDirectMemory,
            @ForAll("optionalQuantities") String heap,
            @ForAll("annotations") String threads,
            @ForAll("annotations") String container,
            @ForAll("limits") String limit) {
        planOrFailNamingTheField(new Input(memory, recordSize, extraDirectMemory, heap, threads, container, limit));
    }

    @Property
    void policyFactsOfAnyMemory(@ForAll("quantities") String memory) {
        StreamsMemoryPolicySpec spec = spec(new Input(memory, null, null, null, null, null, null));
        try {
            WorkloadFacts facts = CpuBudget.within(PER_PLAN, () -> WorkloadPlanner.policyFacts(spec));
            // fabric8 is off by a few bytes at exbibytes (2^60 reads as 1152921504606847000); a wrapped number is not.
            assertThat(facts.memoryBytes()).isCloseTo(expectedBytes(memory), withinPercentage(0.0001));
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).contains("spec.memory");
        }
    }

    @Provide
    Arbitrary<String> quantities() {
        Arbitrary<String> valid = Arbitraries.of("512Mi", "2Gi", "1G", "1500000000", "1.5Gi", "3e9", "64Ei", "0.5Ki");
        Arbitrary<String> numbers = Arbitraries.strings()
                .numeric()
                .ofMinLength(1)
                .ofMaxLength(30)
                .flatMap(digits -> Arbitraries.of(
                                "",
                                "Ki",
                                "Mi",
                                "Gi",
                                "Ti",
                                "Pi",
                                "Ei",
                                "k",
                                "M",
                                "G",
                                "E",
                                "e3",
                                "e18",
                                "e19",
                                "e308",
                                "e2147483648")
                        .map(suffix -> digits + suffix));
        return Arbitraries.frequencyOf(
                Tuple.of(3, valid),
                Tuple.of(4, numbers),
                Tuple.of(3, Arbitraries.of(HostileJson.TRICKY_TEXT)),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(12)),
                Tuple.of(1, Arbitraries.integers().between(100, 100_000).map(n -> "9".repeat(n) + "Ei")),
                Tuple.of(1, Arbitraries.integers().between(100, 100_000).map(n -> "0." + "0".repeat(n) + "1e" + n)));
    }

    @Provide
    Arbitrary<String> optionalQuantities() {
        return Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(null)), Tuple.of(3, quantities()));
    }

    @Provide
    Arbitrary<String> annotations() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(null)),
                Tuple.of(2, Arbitraries.of("1", "4", "streams", "other", "2147483648", "-1", " 3 ", "0")),
                Tuple.of(2, Arbitraries.of(HostileJson.TRICKY_TEXT)),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
    }

    /** Limits as the API server stores them: valid quantities, however large. */
    @Provide
    Arbitrary<String> limits() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(null)),
                Tuple.of(
                        3,
                        Arbitraries.of(
                                "1Gi", "2Gi", "4Gi", "0", "1", "9999999999999999999Ei", "8Ei", "1e30", "100000P")));
    }

    private void planOrFailNamingTheField(Input input) {
        StreamsMemoryPolicySpec spec = spec(input);
        Workload workload = workload(input);
        try {
            WorkloadPlanner.Plan plan = CpuBudget.within(
                    PER_PLAN,
                    () -> WorkloadPlanner.plan(
                            spec,
                            workload,
                            new PlannedRange(new ReplicaRange(1, 2), "fuzz", 2),
                            Optional.empty(),
                            Map.of()));
            long memory = plan.facts().memoryBytes();
            // The policy's memory, or the container's limit when that is lower: never more, never wrapped.
            assertThat(memory).isPositive().isLessThanOrEqualTo(facts(spec).memoryBytes());
            assertPartsSumToMemory(plan.facts());
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage())
                    .containsAnyOf(
                            "spec.memory",
                            "spec.streams.recordSize",
                            "spec.jvm.extraDirectMemory",
                            "spec.overrides.heap",
                            "memory limit");
        }
    }

    private void assertPartsSumToMemory(WorkloadFacts facts) {
        AllocationResult result = CpuBudget.within(PER_PLAN, () -> engine.allocate(facts));
        if (result.allocation() != null) {
            long sum =
                    result.allocation().parts().stream().mapToLong(Part::bytes).sum();
            assertThat(sum).isEqualTo(facts.memoryBytes());
        } else {
            assertThat(result.errors()).isNotEmpty();
        }
    }

    /**
     * What the user's memory means in bytes, by another parser (fabric8's, exact decimal arithmetic), called only
     * once the planner took the quantity: so an overflow in the planner's own parsing shows as a difference.
     */
    private static long expectedBytes(String memory) {
        return Quantity.getAmountInBytes(new Quantity(memory.trim()))
                .setScale(0, RoundingMode.CEILING)
                .longValueExact();
    }

    private static WorkloadFacts facts(StreamsMemoryPolicySpec spec) {
        return WorkloadPlanner.policyFacts(spec);
    }

    private static StreamsMemoryPolicySpec spec(Input input) {
        StreamsMemoryPolicySpec spec = new StreamsMemoryPolicySpec();
        spec.setMemory(input.memory());
        StreamsSpec streams = new StreamsSpec();
        streams.setThreads(2);
        streams.setPartitions(8);
        streams.setRecordSize(input.recordSize());
        spec.setStreams(streams);
        JvmSpec jvm = new JvmSpec();
        jvm.setExtraDirectMemory(input.extraDirectMemory());
        spec.setJvm(jvm);
        if (input.heap() != null) {
            OverridesSpec overrides = new OverridesSpec();
            overrides.setHeap(input.heap());
            spec.setOverrides(overrides);
        }
        return spec;
    }

    private static Workload workload(Input input) {
        Deployment deployment = Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi");
        var container =
                deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        container
                .getResources()
                .setLimits(input.limit() == null ? null : Map.of("memory", new Quantity(input.limit())));
        Map<String, String> annotations =
                new java.util.HashMap<>(deployment.getMetadata().getAnnotations());
        if (input.threads() != null) {
            annotations.put(STREAM_THREADS, input.threads());
        }
        if (input.container() != null) {
            annotations.put(CONTAINER, input.container());
        }
        deployment.getMetadata().setAnnotations(annotations);
        return Workload.of(deployment).orElseThrow();
    }
}
