package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.operator.workload.MetadataKeys.LEARNED;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.api.JvmSizing;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.observe.CrashLoop;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.observe.ObservedTopology;
import io.streamsmemory.operator.plan.LearnedAnnotation;
import io.streamsmemory.operator.plan.LearnedCaps;
import io.streamsmemory.operator.reconcile.decide.LearnedCapsGuard.Crossing;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the published plan learned, with the JVM caps' way back applied: a learned cap of Observed sizing crossed
 * (the model's restored, {@link LearnedCapsGuard}) or a cap a JVM hit (lifted, {@link JvmCapLifts}), each told in an
 * Event ({@code told}); and how urgently the plan that follows may roll.
 *
 * @param before  what the next plan learns on top of ({@link LearnedAnnotation})
 * @param crossed a learned cap a pod crossed, held as MemoryPressure
 */
public record CapsSafety(
        Map<String, Integer> before, Optional<Crossing> crossed, RolloutGate.Urgency urgency, List<Told> told) {
    /**
     * @param seen  what the workload's pods reported over the window, empty before any report
     * @param crash an injected container of the workload in a restart loop, if the last round saw one
     */
    static CapsSafety check(
            StreamsMemoryPolicy policy, ConfigMap current, Optional<ObservedTopology> seen, Optional<CrashLoop> crash) {
        // A cap lifted under an earlier generation of the policy is planned again: the user changed the policy.
        int generation = (int)
                Math.max(1, Objects.requireNonNullElse(policy.getMetadata().getGeneration(), 1L));
        Map<String, Integer> published = LearnedCaps.liftsOf(
                LearnedAnnotation.parse(
                        AllocationConfigMap.annotation(current, LEARNED).orElse(null)),
                generation);
        AllocationDocument document = AllocationConfigMap.document(current);
        Optional<Crossing> crossed = observesJvm(policy)
                ? seen.flatMap(topology -> LearnedCapsGuard.check(published, document, topology.jvmCaps()))
                : Optional.empty();
        Map<String, Integer> before = published;
        List<Told> told = new ArrayList<>();
        if (crossed.isPresent() && !crossed.get().alreadyRestored()) {
            Crossing crossing = crossed.get();
            before = LearnedCaps.restored(
                    published, crossing.metaspaceCapMiB(), crossing.codeCacheCapMiB(), crossing.headroomMiB());
            told.add(Told.warning("LearnedCapRestored", crossing.message()));
        }
        Optional<JvmCapLifts.Lift> lift = JvmCapLifts.check(
                document, before, crash, seen.map(ObservedTopology::jvmCaps).orElse(JvmCapsUse.NONE));
        if (lift.isPresent()) {
            before = LearnedCaps.lift(before, lift.get().caps(), generation);
            told.add(Told.warning("JvmCapLifted", lift.get().message()));
        }
        RolloutGate.Urgency urgency = lift.filter(JvmCapLifts.Lift::afterCrash).isPresent()
                ? RolloutGate.Urgency.SUPERSEDE
                : crossed.isPresent() || lift.isPresent() ? RolloutGate.Urgency.NOW : RolloutGate.Urgency.NONE;
        return new CapsSafety(before, crossed, urgency, List.copyOf(told));
    }

    private static boolean observesJvm(StreamsMemoryPolicy policy) {
        return policy.getSpec().getJvm() != null && policy.getSpec().getJvm().getSizing() == JvmSizing.Observed;
    }
}
