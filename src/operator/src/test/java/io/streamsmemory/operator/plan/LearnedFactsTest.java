package io.streamsmemory.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.KafkaStreamsVersion;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.StoresSpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.observe.AgentReport;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.observe.ObservedTopology;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class LearnedFactsTest {
    /**
     * Two pods of one JVM each: 2 threads and 6 active + 6 standby tasks in all, 18 RocksDB instances on the busiest,
     * 9,000 classes and 8 MiB of direct buffers.
     */
    static final ObservedTopology TWO_PODS = new ObservedTopology(
            1L, 2L, 6L, 6L, 6L, 18L, 9_000L, new JvmCapsUse(null, null, null, 8L << 20), null, null, null);

    @Test
    void beforeAnyReportEveryOmittedFactIsAProvisionalDefault() {
        Plan plan = plan(null, null, Optional.empty(), Optional.empty(), Map.of());
        WorkloadFacts planned = plan.planned();

        assertThat(sources(plan.learned().facts()))
                .containsExactly(
                        Map.entry("instancesPerPod", "1 Default"),
                        Map.entry("threads", "1 Default"),
                        Map.entry("tasksPerPod", "8 Default"),
                        Map.entry("standbyReplicas", "0 Default"),
                        Map.entry("stores", "2 RocksDB instances per task Default"),
                        Map.entry("loadedClasses", "15000 Default"),
                        Map.entry("metaspaceCap", "unset until a pod reports its loaded classes Default"),
                        Map.entry("directMemoryCap", "unset until a pod reports its direct memory Default"));
        assertThat(plan.learned().provisional()).hasSize(8);
        // Neither cap is set before a pod reports the fact it depends on (issue 42).
        assertThat(plan.learned().awaitingReport()).containsExactly(JvmCap.METASPACE, JvmCap.DIRECT_MEMORY);
        assertThat(planned.uncappedJvmCaps()).containsExactlyInAnyOrder(JvmCap.METASPACE, JvmCap.DIRECT_MEMORY);
        assertThat(planned.tasksPerPod()).isEqualTo(LearnedFacts.DEFAULT_TASKS_PER_POD);
        assertThat(planned.partitions()).isNull();
        assertThat(planned.stores()).isEqualTo(new StoreCounts(2, 0, 0));
        assertThat(planned.validate()).isEmpty();
    }

    @Test
    void whatThePodsReportFillsTheOmittedFacts() {
        Plan plan = plan(new StreamsSpec(), new JvmSpec(), Optional.empty(), Optional.of(TWO_PODS), Map.of());
        WorkloadFacts planned = plan.planned();

        assertThat(plan.learned().provisional()).isEmpty();
        assertThat(planned.streamThreads()).isEqualTo(2);
        // Every pod's active tasks together are the partitions, so the plan follows the replicas as a declared one.
        assertThat(planned.partitions()).isEqualTo(6);
        assertThat(planned.tasksPerPod()).isNull();
        assertThat(planned.standbyReplicas()).isEqualTo(1);
        assertThat(planned.stores()).isEqualTo(new StoreCounts(3, 0, 0)); // 18 instances over 6 tasks
        assertThat(planned.loadedClasses()).isEqualTo(15_000); // 9,000 x 1.25 rounds up to 12,000: never below 15,000
        assertThat(sources(plan.learned().facts()))
                .containsEntry("partitions", "6 Observed")
                .containsEntry("threads", "2 Observed");
    }

    @Test
    void aDeclaredFactAlwaysWinsAndTheAnnotationWinsOverThePolicy() {
        StreamsSpec streams = new StreamsSpec();
        streams.setThreads(3);
        streams.setTasksPerPod(5);
        streams.setStandbyReplicas(0);
        StoresSpec stores = new StoresSpec();
        stores.setKeyValue(1);
        stores.setWindow(1);
        streams.setStores(stores);
        JvmSpec jvm = new JvmSpec();
        jvm.setLoadedClasses(4_000);
        Plan plan = plan(streams, jvm, Optional.empty(), Optional.of(TWO_PODS), Map.of());
        WorkloadFacts planned = plan.planned();

        assertThat(planned.streamThreads()).isEqualTo(3);
        assertThat(planned.tasksPerPod()).isEqualTo(5);
        assertThat(planned.standbyReplicas()).isZero();
        assertThat(planned.stores()).isEqualTo(new StoreCounts(1, 1, 0));
        assertThat(planned.loadedClasses()).isEqualTo(4_000);
        assertThat(sources(plan.learned().facts()))
                .containsEntry("threads", "3 Declared")
                .containsEntry("tasksPerPod", "5 Declared")
                .containsEntry("stores", "1 key-value, 1 window, 0 session Declared")
                .containsEntry("instancesPerPod", "1 Observed");

        Plan annotated = plan(streams, jvm, Optional.of(7), Optional.of(TWO_PODS), Map.of());
        assertThat(annotated.planned().streamThreads()).isEqualTo(7);
    }

    @Test
    void threadsArePerInstanceAndAManyClassJvmRaisesTheClassCount() {
        // One JVM running 2 KafkaStreams instances with 6 stream threads in all, loading 20,000 classes.
        ObservedTopology twoInstances =
                new ObservedTopology(2L, 6L, 4L, 0L, 4L, 0L, 20_000L, JvmCapsUse.NONE, null, null, null);
        Plan plan = plan(null, null, Optional.empty(), Optional.of(twoInstances), Map.of());
        WorkloadFacts planned = plan.planned();

        assertThat(planned.instancesPerPod()).isEqualTo(2);
        assertThat(planned.streamThreads()).isEqualTo(3);
        assertThat(planned.loadedClasses()).isEqualTo(25_000);
        // No RocksDB instance seen (the stores are not open yet, or are in memory): the default stands.
        assertThat(sources(plan.learned().facts())).containsEntry("stores", "2 RocksDB instances per task Default");
        // No direct memory figure in this report: that cap still waits.
        assertThat(plan.learned().provisional()).containsExactly("stores", "directMemoryCap");
        assertThat(planned.uncappedJvmCaps()).containsExactly(JvmCap.DIRECT_MEMORY);
        assertThat(planned.loadedClasses()).isLessThanOrEqualTo(MemoryModel.MAX_LOADED_CLASSES);
    }

    @Test
    void aRestartedOperatorPlansWhatItPublishedBeforeTheFirstReportAndLearnedFactsNeverFall() {
        Plan published = plan(null, null, Optional.empty(), Optional.of(TWO_PODS), Map.of());
        String annotation = published.learned().annotation();
        assertThat(annotation)
                .isEqualTo("instancesPerPod=1,threads=2,partitions=6,standbyReplicas=1,"
                        + "rocksDbInstancesPerTask=3,loadedClasses=15000,directPeakKiB=8192");

        // An empty window (the operator restarted): the published plan, not the defaults.
        Plan restarted = plan(null, null, Optional.empty(), Optional.empty(), LearnedAnnotation.parse(annotation));
        assertThat(restarted.planned()).isEqualTo(published.planned());
        assertThat(restarted.learned().provisional()).isEmpty();

        // A rebalance shows fewer tasks for a while: the plan holds what it learned.
        ObservedTopology rebalancing =
                new ObservedTopology(1L, 2L, 3L, 0L, 3L, 9L, 9_000L, JvmCapsUse.NONE, null, null, null);
        Plan during = plan(null, null, Optional.empty(), Optional.of(rebalancing), LearnedAnnotation.parse(annotation));
        assertThat(during.planned()).isEqualTo(published.planned());
        // What is not a name=count pair is left out, not fatal.
        assertThat(LearnedAnnotation.parse("threads=x,partitions=4,garbage"))
                .containsExactly(Map.entry("partitions", 4));
    }

    @Test
    void reportedFactsCapTheJvmAboveWhatItUsedAndALiftHoldsUntilThePolicyChanges() {
        // 30,000 classes, and 150 MB of metaspace: more per class than the model's 5,800 B.
        ObservedTopology heavy = new ObservedTopology(
                1L,
                2L,
                6L,
                0L,
                6L,
                12L,
                30_000L,
                new JvmCapsUse(150_000_000L, null, null, 80L << 20),
                null,
                null,
                null);
        Plan plan = plan(null, null, Optional.empty(), Optional.of(heavy), Map.of());
        WorkloadFacts planned = plan.planned();
        assertThat(planned.uncappedJvmCaps()).isEmpty();
        assertThat(plan.learned().awaitingReport()).isEmpty();
        // By count 37,500 -> 38,000; by bytes (150 MB x 1.25 - 14 MB) / 5,800 B = 29,914: the count is larger.
        assertThat(planned.loadedClasses()).isEqualTo(38_000);
        assertThat(planned.observedDirectMemoryBytes()).isEqualTo(80L << 20);
        // In steps of 4 MiB, so a peak that creeps by a few reads is no new plan.
        assertThat(LearnedFacts.directPeakKiB((65L << 20) + 1)).isEqualTo(68 * 1024);
        assertThat(LearnedFacts.directPeakKiB(0)).isEqualTo(4 * 1024);
        // The metaspace peak decides when its classes are larger than the model's average.
        assertThat(LearnedFacts.classesToPlan(10_000, 200_000_000L)).isEqualTo(41_000);

        // A JVM hit the metaspace cap at generation 3: unset until the policy changes, whatever was declared.
        JvmSpec declared = new JvmSpec();
        declared.setLoadedClasses(2_000);
        Map<String, Integer> lifted = LearnedCaps.lift(Map.of(), java.util.Set.of(JvmCap.METASPACE), 3);
        Plan again = plan(null, declared, Optional.empty(), Optional.of(heavy), LearnedCaps.liftsOf(lifted, 3));
        LearnedFacts afterLift = again.learned();
        assertThat(again.planned().uncappedJvmCaps()).containsExactly(JvmCap.METASPACE);
        assertThat(afterLift.lifted()).containsExactly(JvmCap.METASPACE);
        assertThat(afterLift.annotation()).contains("metaspaceCapLifted=3");
        assertThat(afterLift.facts())
                .anyMatch(f -> f.name().equals("metaspaceCap") && f.source() == LearnedFacts.Source.Lifted);
        // The policy changed (generation 4): the declared count caps the metaspace again.
        WorkloadFacts edited = plan(
                        null, declared, Optional.empty(), Optional.of(heavy), LearnedCaps.liftsOf(lifted, 4))
                .planned();
        assertThat(edited.uncappedJvmCaps()).isEmpty();
        assertThat(edited.loadedClasses()).isEqualTo(2_000);
    }

    @Test
    void observedSizingCapsTheMetaspaceFromItsPeakWhenNoClassCountWasReported() {
        JvmSpec jvm = new JvmSpec();
        jvm.setSizing(io.streamsmemory.operator.api.JvmSizing.Observed);
        // A JVM without Kafka Streams: its peaks, but no class count (counted only once Kafka Streams runs).
        ObservedTopology peaks = new ObservedTopology(
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                new JvmCapsUse(8L << 20, 6L << 20, 20L, null),
                null,
                null,
                null);
        Plan plan = plan(null, jvm, Optional.empty(), Optional.of(peaks), Map.of());
        assertThat(plan.planned().observedJvm()).isNotNull();
        assertThat(plan.planned().uncappedJvmCaps()).containsExactly(JvmCap.DIRECT_MEMORY);
        assertThat(plan.learned().awaitingReport()).containsExactly(JvmCap.DIRECT_MEMORY);
    }

    /** What {@link LearnedFacts#apply} learned, and the facts it set on a 1 GiB workload's builder. */
    @Test
    void theKafkaStreamsVersionIsDeclaredOrLearnedAndKeptAcrossARestart() {
        ObservedTopology on32 = new ObservedTopology(
                1L, 2L, 6L, 0L, 6L, 12L, 9_000L, JvmCapsUse.NONE, new KafkaStreamsVersion(3, 2), null, null);

        // Nothing said: the engine's default, no fact row and nothing provisional for it (no byte depends on it).
        Plan unknown = plan(new StreamsSpec(), null, Optional.empty(), Optional.empty(), Map.of());
        assertThat(sources(unknown.learned().facts())).doesNotContainKey("kafkaStreamsVersion");
        assertThat(unknown.planned().kafkaStreamsVersion()).isEqualTo(KafkaStreamsVersion.DEFAULT);

        // Reported: learned, published, and the record cache key is the one 3.2 knows.
        Plan learned = plan(new StreamsSpec(), null, Optional.empty(), Optional.of(on32), Map.of());
        assertThat(sources(learned.learned().facts())).containsEntry("kafkaStreamsVersion", "3.2 Observed");
        assertThat(learned.planned().kafkaStreamsVersion()).isEqualTo("3.2");
        assertThat(KafkaStreamsVersion.parse(learned.planned().kafkaStreamsVersion())
                        .recordCacheKey())
                .isEqualTo("cache.max.bytes.buffering");
        Map<String, Integer> published =
                LearnedAnnotation.parse(learned.learned().annotation());
        assertThat(published).containsEntry("kafkaStreamsVersion", 302);

        // An operator restarted with an empty window plans what it published, not the default.
        Plan restarted = plan(new StreamsSpec(), null, Optional.empty(), Optional.empty(), published);
        assertThat(restarted.planned().kafkaStreamsVersion()).isEqualTo("3.2");
        // Not a floor: pods upgraded to 4.1 move it up, and the count facts keep their floors.
        ObservedTopology on41 = new ObservedTopology(
                1L, 2L, 6L, 0L, 6L, 12L, 9_000L, JvmCapsUse.NONE, new KafkaStreamsVersion(4, 1), null, null);
        assertThat(plan(new StreamsSpec(), null, Optional.empty(), Optional.of(on41), published)
                        .planned()
                        .kafkaStreamsVersion())
                .isEqualTo("4.1");

        // A declared version wins over what the pods say.
        StreamsSpec declared = new StreamsSpec();
        declared.setKafkaStreamsVersion("3.9");
        Plan pinned = plan(declared, null, Optional.empty(), Optional.of(on32), published);
        assertThat(sources(pinned.learned().facts())).containsEntry("kafkaStreamsVersion", "3.9 Declared");
        assertThat(pinned.planned().kafkaStreamsVersion()).isEqualTo("3.9");
        assertThat(LearnedAnnotation.parse(pinned.learned().annotation())).doesNotContainKey("kafkaStreamsVersion");
    }

    private record Plan(LearnedFacts learned, WorkloadFacts planned) {}

    /**
     * Heap the in-memory stores and suppression buffers hold (issue 46): learned with a 25% margin in 16 MiB steps,
     * never below what was published, declared when the policy says; no fact, and no part, when neither says.
     */
    @Test
    void inMemoryStateIsLearnedWithAMarginInStepsNeverFallsAndADeclaredSizeWins() {
        Plan none = plan(new StreamsSpec(), null, Optional.empty(), Optional.of(TWO_PODS), Map.of());
        assertThat(sources(none.learned().facts())).doesNotContainKey("inMemoryState");
        assertThat(none.planned().inMemoryStateBytes()).isZero();

        ObservedTopology holding100MiB =
                new ObservedTopology(1L, 2L, 6L, 0L, 6L, 12L, 9_000L, JvmCapsUse.NONE, null, 100L << 20, null);
        Plan learned = plan(new StreamsSpec(), null, Optional.empty(), Optional.of(holding100MiB), Map.of());
        // 100 MiB + 25% = 125 MiB, up to the next 16 MiB step.
        assertThat(sources(learned.learned().facts())).containsEntry("inMemoryState", "128 MiB Observed");
        assertThat(learned.planned().inMemoryStateBytes()).isEqualTo(128L << 20);
        Map<String, Integer> published =
                LearnedAnnotation.parse(learned.learned().annotation());
        assertThat(published).containsEntry("inMemoryStateKiB", 128 * 1024);

        // Less state after a restart (or a rebalance): the plan keeps what it published.
        ObservedTopology holding10MiB =
                new ObservedTopology(1L, 2L, 6L, 0L, 6L, 12L, 9_000L, JvmCapsUse.NONE, null, 10L << 20, null);
        assertThat(plan(new StreamsSpec(), null, Optional.empty(), Optional.of(holding10MiB), published)
                        .planned()
                        .inMemoryStateBytes())
                .isEqualTo(128L << 20);
        assertThat(plan(new StreamsSpec(), null, Optional.empty(), Optional.empty(), published)
                        .planned()
                        .inMemoryStateBytes())
                .isEqualTo(128L << 20);

        StreamsSpec declared = new StreamsSpec();
        declared.setInMemoryState("300Mi");
        Plan stated = plan(declared, null, Optional.empty(), Optional.of(holding100MiB), published);
        assertThat(sources(stated.learned().facts())).containsEntry("inMemoryState", "300 MiB Declared");
        assertThat(stated.planned().inMemoryStateBytes()).isEqualTo(300L << 20);
    }

    /**
     * The record cache the application sets itself (issue 64): learned from the agents, the largest any pod sets,
     * never below what the published plan learned; dropped once a pod's application sets none; a declared size wins.
     */
    @Test
    void theApplicationsOwnRecordCacheIsLearnedAndDroppedOnceAPodSetsNone() {
        Plan none = plan(new StreamsSpec(), null, Optional.empty(), Optional.of(TWO_PODS), Map.of());
        assertThat(sources(none.learned().facts())).doesNotContainKey("applicationRecordCache");
        assertThat(none.planned().applicationRecordCacheBytes()).isNull();

        Plan off = plan(new StreamsSpec(), null, Optional.empty(), Optional.of(setting(0L)), Map.of());
        assertThat(sources(off.learned().facts())).containsEntry("applicationRecordCache", "0 B Observed");
        assertThat(off.planned().applicationRecordCacheBytes()).isZero();
        Map<String, Integer> published = LearnedAnnotation.parse(off.learned().annotation());
        assertThat(published).containsEntry("applicationRecordCacheKiB", 0);
        // An operator restarted with an empty window plans what it published: no pod is rolled for it.
        assertThat(plan(new StreamsSpec(), null, Optional.empty(), Optional.empty(), published)
                        .planned()
                        .applicationRecordCacheBytes())
                .isZero();

        // A value that is not a whole KiB is rounded up, so the plan's is never below the application's.
        assertThat(plan(new StreamsSpec(), null, Optional.empty(), Optional.of(setting(5_000_000L)), published)
                        .planned()
                        .applicationRecordCacheBytes())
                .isEqualTo(4883L * 1024);

        // A pod whose application sets none runs the plan's cache: the fact goes, whatever was published.
        Plan unset = plan(
                new StreamsSpec(),
                null,
                Optional.empty(),
                Optional.of(setting(AgentReport.RECORD_CACHE_LEFT_TO_PLAN)),
                published);
        assertThat(sources(unset.learned().facts())).doesNotContainKey("applicationRecordCache");
        assertThat(unset.planned().applicationRecordCacheBytes()).isNull();
        assertThat(LearnedAnnotation.parse(unset.learned().annotation()))
                .doesNotContainKey("applicationRecordCacheKiB");

        StreamsSpec declared = new StreamsSpec();
        declared.setRecordCache("2Mi");
        Plan stated = plan(declared, null, Optional.empty(), Optional.of(setting(0L)), Map.of());
        assertThat(sources(stated.learned().facts())).containsEntry("applicationRecordCache", "2 MiB Declared");
        assertThat(stated.planned().applicationRecordCacheBytes()).isEqualTo(2L << 20);
    }

    /** TWO_PODS with the applications setting {@code bytes} as their record cache. */
    private static ObservedTopology setting(long bytes) {
        return new ObservedTopology(
                1L, 2L, 6L, 6L, 6L, 18L, 9_000L, new JvmCapsUse(null, null, null, 8L << 20), null, null, bytes);
    }

    private static Plan plan(
            StreamsSpec declared,
            JvmSpec jvm,
            Optional<Integer> threadsAnnotation,
            Optional<ObservedTopology> seen,
            Map<String, Integer> before) {
        WorkloadFacts.Builder builder = WorkloadFacts.builder().memoryBytes(1L << 30);
        LearnedFacts learned = LearnedFacts.apply(declared, jvm, threadsAnnotation, seen, before, builder);
        return new Plan(learned, builder.build());
    }

    private static Map<String, String> sources(List<LearnedFacts.Fact> facts) {
        return facts.stream()
                .collect(Collectors.toMap(
                        LearnedFacts.Fact::name,
                        f -> f.value() + " " + f.source(),
                        (a, b) -> a,
                        java.util.LinkedHashMap::new));
    }
}
