package io.streamsmemory.operator.tune;

import io.streamsmemory.engine.Allocation;
import io.streamsmemory.operator.api.JvmSizing;
import io.streamsmemory.operator.api.OverridesSpec;
import io.streamsmemory.operator.api.SplitTuning;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.observe.TuningSignals;
import io.streamsmemory.operator.plan.FittingPlan;
import io.streamsmemory.operator.tune.TuningState.Share;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A workload's plan with its tuned split: the published tuning state applied to the model's plan, then the tuner's
 * decision on what the pods show. A step whose plan does not fit is not taken; a tuned split that no longer fits
 * (the policy's memory went down, say) gives way to the model's.
 *
 * @param fitted   the plan to publish
 * @param state    the tuning state to publish with it
 * @param decision what the tuner did this time
 */
public record TunedPlan(FittingPlan fitted, TuningState state, SplitTuner.Decision decision) {

    /**
     * @param model      the plan with the model's split
     * @param published  the published tuning annotation, null when none
     * @param generation the policy's {@code metadata.generation}
     * @param signals    what the workload's pods show, null before they report
     */
    public static TunedPlan of(
            StreamsMemoryPolicySpec spec,
            long generation,
            FittingPlan model,
            String published,
            TuningSignals signals,
            Instant now,
            Duration settle) {
        if (!tunes(spec)) {
            return untouched(model, TuningState.NONE);
        }
        TuningState state = TuningState.parse(published).under(generation);
        FittingPlan current = model.withTunedSplit(state.tunedSplit());
        if (!current.result().ok()) {
            state = TuningState.NONE.under(generation);
            current = model;
        }
        if (!current.result().ok()) {
            return untouched(current, state);
        }
        Allocation allocation = current.result().allocation();
        SplitTuner.Decision decision = SplitTuner.decide(
                state,
                signals,
                allocation.hash(),
                allocation.rocksDb() == null ? null : allocation.rocksDb().writeBufferSizeBytes(),
                forced(spec.getOverrides()),
                now,
                settle);
        if (decision.kind() == SplitTuner.Kind.NONE) {
            return untouched(current, state);
        }
        if (decision.kind() == SplitTuner.Kind.KEPT) {
            return new TunedPlan(current, decision.state().published(allocation.hash(), false), decision);
        }
        FittingPlan next = model.withTunedSplit(decision.state().tunedSplit());
        if (!next.result().ok()) {
            return untouched(current, state);
        }
        return new TunedPlan(
                next, decision.state().published(next.result().allocation().hash(), true), decision);
    }

    /** The plan as the state has it; its allocation, when there is one, is one more published with the split. */
    private static TunedPlan untouched(FittingPlan plan, TuningState state) {
        TuningState published = plan.result().ok() && state != TuningState.NONE
                ? state.published(plan.result().allocation().hash(), false)
                : state;
        return new TunedPlan(plan, published, SplitTuner.Decision.none(published));
    }

    /** Tuning is part of the learned plan: a Declared plan is planned from what the policy states alone. */
    static boolean tunes(StreamsMemoryPolicySpec spec) {
        return spec.getTuning() != SplitTuning.Off
                && spec.getJvm() != null
                && spec.getJvm().getSizing() == JvmSizing.Observed;
    }

    /** The shares the user's overrides fix: a fixed heap fixes RocksDB's share too. */
    static Set<Share> forced(OverridesSpec overrides) {
        Set<Share> forced = EnumSet.noneOf(Share.class);
        if (overrides == null) {
            return forced;
        }
        if (overrides.getRocksDbFraction() != null || overrides.getHeap() != null) {
            forced.add(Share.ROCKSDB);
        }
        if (overrides.getWriteBufferFraction() != null) {
            forced.add(Share.WRITE_BUFFERS);
        }
        if (overrides.getRecordCacheFraction() != null) {
            forced.add(Share.RECORD_CACHE);
        }
        return forced;
    }

    /** The shares moved from the model's, as the status row shows them; null while the split is the model's. */
    public String splitText() {
        StringBuilder text = new StringBuilder();
        for (Share share : Share.values()) {
            Double value = state.split().get(share);
            if (value != null) {
                text.append(text.length() == 0 ? "" : ", ")
                        .append(SplitTuner.shareName(share))
                        .append(String.format(Locale.ROOT, " %.1f%%", value * 100));
            }
        }
        return text.length() == 0 ? null : text.toString();
    }
}
