package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.ObservedJvm;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.api.JvmSizing;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.observe.ObservedTopology;
import io.streamsmemory.operator.plan.LearnedAnnotation;
import io.streamsmemory.operator.plan.LearnedCaps;
import io.streamsmemory.operator.plan.LearnedFacts;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** spec.jvm.sizing: Observed: the peaks a plan learns its caps from, and the guard that restores the model's. */
class LearnedJvmCapsTest {
    private static final JvmCapsUse PEAKS = new JvmCapsUse(40L * MiB, 20L * MiB, 46L);
    private static final ObservedTopology SEEN =
            new ObservedTopology(1L, 2L, 6L, 0L, 6L, 12L, 9_000L, PEAKS, null, null, null);

    @Test
    void observedSizingPlansFromThePeaksAndTheyOnlyGrow() {
        WorkloadFacts.Builder builder = builder();
        LearnedFacts learned = apply(observed(), Optional.of(SEEN), Map.of(), builder);

        assertThat(builder.build().observedJvm()).isEqualTo(new ObservedJvm(40L * MiB, 20L * MiB, 46));
        assertThat(fact(learned))
                .isEqualTo("learned from peaks: metaspace 40 MiB, code cache 20 MiB, 46 threads, the model's headroom "
                        + "until a pod has run the settle time Observed");
        assertThat(learned.annotation()).contains("metaspacePeakKiB=40960", "codeCachePeakKiB=20480", "liveThreads=46");

        // A restarted operator sees smaller peaks (a JVM just started): the published plan's stay.
        WorkloadFacts.Builder again = builder();
        ObservedTopology fresh = new ObservedTopology(
                1L, 2L, 6L, 0L, 6L, 12L, 9_000L, new JvmCapsUse(10L * MiB, 5L * MiB, 30L), null, null, null);
        apply(observed(), Optional.of(fresh), LearnedAnnotation.parse(learned.annotation()), again);
        assertThat(again.build().observedJvm()).isEqualTo(new ObservedJvm(40L * MiB, 20L * MiB, 46));
    }

    @Test
    void untilAPodReportsTheModelsCapsAreProvisionalAndDeclaredSizingLearnsNothing() {
        WorkloadFacts.Builder waiting = builder();
        LearnedFacts provisional = apply(observed(), Optional.empty(), Map.of(), waiting);
        assertThat(waiting.build().observedJvm()).isNull();
        assertThat(fact(provisional)).isEqualTo("the model's until a pod reports Default");
        assertThat(provisional.provisional()).contains("jvmCaps");

        WorkloadFacts.Builder declared = builder();
        LearnedFacts model = apply(new JvmSpec(), Optional.of(SEEN), Map.of(), declared);
        assertThat(declared.build().observedJvm()).isNull();
        assertThat(model.facts()).noneMatch(f -> f.name().equals("jvmCaps"));
        assertThat(model.annotation()).doesNotContain("PeakKiB");
    }

    @Test
    void aPodUsingNinetyPercentOfALearnedCapRestoresTheModelsCapsForGood() {
        Map<String, Integer> published =
                Map.of("metaspacePeakKiB", 40960, "codeCachePeakKiB", 20480, "liveThreads", 46);
        AllocationDocument plan = document(List.of("-XX:MaxMetaspaceSize=50m", "-XX:ReservedCodeCacheSize=32m"));

        // 44 MiB of a 50 MiB cap is 88%: within. 45 MiB is 90%: crossed.
        assertThat(LearnedCapsGuard.check(published, plan, new JvmCapsUse(44L * MiB, 20L * MiB, 46L)))
                .isEmpty();
        LearnedCapsGuard.Crossing crossing = LearnedCapsGuard.check(
                        published, plan, new JvmCapsUse(45L * MiB, 20L * MiB, 46L))
                .orElseThrow();
        assertThat(crossing.alreadyRestored()).isFalse();
        assertThat(crossing.message())
                .contains("a pod's metaspace reached 45 MiB, 90% of its learned 50 MiB cap")
                .contains("restoring the model's caps at once");

        // The next plan takes the model's caps, and keeps them whatever the pods report later.
        Map<String, Integer> restored = LearnedCaps.restored(published, 50, 32, 0);
        WorkloadFacts.Builder builder = builder();
        LearnedFacts learned = apply(observed(), Optional.of(SEEN), restored, builder);
        assertThat(builder.build().observedJvm()).isNull();
        assertThat(fact(learned)).isEqualTo("the model's: a pod used 90% of a learned cap Restored");
        assertThat(learned.provisional()).doesNotContain("jvmCaps");
        Map<String, Integer> next = LearnedAnnotation.parse(learned.annotation());
        assertThat(next).containsEntry("jvmCapsRestored", 1).doesNotContainKey("metaspacePeakKiB");

        // MemoryPressure holds while the window keeps the peak above 90% of the restored cap; nothing more restores.
        LearnedCapsGuard.Crossing holding = LearnedCapsGuard.check(
                        next, null, new JvmCapsUse(45L * MiB, 20L * MiB, 46L))
                .orElseThrow();
        assertThat(holding.alreadyRestored()).isTrue();
        assertThat(holding.message()).contains("the model's caps are restored");
    }

