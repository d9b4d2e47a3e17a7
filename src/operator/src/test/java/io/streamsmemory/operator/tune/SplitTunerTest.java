package io.streamsmemory.operator.tune;

import static io.streamsmemory.engine.ByteSize.KiB;
import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.operator.observe.TuningSignals;
import io.streamsmemory.operator.tune.SplitTuner.Decision;
import io.streamsmemory.operator.tune.SplitTuner.Kind;
import io.streamsmemory.operator.tune.TuningState.Fractions;
import io.streamsmemory.operator.tune.TuningState.Share;
import io.streamsmemory.operator.tune.TuningState.Signal;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tuning rules: each signal, its step, the bounds, the judgement and the undo. */
class SplitTunerTest {
    private static final Instant NOW = Instant.parse("2026-12-04T18:00:00Z");
    private static final Duration SETTLE = Duration.ofMinutes(10);
    private static final long SETTLED = SETTLE.toMillis();
    private static final long MEMTABLE = 4 * MiB;
    private static final TuningState START = TuningState.NONE.under(1);

    private static TuningSignals quiet(String hash) {
        return new TuningSignals(hash, SETTLED, 0.01, 0.0, 3 * MiB, 1.0 * MiB);
    }

    private static Decision decide(TuningState state, TuningSignals signals) {
        return decide(state, signals, Set.of());
    }

    private static Decision decide(TuningState state, TuningSignals signals, Set<Share> forced) {
        return SplitTuner.decide(state, signals, "h1", MEMTABLE, forced, NOW, SETTLE);
    }

    @Test
    void quietPodsMoveNothing() {
        assertThat(decide(START, quiet("h1")).kind()).isEqualTo(Kind.NONE);
        assertThat(decide(START, null).kind()).isEqualTo(Kind.NONE);
    }

