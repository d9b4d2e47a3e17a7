package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.ObservedJvm;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.JvmSizing;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.observe.CrashLoop;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.observe.ObservedTopology;
import io.streamsmemory.operator.plan.LearnedAnnotation;
import io.streamsmemory.operator.reconcile.act.WorkloadActor;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.EventRecorder.Type;
import io.streamsmemory.operator.workload.Workload;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The JVM caps' way back before a workload is planned: which learned values the next plan starts from, which learned
 * cap a pod crossed, the Event that tells it, and how much of the rollout gate the plan that follows may skip.
 */
class CapsSafetyTest {
    private static final String PEAKS = "metaspacePeakKiB=40960,codeCachePeakKiB=20480,liveThreads=46";
    private static final CrashLoop METASPACE_CRASH =
            new CrashLoop("orders-app-1", "streams", 3, 1, "java.lang.OutOfMemoryError: Metaspace");

    private final Workload workload = Workload.of(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi"))
            .orElseThrow();
    private final ToldEvents events = new ToldEvents();

    @Test
    void beforeAnyPlanOrReportNothingIsHeldBackAndNothingTold() {
        CapsSafety safety = check(observed(1), null, Optional.empty(), Optional.empty());

        assertThat(safety.before()).isEmpty();
        assertThat(safety.crossed()).isEmpty();
        assertThat(safety.urgency()).isEqualTo(RolloutGate.Urgency.NONE);
        assertThat(events.told()).isEmpty();
    }

    @Test
    void aPodAtNinetyPercentOfALearnedCapRestoresTheModelsCapsAndRollsNow() {
        ConfigMap published = published(learnedFromPeaks(), PEAKS);
        long cap = metaspaceCap(published);

        // Just under 90%: the learned caps stay.
        CapsSafety within = check(observed(1), published, seen(percent(cap, 89)), Optional.empty());
        assertThat(within.before()).isEqualTo(LearnedAnnotation.parse(PEAKS));
        assertThat(within.urgency()).isEqualTo(RolloutGate.Urgency.NONE);
        assertThat(events.told()).isEmpty();

        CapsSafety safety = check(observed(1), published, seen(percent(cap, 90)), Optional.empty());
        LearnedCapsGuard.Crossing crossing = safety.crossed().orElseThrow();
        assertThat(crossing.alreadyRestored()).isFalse();
        assertThat(crossing.metaspaceCapMiB()).isEqualTo(cap / MiB);
        assertThat(safety.before())
                .containsEntry(LearnedAnnotation.CAPS_RESTORED, 1)
                .containsEntry(LearnedAnnotation.RESTORED_METASPACE_CAP_MIB, (int) (cap / MiB))
                .doesNotContainKey(LearnedAnnotation.METASPACE_PEAK_KIB);
        assertThat(safety.urgency()).as("skips the rate limit").isEqualTo(RolloutGate.Urgency.NOW);
        assertThat(events.told())
                .containsExactly(new Told(Type.Warning, "LearnedCapRestored", crossing.message(), crossing.message()));
        assertThat(crossing.message()).contains("a pod's metaspace reached", "restoring the model's caps at once");
    }

    @Test
    void onceRestoredACrossingHoldsAsPressureWithNothingMoreRestoredOrTold() {
        String restored = "jvmCapsRestored=1,restoredMetaspaceCapMiB=50,restoredCodeCacheCapMiB=32";

        CapsSafety safety = check(observed(1), published(capped(), restored), seen(45 * MiB), Optional.empty());

        assertThat(safety.crossed().orElseThrow().alreadyRestored()).isTrue();
        assertThat(safety.crossed().orElseThrow().message()).endsWith("the model's caps are restored");
        assertThat(safety.before()).isEqualTo(LearnedAnnotation.parse(restored));
        assertThat(safety.urgency()).isEqualTo(RolloutGate.Urgency.NOW);
        assertThat(events.told()).isEmpty();
    }

    @Test
    void aDeclaredPolicyHoldsNoLearnedCapAgainstThePods() {
        // The plan learned its caps while the policy was Observed; the user has since declared the sizing.
        ConfigMap published = published(learnedFromPeaks(), PEAKS);
        StreamsMemoryPolicy declared = Fixtures.policy("shop", "orders", "2Gi");

        CapsSafety safety = check(declared, published, seen(percent(metaspaceCap(published), 95)), Optional.empty());

        assertThat(safety.crossed()).isEmpty();
        assertThat(safety.before()).isEqualTo(LearnedAnnotation.parse(PEAKS));
        assertThat(safety.urgency()).isEqualTo(RolloutGate.Urgency.NONE);
        assertThat(events.told()).isEmpty();
    }

    @Test
    void aCrashLoopOnACapLiftsItAtThePolicysGenerationAndSupersedesTheRolloutInProgress() {
        StreamsMemoryPolicy policy = Fixtures.policy("shop", "orders", "2Gi");
        policy.getMetadata().setGeneration(3L);

        CapsSafety safety = check(policy, published(capped(), ""), Optional.empty(), Optional.of(METASPACE_CRASH));

        assertThat(safety.before()).containsExactly(Map.entry(LearnedAnnotation.liftedKey(JvmCap.METASPACE), 3));
        assertThat(safety.crossed()).isEmpty();
        assertThat(safety.urgency()).isEqualTo(RolloutGate.Urgency.SUPERSEDE);
        assertThat(events.told()).hasSize(1);
        Told told = events.told().get(0);
        assertThat(told.type()).isEqualTo(Type.Warning);
        assertThat(told.reason()).isEqualTo("JvmCapLifted");
        assertThat(told.message())
                .startsWith("container streams of pod orders-app-1 restarted 3 times")
                .contains("lifting -XX:MaxMetaspaceSize");
    }

    @Test
    void aCapLearnedFromReportsThatAPodCameNearIsLiftedNowButAfterTheRolloutInProgress() {
        String learned = LearnedAnnotation.LOADED_CLASSES + "=15000";
        ConfigMap published = published(capped(), learned);

        CapsSafety safety = check(
                Fixtures.policy("shop", "orders", "2Gi"),
                published,
                seen(percent(metaspaceCap(published), 90)),
                Optional.empty());

        assertThat(safety.before()).containsEntry(LearnedAnnotation.liftedKey(JvmCap.METASPACE), 1);
        assertThat(safety.urgency()).isEqualTo(RolloutGate.Urgency.NOW);
        assertThat(events.told()).extracting(Told::reason).containsExactly("JvmCapLifted");
        assertThat(events.told().get(0).message()).contains("learned from the pods' reports");
    }

    @Test
    void aLiftUnderAnEarlierGenerationOfThePolicyIsPlannedAgain() {
        ConfigMap published = published(capped(), LearnedAnnotation.liftedKey(JvmCap.METASPACE) + "=1");
        StreamsMemoryPolicy same = Fixtures.policy("shop", "orders", "2Gi");
        same.getMetadata().setGeneration(1L);
        StreamsMemoryPolicy changed = Fixtures.policy("shop", "orders", "2Gi");
        changed.getMetadata().setGeneration(2L);

        assertThat(check(same, published, Optional.empty(), Optional.empty()).before())
                .containsEntry(LearnedAnnotation.liftedKey(JvmCap.METASPACE), 1);
        CapsSafety again = check(changed, published, Optional.empty(), Optional.empty());
        assertThat(again.before()).doesNotContainKey(LearnedAnnotation.liftedKey(JvmCap.METASPACE));
        assertThat(again.urgency()).isEqualTo(RolloutGate.Urgency.NONE);
        assertThat(events.told()).isEmpty();
    }

    private CapsSafety check(
            StreamsMemoryPolicy policy,
            ConfigMap published,
            Optional<ObservedTopology> seen,
            Optional<CrashLoop> crash) {
        CapsSafety safety = CapsSafety.check(policy, published, seen, crash);
        safety.told().forEach(told -> WorkloadActor.post(told, events, workload.resource()));
        return safety;
    }

    /** A policy of {@code spec.jvm.sizing: Observed} at {@code generation}. */
    private static StreamsMemoryPolicy observed(long generation) {
        StreamsMemoryPolicy policy = Fixtures.policy("shop", "orders", "2Gi");
        JvmSpec jvm = new JvmSpec();
        jvm.setSizing(JvmSizing.Observed);
        policy.getSpec().setJvm(jvm);
        policy.getMetadata().setGeneration(generation);
        return policy;
    }

    /** The pods' most metaspace over the window; nothing else of the JVM reported. */
    private static Optional<ObservedTopology> seen(long metaspaceBytes) {
        return Optional.of(new ObservedTopology(
                1L, 2L, 6L, 0L, 6L, 12L, 9_000L, new JvmCapsUse(metaspaceBytes, null, null), null, null, null));
    }

    /** {@code percent}% of {@code bytes}, rounded up: at least that share. */
    private static long percent(long bytes, long percent) {
        return (bytes * percent + 99) / 100;
    }

    /** 1 GiB, 4 tasks of one key-value store: the model's metaspace and direct memory caps. */
    private static WorkloadFacts.Builder capped() {
        return WorkloadFacts.builder().memoryBytes(1024 * MiB).tasksPerPod(4).stores(new StoreCounts(1, 0, 0));
    }

    /** {@link #capped}, its caps planned from the peaks in {@link #PEAKS}. */
    private static WorkloadFacts.Builder learnedFromPeaks() {
        return capped().observedJvm(new ObservedJvm(40 * MiB, 20 * MiB, 46));
    }

    /** The ConfigMap the operator published for the plan of {@code facts}, with the learned-facts annotation. */
    private ConfigMap published(WorkloadFacts.Builder facts, String learned) {
        return AllocationConfigMap.desired(
                "orders",
                workload,
                new AllocationEngine().allocate(facts.build()).allocation(),
                learned);
    }

    /** The published plan's metaspace cap, in bytes. */
    private static long metaspaceCap(ConfigMap published) {
        String flag = JvmCap.METASPACE.flag() + "=";
        return AllocationConfigMap.document(published).jvmOptions().stream()
                .filter(option -> option.startsWith(flag))
                .map(option -> ByteSize.parseJvmSize(option.substring(flag.length())))
                .findFirst()
                .orElseThrow();
    }
}
