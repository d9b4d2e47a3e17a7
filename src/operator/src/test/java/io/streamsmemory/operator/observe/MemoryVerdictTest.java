package io.streamsmemory.operator.observe;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.operator.Fixtures;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** The observed figures against the engine's own plan (1Gi, 2 threads, 8 partitions over 2 pods, 1 store per task). */
class MemoryVerdictTest {
    private static final Duration DAY = Duration.ofHours(24);
    private final Allocation plan = Fixtures.smallAllocation(ByteSize.GiB);

    @Test
    void aPodWithinItsPlanGetsNoConditionAndAMemoryAdvice() {
        MemoryVerdict verdict = MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 2, 4, 4, 0), DAY);
        assertThat(verdict.pressure()).isNull();
        assertThat(verdict.mismatch()).isNull();
        assertThat(verdict.peakRatio()).isCloseTo(400.0 / 1024, Offset.offset(1e-9));
        assertThat(verdict.observed().getPeakMemoryRatio()).isEqualTo("0.39");
        // 400 MiB x 1.25 = 500 MiB, rounded up to 512 MiB: well below the 1 GiB planned.
        assertThat(verdict.recommendation())
                .isEqualTo("memory 1 GiB, peak 400 MiB over PT24H (0.39): 512 MiB would "
                        + "hold with a 25% margin over the peak (and the plan's floors)");
        // Never below what the engine can split for the same facts: a 50 MiB peak still needs the JVM's floors.
        long floor = new AllocationEngine()
                .allocate(plan.facts().toBuilder().memoryBytes(64 * MiB).build())
                .minimumMemoryBytes();
        long floorIn64Mi = (floor + 64 * MiB - 1) / (64 * MiB) * (64 * MiB);
        assertThat(MemoryVerdict.of(plan, seen(40 * MiB, 50 * MiB, 2, 4, 4, 0), DAY)
                        .recommendation())
                .contains(": " + ByteSize.format(floorIn64Mi) + " would hold");
    }

    /**
     * A pod's in-memory state (issue 46): an unbounded suppression buffer is a warning whatever its size, naming the
     * buffers; state above what the plan holds for it and the application is one too; neither, none.
     */
    @Test
    void anUnboundedSuppressionOrStateThePlanCannotHoldIsAWarningWithWhatToChange() {
        String report = """
                {"formatVersion":1,"unboundedSuppressionBuffers":"KTABLE-SUPPRESS-STATE-STORE-0000000009",
                 "heapState":{"inMemoryStores":4,"suppressionBuffers":4,"unboundedSuppressionBuffers":%d,
                 "suppressionBufferBytes":16384,"stateBytes":%d}}""";
        HeapState unbounded = AgentReport.parse(
                        String.format(report, 4, 20 * MiB).getBytes(StandardCharsets.UTF_8))
                .heapState();
        HeapState.Finding finding = unbounded.finding(plan);
        assertThat(finding.message())
                .startsWith(
                        "4 suppression buffer(s) with no bound (KTABLE-SUPPRESS-STATE-STORE-0000000009) hold 16 KiB")
                .contains("bound it (Suppressed.BufferConfig.maxBytes(...))")
                .doesNotContain("more than the plan holds");
        assertThat(finding.reason()).isEqualTo("SuppressionBufferUnbounded");
        // The Event's words leave out the sizes, which move with every report: one Event, counted, not one a report.
        assertThat(finding.event())
                .isEqualTo(finding.message().replace(" hold 16 KiB", ""))
                .doesNotContain("KiB");
        // The whole observation carries it (the busiest pod's figures).
        assertThat(WorkloadObservation.none()
                        .with(AgentReport.parse(
                                String.format(report, 4, 20 * MiB).getBytes(StandardCharsets.UTF_8)))
                        .heapState())
                .isEqualTo(unbounded);

        long application = plan.part("application").bytes();
        HeapState tooLarge = AgentReport.parse(
                        String.format(report, 0, application + MiB).getBytes(StandardCharsets.UTF_8))
                .heapState();
        assertThat(tooLarge.finding(plan).message())
                .startsWith("in-memory stores and suppression buffers hold " + ByteSize.format(application + MiB))
                .contains("keep the state in a persistent (RocksDB) store");
        assertThat(tooLarge.finding(plan).reason()).isEqualTo("InMemoryStateTooLarge");

        HeapState fits = AgentReport.parse(
                        String.format(report, 0, application / 2).getBytes(StandardCharsets.UTF_8))
                .heapState();
        assertThat(fits.finding(plan)).isNull();
        // A pod without such state has no heapState section.
        assertThat(AgentReport.parse("{\"formatVersion\":1}".getBytes(StandardCharsets.UTF_8))
                        .heapState())
                .isNull();
    }

    /** A pod's agent names the flag that won over the plan's heap; the row shows it, the effect goes to Warning. */
    @Test
    void aHeapFlagOfTheApplicationsIsShownWithTheHeapInForceAndThePlans() {
        String report = """
                {"formatVersion":1,"heapFlag":"%s","jvm":{"heapMaxBytes":%d,"plannedHeapMaxBytes":%d}}""";
        AgentReport bigger = AgentReport.parse(
                String.format(report, "-Xmx2g", 2048 * MiB, 700 * MiB).getBytes(StandardCharsets.UTF_8));
        MemoryVerdict verdict =
                MemoryVerdict.of(plan, WorkloadObservation.none().with(bigger), DAY);
        assertThat(verdict.observed().getHeapFlag())
                .isEqualTo("-Xmx2g won over the plan's heap: 2 GiB in force, 700 MiB planned");
        assertThat(verdict.seen().heapOverride().effect())
                .startsWith("the heap may take 1.32 GiB more than its part, so the pod's parts add up to more than its "
                        + "memory and the kernel may OOM-kill it");
        AgentReport smaller = AgentReport.parse(String.format(report, "-XX:MaxRAMPercentage=25", 256 * MiB, 700 * MiB)
                .getBytes(StandardCharsets.UTF_8));
        assertThat(smaller.heapOverride().effect())
                .startsWith("444 MiB of the pod's memory planned for the heap stays unused");
        // The planned heap in force: the agent names no flag, and the row shows none.
        AgentReport asPlanned = AgentReport.parse(
                "{\"formatVersion\":1,\"jvm\":{\"heapMaxBytes\":1}}".getBytes(StandardCharsets.UTF_8));
        assertThat(MemoryVerdict.of(plan, WorkloadObservation.none().with(asPlanned), DAY)
                        .observed()
                        .getHeapFlag())
                .isNull();
    }

    @Test
    void aboveNinetyFivePercentOrAfterAnOomKillIsPressure() {
        MemoryVerdict high = MemoryVerdict.of(plan, seen(1000 * MiB, 1000 * MiB, 2, 4, 4, 0), DAY);
        assertThat(high.pressure()).contains("a pod uses 1000 MiB of its 1 GiB (98%, above 95%)");
        assertThat(high.recommendation()).contains("raise spec.memory (and the container limit) to at least 1.25 GiB");
        MemoryVerdict killed = MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 2, 4, 4, 1), DAY);
        assertThat(killed.pressure())
                .startsWith(
                        "1 OOM kill(s) of its pods (kubelet's container statuses and the pods' cgroups), peak 400 MiB"
                                + " of 1 GiB in the window");
        assertThat(MemoryVerdict.of(plan, seen(900 * MiB, 1000 * MiB, 2, 4, 4, 0), DAY)
                        .pressure())
                .isNull();
    }

    @Test
    void moreStoresOrOtherThreadsThanDeclaredIsAMismatchWithTheFix() {
        MemoryVerdict stores = MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 2, 4, 20, 0), DAY);
        assertThat(stores.mismatch())
                .isEqualTo("running 20 RocksDB instances in a pod, planned at most "
                        + plan.plannedTopology().rocksDbInstances());
        assertThat(stores.recommendation())
                .startsWith(
                        "declared 1 RocksDB instance(s) per task, running about 5.0: " + "raise spec.streams.stores");
        MemoryVerdict threads = MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 3, 4, 4, 0), DAY);
        assertThat(threads.mismatch()).isEqualTo("running 3 stream threads, planned 2");
        assertThat(threads.recommendation()).startsWith("declared 2 stream threads per pod, running 3");
    }

    @Test
    void unknownFiguresDecideNothing() {
        MemoryVerdict verdict =
                MemoryVerdict.of(plan, WorkloadObservation.none().notAnswering(), DAY);
        assertThat(verdict.pressure()).isNull();
        assertThat(verdict.mismatch()).isNull();
        assertThat(verdict.recommendation()).isNull();
        assertThat(verdict.observed().getPodsNotAnswering()).isEqualTo(1);
    }

    @Test
    void aMetaspaceNearItsCapIsPressureAndTheClassCountToDeclare() {
        long cap = plan.part("jvm-metaspace").bytes(); // 15,000 classes planned
        MemoryVerdict full = MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 2, 4, 4, 0, 24_100, cap - MiB), DAY);
        assertThat(full.pressure())
                .startsWith("a pod's metaspace uses 96 MiB of its 97 MiB cap (99%, above 90%; 24,100 loaded classes, "
                        + "planned 15,000)");
        // 24,100 x 1.25 rounded up to a thousand; the advice is the class count, not more memory.
        assertThat(full.recommendation())
                .startsWith("loaded 24,100 classes, planned 15,000: set spec.jvm.loadedClasses to 31000")
                .doesNotContain("raise spec.memory");
        assertThat(MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 2, 4, 4, 0, 14_000, cap * 8 / 10), DAY)
                        .pressure())
                .isNull();
    }

    @Test
    void aPodLoadingFarFewerClassesIsToldWhatTheCapHoldsBack() {
        MemoryVerdict verdict = MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 2, 4, 4, 0, 6_215, 34 * MiB), DAY);
        long freed = plan.part("jvm-metaspace").bytes()
                - new AllocationEngine()
                        .allocate(plan.facts().toBuilder().loadedClasses(8_000).build())
                        .allocation()
                        .part("jvm-metaspace")
                        .bytes();
        assertThat(freed).isGreaterThan(30 * MiB);
        assertThat(verdict.pressure()).isNull();
        assertThat(verdict.recommendation())
                .startsWith("loaded 6,215 classes, planned 15,000: spec.jvm.loadedClasses 8000 would give "
                        + ByteSize.format(freed) + " of the metaspace cap to the heap and RocksDB");
        // Half or more of the planned classes: nothing to say about them.
        assertThat(MemoryVerdict.of(plan, seen(300 * MiB, 400 * MiB, 2, 4, 4, 0, 7_500, 40 * MiB), DAY)
                        .recommendation())
                .doesNotContain("loadedClasses");
    }

    private static WorkloadObservation seen(
            long rss, long peak, long threads, long tasks, long rocksDb, long oomKills) {
        return seen(rss, peak, threads, tasks, rocksDb, oomKills, 10_000, 50 * MiB);
    }

    private static WorkloadObservation seen(
            long rss,
            long peak,
            long threads,
            long tasks,
            long rocksDb,
            long oomKills,
            long loadedClasses,
            long metaspaceUsed) {
        return AgentReports.running()
                .memory(rss, peak, oomKills)
                .topology(1L, threads, tasks, 0L, rocksDb)
                .classes(loadedClasses, metaspaceUsed)
                .observation();
    }
}