    @Test
    void theHeadroomIsLearnedFromSettledPodsInStepsOnlyGrowsAndNinetyPercentOfItRestoresTheModels() {
        // A settled pod held 100 MiB + 1 B beyond its bounded parts: planned from 112 MiB (16 MiB steps).
        ObservedTopology settled = new ObservedTopology(
                1L,
                2L,
                6L,
                0L,
                6L,
                12L,
                9_000L,
                new JvmCapsUse(40L * MiB, 20L * MiB, 46L, null, 100L * MiB + 1),
                null,
                null,
                null);
        WorkloadFacts.Builder builder =
                builder().memoryBytes(2L << 30).streamThreads(2).tasksPerPod(6);
        LearnedFacts learned = apply(observed(), Optional.of(settled), Map.of(), builder);
        WorkloadFacts facts = builder.build();
        assertThat(facts.observedJvm()).isEqualTo(new ObservedJvm(40L * MiB, 20L * MiB, 46, 112L * MiB));
        assertThat(fact(learned)).endsWith("46 threads, 112 MiB held beyond the bounded parts Observed");
        Map<String, Integer> published = LearnedAnnotation.parse(learned.annotation());
        assertThat(published).containsEntry("headroomPeakKiB", 112 * 1024);

        // A restarted operator, or pods not settled yet, report less or nothing: the published figure stays.
        WorkloadFacts.Builder again =
                builder().memoryBytes(2L << 30).streamThreads(2).tasksPerPod(6);
        apply(observed(), Optional.of(SEEN), published, again);
        assertThat(again.build().observedJvm().headroomBytes()).isEqualTo(112L * MiB);

        // The plan's headroom: 112 x 1.25 = 140 MiB, below the model's 192 MiB at 2 GiB. 90% of it is 126 MiB.
        AllocationDocument plan = new AllocationDocument(
                null, null, 0, null, null, 0, facts, null, null, null, List.of(), null, null, null);
        assertThat(LearnedCapsGuard.check(published, plan, new JvmCapsUse(40L * MiB, 20L * MiB, 46L, null, 125L * MiB)))
                .isEmpty();
        LearnedCapsGuard.Crossing crossing = LearnedCapsGuard.check(
                        published, plan, new JvmCapsUse(40L * MiB, 20L * MiB, 46L, null, 126L * MiB))
                .orElseThrow();
        assertThat(crossing.message())
                .contains("a pod's resident memory beyond the bounded parts reached 126 MiB, 90% of its learned 140 "
                        + "MiB headroom");
        assertThat(crossing.headroomMiB()).isEqualTo(140);
        Map<String, Integer> restored = LearnedCaps.restored(published, 0, 0, crossing.headroomMiB());
        WorkloadFacts.Builder back = builder().memoryBytes(2L << 30);
        apply(observed(), Optional.of(settled), restored, back);
        assertThat(back.build().observedJvm()).isNull();
        assertThat(LearnedCapsGuard.check(
                                LearnedAnnotation.parse("jvmCapsRestored=1,restoredHeadroomMiB=140"),
                                null,
                                new JvmCapsUse(40L * MiB, 20L * MiB, 46L, null, 126L * MiB))
                        .orElseThrow()
                        .alreadyRestored())
                .isTrue();

        // A pod that holds more than the model's headroom gets the model's: no learned bound, nothing to restore.
        WorkloadFacts busy = builder()
                .memoryBytes(2L << 30)
                .streamThreads(2)
                .tasksPerPod(6)
                .observedJvm(new ObservedJvm(40L * MiB, 20L * MiB, 46, 300L * MiB))
                .build();
        AllocationDocument modelHeadroom = new AllocationDocument(
                null, null, 0, null, null, 0, busy, null, null, null, List.of(), null, null, null);
        assertThat(LearnedCapsGuard.check(
                        published, modelHeadroom, new JvmCapsUse(40L * MiB, 20L * MiB, 46L, null, 400L * MiB)))
                .isEmpty();
    }

    @Test
    void aPlanThatLearnedNoCapsIsNeverRestored() {
        AllocationDocument plan = document(List.of("-XX:MaxMetaspaceSize=50m", "-XX:ReservedCodeCacheSize=32m"));
        assertThat(LearnedCapsGuard.check(Map.of("threads", 2), plan, new JvmCapsUse(49L * MiB, 31L * MiB, 46L)))
                .isEmpty();
    }

    private static LearnedFacts apply(
            JvmSpec jvm, Optional<ObservedTopology> seen, Map<String, Integer> before, WorkloadFacts.Builder builder) {
        return LearnedFacts.apply(new StreamsSpec(), jvm, Optional.empty(), seen, before, builder);
    }

    private static JvmSpec observed() {
        JvmSpec jvm = new JvmSpec();
        jvm.setSizing(JvmSizing.Observed);
        return jvm;
    }

    private static WorkloadFacts.Builder builder() {
        return WorkloadFacts.builder().memoryBytes(1L << 30);
    }

    private static String fact(LearnedFacts learned) {
        return learned.facts().stream()
                .filter(f -> f.name().equals("jvmCaps"))
                .map(f -> f.value() + " " + f.source())
                .findFirst()
                .orElseThrow();
    }

    private static AllocationDocument document(List<String> jvmOptions) {
        return new AllocationDocument(
                null, null, 0, null, null, 0, null, null, null, null, jvmOptions, null, null, null);
    }
}
