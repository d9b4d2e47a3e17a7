package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.observe.CrashLoop;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.plan.LearnedAnnotation;
import io.streamsmemory.operator.plan.LearnedCaps;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When a cap in force is lifted: a crash loop (named or not) or a pod at 90% of a cap learned from the reports. */
class JvmCapLiftsTest {
    /** 1 GiB, declared 15,000 classes: -XX:MaxMetaspaceSize=97m and a direct memory cap. */
    static final AllocationDocument CAPPED = document(Set.of());

    static final Map<String, Integer> LEARNED = Map.of(LearnedAnnotation.LOADED_CLASSES, 15_000);

    @Test
    void aCrashLoopLiftsTheCapItsMessageNamesOrEveryCapWhenItNamesNone() {
        CrashLoop metaspace = new CrashLoop("app-1", "streams", 2, 1, "java.lang.OutOfMemoryError: Metaspace");
        JvmCapLifts.Lift lift = JvmCapLifts.check(CAPPED, Map.of(), Optional.of(metaspace), JvmCapsUse.NONE)
                .orElseThrow();
        assertThat(lift.caps()).containsExactly(JvmCap.METASPACE);
        assertThat(lift.message()).contains("restarted 2 times", "lifting -XX:MaxMetaspaceSize");
        assertThat(lift.afterCrash()).as("rolls over a rollout in progress").isTrue();

        CrashLoop unnamed = new CrashLoop("app-1", "streams", 3, 1, null);
        assertThat(JvmCapLifts.check(CAPPED, Map.of(), Optional.of(unnamed), JvmCapsUse.NONE)
                        .orElseThrow()
                        .caps())
                .containsExactly(JvmCap.METASPACE, JvmCap.DIRECT_MEMORY);

        // A cap already lifted, or not set at all, is not lifted again: nothing to do.
        Map<String, Integer> liftedBefore = LearnedCaps.lift(Map.of(), Set.of(JvmCap.METASPACE), 1);
        assertThat(JvmCapLifts.check(CAPPED, liftedBefore, Optional.of(metaspace), JvmCapsUse.NONE))
                .isEmpty();
        assertThat(JvmCapLifts.check(
                        document(Set.of(JvmCap.METASPACE, JvmCap.DIRECT_MEMORY)),
                        Map.of(),
                        Optional.of(unnamed),
                        JvmCapsUse.NONE))
                .isEmpty();
    }

    @Test
    void aPodAtNinetyPercentOfACapLearnedFromTheReportsHasItLifted() {
        // 97 MiB cap: 87 MiB is under 90%, 88 MiB over.
        assertThat(JvmCapLifts.check(CAPPED, LEARNED, Optional.empty(), metaspace(87 * MiB)))
                .isEmpty();
        JvmCapLifts.Lift lift = JvmCapLifts.check(CAPPED, LEARNED, Optional.empty(), metaspace(88 * MiB))
                .orElseThrow();
        assertThat(lift.caps()).containsExactly(JvmCap.METASPACE);
        assertThat(lift.message()).contains("learned from the pods' reports", "lifting -XX:MaxMetaspaceSize");
        assertThat(lift.afterCrash()).isFalse();
        // A declared count (nothing learned) is the user's: pressure on it is MemoryPressure's to tell, not a lift.
        assertThat(JvmCapLifts.check(CAPPED, Map.of(), Optional.empty(), metaspace(94 * MiB)))
                .isEmpty();
        // Full (98% and more), any cap was hit: a JVM runs at it.
        JvmCapLifts.Lift hit = JvmCapLifts.check(CAPPED, Map.of(), Optional.empty(), metaspace(96 * MiB))
                .orElseThrow();
        assertThat(hit.caps()).containsExactly(JvmCap.METASPACE);
        assertThat(hit.afterCrash()).isTrue();
    }

    private static JvmCapsUse metaspace(long bytes) {
        return new JvmCapsUse(bytes, null, null, null);
    }

    private static AllocationDocument document(Set<JvmCap> uncapped) {
        WorkloadFacts facts = WorkloadFacts.builder()
                .memoryBytes(1024 * MiB)
                .tasksPerPod(4)
                .stores(new StoreCounts(1, 0, 0))
                .uncappedJvmCaps(uncapped)
                .build();
        return AllocationJson.read(
                AllocationJson.write(new AllocationEngine().allocate(facts).allocation()));
    }
}
