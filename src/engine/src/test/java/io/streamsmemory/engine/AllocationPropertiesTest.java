package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.GiB;
import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.json.AllocationJson;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The engine's invariants over generated workloads: 256 MiB..64 GiB, 1..64 threads, 1..8 KafkaStreams instances
 * per pod (at most 64 stream threads per pod in all), 1..200 replicas, 0..100 stores per task of every kind, with and without standbys, global stores,
 * overrides and a replica range. Tries per property: junit-platform.properties' {@code jqwik.tries.default}, sized so each
 * property takes a few seconds in {@code make test}; {@code make test-long} runs 10,000.
 */
class AllocationPropertiesTest {
    private final AllocationEngine engine = new AllocationEngine();

    @Provide
    Arbitrary<WorkloadFacts> workloads() {
        Arbitrary<Long> memory = Arbitraries.longs().between(256 * MiB, 64 * GiB);
        Arbitrary<Integer> threads = Arbitraries.integers().between(1, 64);
        Arbitrary<Integer> replicas = Arbitraries.integers().between(1, 200);
        // Biased towards small counts, where real workloads are, while still reaching the extremes.
        Arbitrary<Integer> tasks =
                Arbitraries.integers().between(1, 2000).withDistribution(RandomDistribution.biased());
        Arbitrary<Boolean> tasksArePartitions = Arbitraries.of(true, false);
        Arbitrary<StoreCounts> stores = Arbitraries.integers()
                .between(0, 100)
                .withDistribution(RandomDistribution.biased())
                .flatMap(total -> Arbitraries.integers()
                        .between(0, total)
                        .flatMap(kv -> Arbitraries.integers()
                                .between(0, total - kv)
                                .map(window -> new StoreCounts(kv, window, total - kv - window))));
        Arbitrary<Integer> standbys = Arbitraries.integers().between(0, 3);
        Arbitrary<Integer> globals = Arbitraries.integers().between(0, 4);
        // Mostly one KafkaStreams instance per JVM, as almost every application runs.
        Arbitrary<Integer> instances = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.just(1)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(2, 8)));
        Arbitrary<Overrides> overrides = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.just(Overrides.NONE)),
                net.jqwik.api.Tuple.of(
                        1,
                        Combinators.combine(
                                        Arbitraries.longs()
                                                .between(64 * MiB, 32 * GiB)
                                                .injectNull(0.6),
                                        Arbitraries.doubles().between(0.05, 0.9).injectNull(0.5),
                                        Arbitraries.doubles().between(0.0, 0.5).injectNull(0.5),
                                        Arbitraries.of(true, false).injectNull(0.5),
                                        Arbitraries.doubles().between(0.0, 0.5).injectNull(0.5),
                                        // With the pool ratio at most 0.5, data blocks keep at least a tenth.
                                        Arbitraries.doubles().between(0.05, 0.4).injectNull(0.5))
                                .as(Overrides::new)));
        Arbitrary<ReplicaRange> ranges = Combinators.combine(
                        Arbitraries.integers().between(1, 200),
                        Arbitraries.integers().between(0, 100).withDistribution(RandomDistribution.biased()))
                .as((min, span) -> new ReplicaRange(min, min + span))
                .injectNull(0.67);
        return Combinators.combine(memory, threads, replicas, tasks, tasksArePartitions, stores, standbys, globals)
                .as((m, t, r, n, partitions, s, sb, g) -> {
                    WorkloadFacts.Builder b = WorkloadFacts.builder()
                            .memoryBytes(m)
                            .streamThreads(t)
                            .replicas(r)
                            .stores(s)
                            .standbyReplicas(sb)
                            .globalStores(g);
                    return partitions
                            ? b.partitions(n).build()
                            : b.tasksPerPod(Math.max(1, n / 20)).build();
                })
                .flatMap(f -> overrides.map(o -> f.toBuilder().overrides(o).build()))
                // At most 64 stream threads per pod in all, the domain these properties cover (beyond it, with
                // hundreds of threads, KiB rounding of the client buffers can shrink direct memory by a few KiB).
                .flatMap(f -> instances.map(i -> f.toBuilder()
                        .instancesPerPod(Math.max(1, Math.min(i, 64 / f.streamThreads())))
                        .build()))
                // A third with a replica range, which need not hold the current count.
                .flatMap(f ->
                        ranges.map(range -> f.toBuilder().replicaRange(range).build()))
                // Some with the class count and the extra direct memory a policy states.
                .flatMap(f -> jvmNeeds()
                        .map(needs -> f.toBuilder()
                                .loadedClasses(needs.get1())
                                .extraDirectMemoryBytes(needs.get2())
                                .build()))
                // A quarter with transactional state stores (KIP-892).
                .flatMap(f -> Arbitraries.frequencyOf(
                                net.jqwik.api.Tuple.of(3, Arbitraries.just(false)),
                                net.jqwik.api.Tuple.of(1, Arbitraries.just(true)))
                        .map(on -> f.toBuilder().transactionalStateStores(on).build()));
    }

    /** Loaded classes and extra direct memory: mostly the defaults, else up to 60,000 classes and 512 MiB. */
    private static Arbitrary<net.jqwik.api.Tuple.Tuple2<Integer, Long>> jvmNeeds() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(
                        3, Arbitraries.just(net.jqwik.api.Tuple.of(MemoryModel.DEFAULT_LOADED_CLASSES, 0L))),
                net.jqwik.api.Tuple.of(
                        1,
                        Combinators.combine(
                                        Arbitraries.integers().between(MemoryModel.MIN_LOADED_CLASSES, 60_000),
                                        Arbitraries.longs().between(0, 512 * MiB))
                                .as(net.jqwik.api.Tuple::of)));
    }

    /** Workloads lifted to at least the memory they need (when some pod up to 64 GiB fits them). */
    @Provide
    Arbitrary<WorkloadFacts> fittingWorkloads() {
        return workloads().map(facts -> {
            AllocationResult result = engine.allocate(facts);
            Long minimum = result.minimumMemoryBytes();
            return result.ok() || minimum == null || minimum > 64 * GiB
                    ? facts
                    : facts.toBuilder()
                            .memoryBytes(minimum + (facts.memoryBytes() % (minimum / 4 + 1)))
                            .build();
        });
    }

    @Property
    void partsSumExactlyToThePodMemoryAtEveryLevel(@ForAll("fittingWorkloads") WorkloadFacts facts) {
        AllocationResult result = engine.allocate(facts);
        Assume.that(result.ok());
        Allocation a = result.allocation();
        assertThat(a.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(facts.memoryBytes());
        a.parts().forEach(AllocationPropertiesTest::assertNestedPartsSum);
    }

    private static void assertNestedPartsSum(Part part) {
        if (!part.parts().isEmpty()) {
            assertThat(part.parts().stream().mapToLong(Part::bytes).sum())
                    .as(part.name())
                    .isEqualTo(part.bytes());
            part.parts().forEach(AllocationPropertiesTest::assertNestedPartsSum);
        }
    }

    /**
     * spec.jvm.sizing: Observed, with any peaks a pod may report: the parts still sum to the pod, none is negative,
     * the headroom lies within [its learned floor, the model's], and a plan the model's caps do not fit is not made to
     * fit by learning.
     */
    @Property
    void observedSizingSumsToThePodAndKeepsTheHeadroomWithinItsBounds(
            @ForAll("fittingWorkloads") WorkloadFacts facts,
            @ForAll @LongRange(min = 1, max = 512 * MiB) long metaspace,
            @ForAll @LongRange(min = 1, max = 256 * MiB) long codeCache,
            @ForAll @LongRange(min = 1, max = 2000) long threads,
            @ForAll @LongRange(min = 0, max = 2 * GiB) long headroom) {
        AllocationResult declared = engine.allocate(facts);
        AllocationResult observed = engine.allocate(facts.toBuilder()
                .observedJvm(new ObservedJvm(metaspace, codeCache, threads, headroom))
                .build());
        assertThat(observed.ok()).isEqualTo(declared.ok());
        Assume.that(observed.ok());
        Allocation a = observed.allocation();
        assertThat(a.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(facts.memoryBytes());
        a.parts().forEach(AllocationPropertiesTest::assertNestedPartsSum);
        a.parts().forEach(AllocationPropertiesTest::assertNotNegative);
        assertThat(headroomMargin(a)).isGreaterThanOrEqualTo(MemoryModel.LEARNED_HEADROOM_MIN_MIB * MiB);
        // A fixed heap leaves what learning frees unused, and the headroom holds it.
        if (facts.overrides() == null || facts.overrides().heapBytes() == null) {
            assertThat(headroomMargin(a)).isLessThanOrEqualTo(headroomMargin(declared.allocation()));
        }
    }

    /** The headroom's own margin, without the room of caps the plan leaves unset. */
    private static long headroomMargin(Allocation a) {
        Part headroom = a.part("headroom");
        return headroom.parts().isEmpty()
                ? headroom.bytes()
                : headroom.parts().get(0).bytes();
    }

    @Property
    void noPartIsNegativeOrBelowItsFloor(@ForAll("fittingWorkloads") WorkloadFacts facts) {
        AllocationResult result = engine.allocate(facts);
        Assume.that(result.ok());
        Allocation a = result.allocation();
        a.parts().forEach(AllocationPropertiesTest::assertNotNegative);
        assertThat(a.part("jvm-code-cache").bytes())
                .isBetween(MemoryModel.CODE_CACHE_MIN_MIB * MiB, MemoryModel.CODE_CACHE_MAX_MIB * MiB);
        assertThat(a.part("headroom").bytes()).isGreaterThanOrEqualTo(MemoryModel.HEADROOM_MIN_MIB * MiB);
        assertThat(a.part("jvm-direct-memory").bytes())
                .isGreaterThanOrEqualTo(MemoryModel.DIRECT_MEMORY_BASE
                        + a.topology().socketReaders()
                                * Long.parseLong(a.streamsConfig().get("main.consumer.fetch.max.bytes")));
        long heap = a.part("heap").bytes();
        assertThat(heap).isGreaterThanOrEqualTo(MemoryModel.HEAP_MIN_MIB * MiB).isLessThan(facts.memoryBytes());
        long application = a.part("application").bytes();
        long dataPart = a.part("record-cache").bytes()
                + a.part("record-cache-overhead").bytes()
                + a.part("input-buffers").bytes()
                + application; // what clients leave
        assertThat(application * 2).isGreaterThanOrEqualTo(dataPart);
        assertThat(Long.parseLong(a.streamsConfig().get("producer.buffer.memory")))
                .isBetween(MemoryModel.CLIENT_BUFFER_MIN, MemoryModel.PRODUCER_BUFFER_DEFAULT);
        assertThat(Long.parseLong(a.streamsConfig().get("main.consumer.fetch.max.bytes")))
                .isBetween(MemoryModel.CLIENT_BUFFER_MIN, MemoryModel.FETCH_MAX_DEFAULT);
        assertThat(Long.parseLong(a.streamsConfig().get("buffered.records.per.partition")))
                .isBetween(MemoryModel.BUFFERED_RECORDS_MIN, MemoryModel.BUFFERED_RECORDS_DEFAULT);
        if (a.topology().rocksDbInstances() > 0) {
            assertThat(a.rocksDb().blockCacheCapacityBytes()).isGreaterThanOrEqualTo(MemoryModel.BLOCK_CACHE_MIN);
            assertThat(a.rocksDb().writeBufferSizeBytes())
                    .isBetween(MemoryModel.WRITE_BUFFER_SIZE_MIN, MemoryModel.WRITE_BUFFER_SIZE_MAX);
            assertThat(a.rocksDb().arenaBlockSizeBytes())
                    .isBetween(
                            MemoryModel.ARENA_BLOCK_MIN,
                            Math.min(MemoryModel.ARENA_BLOCK_MAX, a.rocksDb().writeBufferSizeBytes() / 8));
            // Above the floor, one block for every planned memtable takes at most a quarter of the manager's budget:
            // more, and the blocks of near-empty memtables keep it flushing without end.
            long memtables = a.plannedTopology().rocksDbInstances()
                    * MemoryModel.MEMTABLE_COLUMN_FAMILIES
                    * a.rocksDb().maxWriteBufferNumber();
            if (a.rocksDb().arenaBlockSizeBytes() > MemoryModel.ARENA_BLOCK_MIN) {
                assertThat(a.rocksDb().arenaBlockSizeBytes() * memtables)
                        .isLessThanOrEqualTo(a.rocksDb().writeBufferManagerBytes() / MemoryModel.ARENA_BLOCKS_DIVISOR);
            }
            // A flush thread per stream thread of the pod, so no stream thread's writes queue behind another's flush.
            assertThat((long) a.rocksDb().backgroundFlushThreads())
                    .isEqualTo(Math.min(facts.streamThreadsPerPod(), MemoryModel.ROCKSDB_FLUSH_THREADS_MAX));
        } else {
            assertThat(a.part("rocksdb").bytes()).isZero();
        }
        // Transactional state stores: a bound between 1 MiB per thread and Kafka's default, in both copies' parts.
        String uncommitted = a.streamsConfig().get("statestore.uncommitted.max.bytes");
        assertThat(uncommitted != null)
                .isEqualTo(facts.transactionalStateStores() && facts.stores().total() + facts.globalStores() > 0);
        if (uncommitted != null) {
            assertThat(Long.parseLong(uncommitted))
                    .isBetween(
                            (facts.streamThreads() + (facts.globalStores() > 0 ? 1L : 0L))
                                    * MemoryModel.UNCOMMITTED_MIN_PER_THREAD,
                            MemoryModel.UNCOMMITTED_MAX_BYTES_DEFAULT);
            assertThat(a.part("uncommitted-writes").bytes())
                    .isGreaterThanOrEqualTo(Long.parseLong(uncommitted) * facts.instancesPerPod());
            assertThat(a.part("uncommitted-write-batches").bytes())
                    .isGreaterThanOrEqualTo(Long.parseLong(uncommitted)
                            * facts.instancesPerPod()
                            * MemoryModel.UNCOMMITTED_NATIVE_FACTOR);
        }
        // The flags say exactly what the parts hold, and never more heap than the pod.
        assertThat(a.jvmOptions())
                .contains(
                        "-Xmx" + AllocationEngine.jvmSize(heap),
                        "-XX:MaxDirectMemorySize="
                                + AllocationEngine.jvmSize(
                                        a.part("jvm-direct-memory").bytes()));
    }

    private static void assertNotNegative(Part part) {
        assertThat(part.bytes()).as(part.name()).isNotNegative();
        part.parts().forEach(AllocationPropertiesTest::assertNotNegative);
    }

    @Property
    void theResultIsDeterministic(@ForAll("workloads") WorkloadFacts facts) {
        AllocationResult first = engine.allocate(facts);
        AllocationResult second = engine.allocate(facts.toBuilder().build());
        assertThat(second).isEqualTo(first);
        if (first.ok()) {
            assertThat(AllocationJson.write(second.allocation())).isEqualTo(AllocationJson.write(first.allocation()));
        }
    }

    @Property
    void moreMemoryNeverShrinksAnyPart(
            @ForAll("fittingWorkloads") WorkloadFacts facts, @ForAll @LongRange(min = 1, max = 8 * GiB) long extra) {
        AllocationResult smaller = engine.allocate(facts);
        Assume.that(smaller.ok());
        AllocationResult larger = engine.allocate(
                facts.toBuilder().memoryBytes(facts.memoryBytes() + extra).build());
        assertThat(larger.ok()).as("more memory still fits").isTrue();
        Map<String, Long> before = flatten(smaller.allocation().parts());
        Map<String, Long> after = flatten(larger.allocation().parts());
        before.forEach((name, bytes) -> {
            // Every part is a whole number of MiB (heap shares and RocksDB parts: bytes); the headroom also
            // keeps the sub-MiB rest of the pod memory, so it is compared in whole MiB.
            long was = name.equals("headroom") ? bytes / MiB : bytes;
            long is = name.equals("headroom") ? after.get(name) / MiB : after.get(name);
            assertThat(is).as(name).isGreaterThanOrEqualTo(was);
        });
    }

    /**
     * More loaded classes raise -XX:MaxMetaspaceSize, more extra direct memory raises -XX:MaxDirectMemorySize by at
     * least that much, and every other part gives way (none grows); the parts still sum to the pod (checked above for
     * every generated count).
     */
    @Property
    void moreClassesOrDirectMemoryGrowTheirCapsAndNoOtherPart(
            @ForAll("fittingWorkloads") WorkloadFacts facts,
            @ForAll @IntRange(min = 0, max = 40_000) int moreClasses,
            @ForAll @LongRange(min = 0, max = 256 * MiB) long moreDirect) {
        AllocationResult before = engine.allocate(facts);
        Assume.that(before.ok());
        AllocationResult after = engine.allocate(facts.toBuilder()
                .loadedClasses(facts.loadedClasses() + moreClasses)
                .extraDirectMemoryBytes(facts.extraDirectMemoryBytes() + moreDirect)
                .build());
        Assume.that(after.ok());
        Map<String, Long> was = flatten(before.allocation().parts());
        Map<String, Long> is = flatten(after.allocation().parts());
        long metaspaceGrowth = is.get("jvm-metaspace") - was.get("jvm-metaspace");
        assertThat(metaspaceGrowth)
                .isBetween(
                        moreClasses * MemoryModel.METASPACE_BYTES_PER_CLASS - MiB,
                        moreClasses * MemoryModel.METASPACE_BYTES_PER_CLASS + MiB);
        if (moreClasses > 0) {
            assertThat(after.allocation().jvmOptions())
                    .contains("-XX:MaxMetaspaceSize=" + is.get("jvm-metaspace") / MiB + "m");
        }
        // The direct cap gains the extra (rounded up to MiB) and may lose a little of the clients' shrinking share.
        long extraGrowth = ByteSize.ceilDiv(facts.extraDirectMemoryBytes() + moreDirect, MiB) * MiB
                - ByteSize.ceilDiv(facts.extraDirectMemoryBytes(), MiB) * MiB;
        long clientDirectWas =
                was.get("jvm-direct-memory") - ByteSize.ceilDiv(facts.extraDirectMemoryBytes(), MiB) * MiB;
        long clientDirectIs =
                is.get("jvm-direct-memory") - ByteSize.ceilDiv(facts.extraDirectMemoryBytes() + moreDirect, MiB) * MiB;
        assertThat(is.get("jvm-direct-memory") - was.get("jvm-direct-memory"))
                .isEqualTo(extraGrowth + clientDirectIs - clientDirectWas);
        assertThat(clientDirectIs).isLessThanOrEqualTo(clientDirectWas);
        was.forEach((name, bytes) -> {
            if (!name.equals("jvm-metaspace") && !name.equals("jvm-direct-memory")) {
                assertThat(is.get(name)).as(name).isLessThanOrEqualTo(bytes);
            }
        });
    }

    @Property
    void moreThreadsNeverRaiseAPerThreadClientBuffer(
            @ForAll("fittingWorkloads") WorkloadFacts facts, @ForAll @IntRange(min = 1, max = 32) int moreThreads) {
        AllocationResult fewer = engine.allocate(facts);
        Assume.that(fewer.ok());
        AllocationResult more = engine.allocate(facts.toBuilder()
                .streamThreads(facts.streamThreads() + moreThreads)
                .build());
        Assume.that(more.ok());
        for (String key : List.of(
                "producer.buffer.memory", "main.consumer.fetch.max.bytes", "restore.consumer.fetch.max.bytes")) {
            assertThat(Long.parseLong(more.allocation().streamsConfig().get(key)))
                    .as(key)
                    .isLessThanOrEqualTo(
                            Long.parseLong(fewer.allocation().streamsConfig().get(key)));
        }
    }

    @Property
    void whatDoesNotFitIsAnErrorWithAMinimumThatFits(@ForAll("workloads") WorkloadFacts facts) {
        AllocationResult result = engine.allocate(facts);
        if (result.ok()) {
            assertThat(result.errors()).isEmpty();
            assertThat(result.allocation()).isNotNull();
            return;
        }
        assertThat(result.allocation()).isNull();
        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.code()).matches("[A-Z][A-Za-z]+");
            assertThat(e.message()).contains("; ").doesNotContainPattern("(^|[^\\w])-\\d");
        });
        if (result.minimumMemoryBytes() != null) {
            long minimum = result.minimumMemoryBytes();
            assertThat(minimum).isGreaterThan(facts.memoryBytes() - MiB);
            assertThat(engine.allocate(facts.toBuilder().memoryBytes(minimum).build())
                            .ok())
                    .isTrue();
            assertThat(engine.allocate(
                                    facts.toBuilder().memoryBytes(minimum - MiB).build())
                            .ok())
                    .isFalse();
        }
    }

    /** A size as {@link ByteSize#format} or {@link AllocationEngine#shown} prints it. */
    private static final String SIZE = "([\\d,]+(?:\\.\\d+)?) (B|KiB|MiB|GiB|TiB)\\b";

    private static final Pattern NEED = Pattern.compile("\\bneeds? (?:its )?" + SIZE);
    private static final Pattern LAST_SIZE = Pattern.compile(".*(?<![\\d.,])" + SIZE + ".*", Pattern.DOTALL);

    /**
     * Every refusal names the floor that failed with what it needs and what it has, the need the larger: as fields,
     * and as the message prints them (the first size after "need", the last size before the remedy).
     */
    @Property
    void everyRefusalNeedsMoreThanItHas(@ForAll("workloads") WorkloadFacts facts) {
        AllocationResult result = engine.allocate(facts);
        if (result.ok()) {
            return;
        }
        AllocationError error = result.errors().get(0);
        assertThat(error.neededBytes()).isGreaterThan(error.availableBytes());
        assertThat(error.availableBytes()).isNotNegative();
        String[] shown = AllocationEngine.shown(error.neededBytes(), error.availableBytes());
        String detail = error.message().substring(0, error.message().indexOf("; "));
        Matcher need = NEED.matcher(detail);
        Matcher have = LAST_SIZE.matcher(detail);
        assertThat(need.find()).as(detail).isTrue();
        assertThat(have.matches()).as(detail).isTrue();
        assertThat(need.group(1) + " " + need.group(2)).as(detail).isEqualTo(shown[0]);
        assertThat(have.group(1) + " " + have.group(2)).as(detail).isEqualTo(shown[1]);
        assertThat(printedBytes(need)).as(detail).isGreaterThan(printedBytes(have));
    }

    private static double printedBytes(Matcher size) {
        int power = List.of("B", "KiB", "MiB", "GiB", "TiB").indexOf(size.group(2));
        return Double.parseDouble(size.group(1).replace(",", "")) * Math.pow(1024, power);
    }

    private static Map<String, Long> flatten(List<Part> parts) {
        Map<String, Long> flat = new HashMap<>();
        for (Part part : parts) {
            flat.put(part.name(), part.bytes());
            flat.putAll(flatten(part.parts()));
        }
        return flat;
    }
}