    @Test
    void onlySettledPodsOfTheCurrentAllocationJudge() {
        TuningSignals stalled = new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0);
        assertThat(decide(START, stalled).kind()).isEqualTo(Kind.STEP);
        assertThat(decide(START, new TuningSignals("h0", SETTLED, 0.01, 0.30, 3 * MiB, 0.0))
                        .kind())
                .as("pods still on the previous allocation")
                .isEqualTo(Kind.NONE);
        assertThat(decide(START, new TuningSignals("h1", SETTLED - 1, 0.01, 0.30, 3 * MiB, 0.0))
                        .kind())
                .as("pods that have not run long enough")
                .isEqualTo(Kind.NONE);
    }

    @Test
    void podsOnAnotherAllocationWithTheSameSplitJudgeItButNotThoseOfTheSplitBefore() {
        TuningState published = START.published("h0", false).published("h1", false);
        assertThat(published.splitHashes()).containsExactly("h0", "h1");
        TuningSignals stalledOnH0 = new TuningSignals("h0", SETTLED, 0.01, 0.30, 3 * MiB, 0.0);
        Decision step = decide(published, stalledOnH0);
        assertThat(step.kind()).as("h0 ran the same split, with other JVM caps").isEqualTo(Kind.STEP);
        TuningState afterStep = step.state().published("h2", true);
        assertThat(afterStep.splitHashes()).containsExactly("h2");
        assertThat(SplitTuner.decide(afterStep, stalledOnH0, "h2", MEMTABLE, Set.of(), NOW, SETTLE)
                        .kind())
                .as("h0 ran the split before the step: it cannot judge it")
                .isEqualTo(Kind.NONE);
    }

    @Test
    void writeStallsGiveTheMemtablesAStepOfTheCache() {
        Decision step = decide(START, new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0));
        assertThat(step.kind()).isEqualTo(Kind.STEP);
        assertThat(step.state().split()).isEqualTo(new Fractions(null, 0.417, null));
        assertThat(step.state().pending().signal()).isEqualTo(Signal.WRITE_STALLS);
        assertThat(step.message())
                .startsWith("writes stalled 30.0% of the time (over 5.0%): write buffers' share of the block cache "
                        + "33.3% -> 41.7%");
        assertThat(step.state().tunedSplit().writeBufferFraction()).isEqualTo(0.417);
        assertThat(step.state().tunedSplit().reason()).isEqualTo(step.message());
    }

    @Test
    void smallFlushesDoTheSame() {
        Decision step = decide(START, new TuningSignals("h1", SETTLED, 0.01, 0.0, 200 * KiB, 0.0));
        assertThat(step.kind()).isEqualTo(Kind.STEP);
        assertThat(step.state().pending().signal()).isEqualTo(Signal.SMALL_FLUSHES);
        assertThat(step.state().split().writeBuffers()).isEqualTo(0.417);
        assertThat(step.message()).startsWith("memtable flushes of 200 KiB on average, under a quarter of the 4 MiB");
    }

    @Test
    void gcPausesTakeFromTheRecordCacheFirstThenFromRocksDb() {
        TuningSignals gc = new TuningSignals("h1", SETTLED, 0.25, 0.0, 3 * MiB, 0.0);
        Decision step = decide(START, gc);
        assertThat(step.state().split()).isEqualTo(new Fractions(null, null, 0.15));
        Decision forcedCache = decide(START, gc, EnumSet.of(Share.RECORD_CACHE));
        assertThat(forcedCache.state().split()).isEqualTo(new Fractions(0.35, null, null));
        assertThat(decide(START, gc, EnumSet.of(Share.RECORD_CACHE, Share.ROCKSDB))
                        .kind())
                .as("both shares forced by the user's overrides")
                .isEqualTo(Kind.NONE);
    }

    @Test
    void manyStorageReadsGiveDataBlocksTheMemtablesStep() {
        Decision step = decide(START, new TuningSignals("h1", SETTLED, 0.01, 0.0, 3 * MiB, 70.0 * MiB));
        assertThat(step.state().split()).isEqualTo(new Fractions(null, 0.25, null));
        assertThat(step.state().pending().signal()).isEqualTo(Signal.STORAGE_READS);
    }

    @Test
    void aShareStopsAtItsBound() {
        TuningState atMost = new TuningState(1, new Fractions(null, 0.417, null), "r", null, Set.of(), null, null);
        assertThat(decide(atMost, new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0))
                        .kind())
                .isEqualTo(Kind.NONE);
        TuningState cacheAtLeast = new TuningState(1, new Fractions(0.25, null, 0.05), "r", null, Set.of(), null, null);
        assertThat(decide(cacheAtLeast, new TuningSignals("h1", SETTLED, 0.5, 0.0, 3 * MiB, 0.0))
                        .kind())
                .isEqualTo(Kind.NONE);
        TuningState nearBound = new TuningState(1, new Fractions(null, 0.38, null), "r", null, Set.of(), null, null);
        assertThat(decide(nearBound, new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0))
                        .state()
                        .split()
                        .writeBuffers())
                .isEqualTo(0.417);
    }

    @Test
    void aStepThatHelpsIsKeptAndItsShareNeverMovesBack() {
        Decision step = decide(START, new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0));
        Decision kept = decide(step.state(), new TuningSignals("h1", SETTLED, 0.01, 0.10, 3 * MiB, 0.0));
        assertThat(kept.kind()).isEqualTo(Kind.KEPT);
        assertThat(kept.state().pending()).isNull();
        assertThat(kept.state().split().writeBuffers()).isEqualTo(0.417);
        assertThat(kept.state().directions()).containsEntry(Share.WRITE_BUFFERS, +1);
        assertThat(kept.message()).contains("write stalls 30.0% -> 10.0%");
        // Reads now above the bound would take the memtables' share down: not after it went up.
        assertThat(decide(kept.state(), new TuningSignals("h1", SETTLED, 0.01, 0.0, 3 * MiB, 70.0 * MiB))
                        .kind())
                .isEqualTo(Kind.NONE);
    }

    @Test
    void aStepThatDoesNotHelpIsUndoneAndItsSignalIsLeftAlone() {
        TuningSignals stalled = new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0);
        Decision step = decide(START, stalled);
        Decision undone = decide(step.state(), new TuningSignals("h1", SETTLED, 0.01, 0.28, 3 * MiB, 0.0));
        assertThat(undone.kind()).isEqualTo(Kind.UNDONE);
        assertThat(undone.state().split()).isEqualTo(Fractions.MODEL);
        assertThat(undone.state().tunedSplit()).isNull();
        assertThat(undone.state().undone()).containsExactly(Signal.WRITE_STALLS);
        assertThat(undone.message()).startsWith("undid write buffers' share of the block cache 33.3% -> 41.7%");
        assertThat(decide(undone.state(), stalled).kind())
                .as("the same signal under the same generation")
                .isEqualTo(Kind.NONE);
        assertThat(decide(undone.state().under(2), stalled).kind())
                .as("the policy changed")
                .isEqualTo(Kind.STEP);
    }

    @Test
    void aFlushStepIsJudgedByTheFlushesGrowing() {
        Decision step = decide(START, new TuningSignals("h1", SETTLED, 0.01, 0.0, 200 * KiB, 0.0));
        assertThat(decide(step.state(), new TuningSignals("h1", SETTLED, 0.01, 0.0, 400 * KiB, 0.0))
                        .kind())
                .isEqualTo(Kind.KEPT);
        assertThat(decide(step.state(), new TuningSignals("h1", SETTLED, 0.01, 0.0, 210 * KiB, 0.0))
                        .kind())
                .isEqualTo(Kind.UNDONE);
    }

    @Test
    void theStateSurvivesItsAnnotationAndABadOneIsTheModels() {
        Decision step = decide(START, new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0));
        assertThat(TuningState.parse(step.state().annotation())).isEqualTo(step.state());
        assertThat(TuningState.NONE.annotation()).isEmpty();
        assertThat(TuningState.parse("{not json")).isEqualTo(TuningState.NONE);
        assertThat(TuningState.parse("{\"generation\":1,\"split\":{\"writeBuffers\":0.95}}"))
                .as("a share past the tuner's bound, edited by hand")
                .isEqualTo(TuningState.NONE);
        assertThat(TuningState.parse(null)).isEqualTo(TuningState.NONE);
    }

    // Issue 64: a step is judged by what the user sees; the figure that took it only explains it.

    /** Writes stalled 30% of the time, with what the user sees at the step. */
    private static TuningSignals stalledSeeing(Long lag, Double cpuNanosPerRecord) {
        return new TuningSignals("h1", SETTLED, 0.01, 0.30, 3 * MiB, 0.0, lag, cpuNanosPerRecord);
    }

    /** The pods running the step: their stalls, lag and CPU per record. */
    private static TuningSignals afterTheStep(double stallShare, Long lag, Double cpuNanosPerRecord) {
        return new TuningSignals("h1", SETTLED, 0.01, stallShare, 3 * MiB, 0.0, lag, cpuNanosPerRecord);
    }

    @Test
    void theStepRecordsWhatTheUserSawAndTheAnnotationKeepsIt() {
        Decision step = decide(START, stalledSeeing(50_000L, 120_000.0));
        assertThat(step.state().pending().lagBefore()).isEqualTo(50_000L);
        assertThat(step.state().pending().cpuPerRecordBefore()).isEqualTo(120_000.0);
        assertThat(TuningState.parse(step.state().annotation())).isEqualTo(step.state());
    }

    @Test
    void behindItsInputAStepAfterWhichTheLagGrewIsUndoneThoughItsOwnFigureImproved() {
        Decision step = decide(START, stalledSeeing(50_000L, 120_000.0));
        Decision undone = decide(step.state(), afterTheStep(0.10, 80_000L, 100_000.0));
        assertThat(undone.kind()).isEqualTo(Kind.UNDONE);
        assertThat(undone.state().split()).isEqualTo(Fractions.MODEL);
        assertThat(undone.state().undone()).containsExactly(Signal.WRITE_STALLS);
        assertThat(undone.message())
                .isEqualTo("undid write buffers' share of the block cache 33.3% -> 41.7%: consumer lag 50000 -> 80000"
                        + " records, grew (decided by it: behind, over 10000 records); write stalls 30.0% -> 10.0%;"
                        + " write stalls is not acted on again until the policy changes");
        // The row says it until the next step, also from the annotation a restarted operator reads.
        assertThat(undone.state().said()).isEqualTo(undone.message());
        assertThat(TuningState.parse(undone.state().annotation()).said()).isEqualTo(undone.message());
        Decision next = decide(undone.state(), new TuningSignals("h1", SETTLED, 0.25, 0.0, 3 * MiB, 0.0));
        assertThat(next.kind()).isEqualTo(Kind.STEP);
        assertThat(next.state().said()).isEqualTo(next.message());
    }

    @Test
    void behindItsInputAStepAfterWhichTheLagDidNotGrowIsKeptThoughItsOwnFigureDidNotMove() {
        Decision step = decide(START, stalledSeeing(50_000L, 120_000.0));
        Decision kept = decide(step.state(), afterTheStep(0.29, 20_000L, 130_000.0));
        assertThat(kept.kind()).isEqualTo(Kind.KEPT);
        assertThat(kept.state().split().writeBuffers()).isEqualTo(0.417);
        assertThat(kept.message())
                .isEqualTo("kept write buffers' share of the block cache 41.7%: consumer lag 50000 -> 20000 records,"
                        + " did not grow (decided by it: behind, over 10000 records); write stalls 30.0% -> 29.0%");
    }

    @Test
    void anApplicationThatFellBehindAfterTheStepJudgesItByItsLag() {
        Decision step = decide(START, stalledSeeing(500L, 120_000.0));
        Decision undone = decide(step.state(), afterTheStep(0.10, 40_000L, 90_000.0));
        assertThat(undone.kind()).isEqualTo(Kind.UNDONE);
        assertThat(undone.message()).contains("consumer lag 500 -> 40000 records, grew");
    }

    @Test
    void keepingUpAStepAfterWhichTheCpuPerRecordFellIsKept() {
        Decision step = decide(START, stalledSeeing(500L, 120_000.0));
        Decision kept = decide(step.state(), afterTheStep(0.29, 900L, 108_000.0));
        assertThat(kept.kind()).isEqualTo(Kind.KEPT);
        assertThat(kept.message())
                .isEqualTo("kept write buffers' share of the block cache 41.7%: CPU per record 120.0 us -> 108.0 us,"
                        + " at least 5% lower (decided by it: keeping up, lag 500 -> 900 records);"
                        + " write stalls 30.0% -> 29.0%");
    }

    @Test
    void keepingUpAStepAfterWhichTheCpuPerRecordRoseOrBarelyFellIsUndone() {
        Decision step = decide(START, stalledSeeing(500L, 120_000.0));
        Decision rose = decide(step.state(), afterTheStep(0.05, 300L, 130_000.0));
        assertThat(rose.kind()).isEqualTo(Kind.UNDONE);
        assertThat(rose.message())
                .isEqualTo("undid write buffers' share of the block cache 33.3% -> 41.7%: CPU per record 120.0 us ->"
                        + " 130.0 us, not 5% lower (decided by it: keeping up, lag 500 -> 300 records);"
                        + " write stalls 30.0% -> 5.0%; write stalls is not acted on again until the policy changes");
        assertThat(decide(step.state(), afterTheStep(0.05, 300L, 116_000.0)).kind())
                .as("3% lower: within the noise")
                .isEqualTo(Kind.UNDONE);
    }

    @Test
    void withoutTheLagTheCpuPerRecordDecides() {
        Decision step = decide(START, stalledSeeing(null, 120_000.0));
        Decision kept = decide(step.state(), afterTheStep(0.29, null, 100_000.0));
        assertThat(kept.kind()).isEqualTo(Kind.KEPT);
        assertThat(kept.message())
                .contains("CPU per record 120.0 us -> 100.0 us, at least 5% lower (decided by it:"
                        + " the consumer lag unknown)");
    }

    @Test
    void aStepTakenWithTheUsersFiguresWaitsForThemOnThePodsRunningIt() {
        Decision step = decide(START, stalledSeeing(50_000L, 120_000.0));
        // Restarted on the step and still restoring: no fetch, nothing processed, no stall.
        Decision restoring = decide(step.state(), afterTheStep(0.0, null, null));
        assertThat(restoring.kind()).isEqualTo(Kind.NONE);
        assertThat(restoring.state()).isEqualTo(step.state());
        assertThat(decide(step.state(), afterTheStep(0.0, 90_000L, null)).kind())
                .as("then its lag is known, and grew")
                .isEqualTo(Kind.UNDONE);
    }

    @Test
    void withoutTheUsersFiguresTheStepsOwnFigureDecidesAndTheMessageSaysSo() {
        Decision step = decide(START, stalledSeeing(null, null));
        Decision kept = decide(step.state(), afterTheStep(0.10, 80_000L, 200_000.0));
        assertThat(kept.kind()).as("known after the step only: not comparable").isEqualTo(Kind.KEPT);
        assertThat(kept.message())
                .isEqualTo("kept write buffers' share of the block cache 41.7%: write stalls 30.0% -> 10.0% (decided"
                        + " by it: neither the consumer lag nor the CPU per record known)");
        Decision undone = decide(step.state(), afterTheStep(0.28, null, null));
        assertThat(undone.kind()).isEqualTo(Kind.UNDONE);
        assertThat(undone.message())
                .contains("write stalls 30.0% -> 28.0%, not 10% better (decided by it: neither the consumer lag nor"
                        + " the CPU per record known)");
    }

    /** A state the operator before issue 64 wrote: its pending step has no lag or CPU; it reads, the old rule judges. */
    @Test
    void aStepWrittenByThePreviousOperatorStillReadsAndItsOwnFigureJudgesIt() {
        String previous = "{\"generation\":1,\"split\":{\"writeBuffers\":0.417},\"reason\":\"stalls\","
                + "\"pending\":{\"signal\":\"WRITE_STALLS\",\"figureBefore\":0.3,\"share\":\"WRITE_BUFFERS\","
                + "\"direction\":1,\"from\":{},\"at\":\"2026-12-04T18:00:00Z\"},\"splitHashes\":[\"h1\"]}";
        TuningState state = TuningState.parse(previous);
        assertThat(state.pending()).isNotNull();
        assertThat(state.pending().lagBefore()).isNull();
        assertThat(state.pending().cpuPerRecordBefore()).isNull();
        assertThat(state.split().writeBuffers()).isEqualTo(0.417);
        Decision kept = decide(state, afterTheStep(0.10, 500L, 100_000.0));
        assertThat(kept.kind()).isEqualTo(Kind.KEPT);
        assertThat(kept.message()).contains("neither the consumer lag nor the CPU per record known");
    }
}
