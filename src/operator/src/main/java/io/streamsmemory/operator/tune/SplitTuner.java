package io.streamsmemory.operator.tune;

import static io.streamsmemory.engine.ByteSize.MiB;

import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.operator.observe.TuningSignals;
import io.streamsmemory.operator.tune.TuningState.Fractions;
import io.streamsmemory.operator.tune.TuningState.Share;
import io.streamsmemory.operator.tune.TuningState.Signal;
import io.streamsmemory.operator.tune.TuningState.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The rules by which the operator moves a workload's split from what its pods show (docs/model.md, "Tuning the
 * split"). One bounded step per judgement: the engine then plans the whole pod again, so the total never changes;
 * the pods running the step judge it by what the user sees (the consumer lag of an application behind its input, the
 * CPU per record of one that keeps up; the figure that took it when neither is known), and a step that did not help
 * is undone and its signal not acted on again until the policy changes. A share the user forced is never moved, and a
 * moved share never moves back. Pure: the reconciler feeds it and publishes what it returns.
 */
public final class SplitTuner {
    /** More than this share of a pod's time in GC pauses: the heap is short. */
    static final double GC_SHARE_MAX = 0.10;
    /** More than this share of a pod's time with writes stalled: the memtables are short. */
    static final double STALL_SHARE_MAX = 0.05;
    /** Flushes averaging under this part of a memtable: the WriteBufferManager flushes them before they fill. */
    static final long SMALL_FLUSH_DIVISOR = 4;
    /** More than this read from storage a second: blocks the cache does not hold are read again and again. */
    static final double STORAGE_READS_MAX = 16.0 * MiB;
    /** A step helped when its figure moved this much the right way (the rule when the user's figures are unknown). */
    static final double IMPROVEMENT = 0.10;
    /**
     * An application whose main consumers trail their input by more records than this is behind: ten polls of Kafka
     * Streams' {@code max.poll.records} (1,000). One that keeps up trails by what arrives between two fetches, a poll's
     * worth or less, so above ten the input waits on the application and a step is judged by whether the lag grew.
     */
    static final long BEHIND_LAG_RECORDS = 10_000;
    /**
     * An application that keeps up is helped by a step that lowers its CPU per record by this much: less is within
     * the spread of one configuration's repeats (132 to 145 CPU us per record at 1 GiB, docs/benchmarks.md), so two
     * JVMs' runs of the settle time each could not tell it from noise, and a kept share never moves back.
     */
    static final double CPU_PER_RECORD_FALL = 0.05;

    static final double WRITE_BUFFER_STEP = 1.0 / 12;
    static final double FRACTION_STEP = 0.05;

    private SplitTuner() {}

    /** What the tuner did: nothing, a step, or the judgement of the last one. */
    public enum Kind {
        NONE,
        STEP,
        KEPT,
        UNDONE
    }

    /** The state to publish, and what happened, with the message for the Event and the row. */
    public record Decision(TuningState state, Kind kind, String message) {
        static Decision none(TuningState state) {
            return new Decision(state, Kind.NONE, null);
        }
    }

    /**
     * @param state          the published state, already {@link TuningState#under} the policy's generation
     * @param signals        what the pods showed, null before any report
     * @param allocationHash the allocation planned from {@code state}: only pods running it, or another allocation
     *                       published with the same split ({@link TuningState#splitHashes()}), judge it
     * @param writeBufferSize that allocation's {@code write_buffer_size}, null without RocksDB
     * @param forced         the shares the user's overrides fix
     * @param settle         how long a pod runs a split before its counters judge it
     */
    public static Decision decide(
            TuningState state,
            TuningSignals signals,
            String allocationHash,
            Long writeBufferSize,
            Set<Share> forced,
            Instant now,
            Duration settle) {
        if (signals == null
                || signals.allocationHash() == null
                || !(allocationHash.equals(signals.allocationHash())
                        || state.splitHashes().contains(signals.allocationHash()))
                || signals.minUptimeMillis() < settle.toMillis()) {
            return Decision.none(state);
        }
        if (state.pending() != null) {
            return judge(state, signals);
        }
        for (Signal signal : Signal.values()) { // in the order of what hurts most
            Double figure = figure(signal, signals);
            if (state.undone().contains(signal) || figure == null || !fires(signal, figure, writeBufferSize)) {
                continue;
            }
            for (Share share : shares(signal)) {
                int direction = direction(signal);
                double from = current(state.split(), share);
                double to = bounded(share, from + direction * step(share));
                if (forced.contains(share)
                        || state.directions().getOrDefault(share, direction) != direction
                        || Math.abs(to - from) < 1e-9) {
                    continue;
                }
                return step(state, signals, signal, figure, writeBufferSize, share, direction, from, to, now);
            }
        }
        return Decision.none(state);
    }

    /** A step of {@code share} from {@code from} to {@code to}, taken on {@code signal}, pending its judgement. */
    private static Decision step(
            TuningState state,
            TuningSignals signals,
            Signal signal,
            double figure,
            Long writeBufferSize,
            Share share,
            int direction,
            double from,
            double to,
            Instant now) {
        String message = String.format(
                Locale.ROOT,
                "%s: %s %s -> %s (%s)",
                said(signal, figure, writeBufferSize),
                shareName(share),
                percent(from),
                percent(to),
                now);
        Step step = new Step(
                signal,
                figure,
                share,
                direction,
                state.split(),
                state.reason(),
                now.toString(),
                signals.consumerLagRecords(),
                signals.cpuNanosPerRecord());
        return new Decision(
                new TuningState(
                        state.generation(),
                        state.split().with(share, to),
                        message,
                        step,
                        state.undone(),
                        state.directions(),
                        List.of()),
                Kind.STEP,
                message);
    }

    /**
     * The pending step judged on the pods that run it by what the user sees: an application behind its input (its lag
     * over {@link #BEHIND_LAG_RECORDS} before or after the step) keeps the step only if its lag did not grow; one that
     * keeps up (or whose lag is unknown) only if its CPU per record fell by {@link #CPU_PER_RECORD_FALL}. A step taken
     * with either known waits until the pods running it show it too; one taken with neither (an agent older than these
     * figures) is judged by the figure that took it, which explains the step in every case.
     */
    private static Decision judge(TuningState state, TuningSignals signals) {
        Step step = state.pending();
        Double figure = figure(step.signal(), signals);
        Verdict verdict = byLag(step, signals);
        if (verdict == null) {
            verdict = byCpuPerRecord(step, signals);
        }
        if (verdict == null) {
            if (figure == null || step.lagBefore() != null || step.cpuPerRecordBefore() != null) {
                // Known at the step, not yet on the pods running it (restoring their stores, nothing processed yet):
                // the step waits for what the user sees rather than be judged by its own figure.
                return Decision.none(state);
            }
            boolean improved = step.signal() == Signal.SMALL_FLUSHES
                    ? figure >= step.figureBefore() * (1 + IMPROVEMENT)
                    : figure <= step.figureBefore() * (1 - IMPROVEMENT);
            verdict = new Verdict(
                    improved,
                    String.format(
                            Locale.ROOT,
                            "%s%s (decided by it: neither the consumer lag nor the CPU per record known)",
                            change(step, figure),
                            improved ? "" : String.format(Locale.ROOT, ", not %.0f%% better", IMPROVEMENT * 100)));
        } else {
            String explanation = figure == null ? signalName(step.signal()) + " not reported" : change(step, figure);
            verdict = new Verdict(verdict.helped(), verdict.why() + "; " + explanation);
        }
        return verdict.helped() ? kept(state, step, verdict) : undone(state, step, verdict);
    }

    /** A step that helped: kept, and its direction remembered for the share. */
    private static Decision kept(TuningState state, Step step, Verdict verdict) {
        Map<Share, Integer> directions = new HashMap<>(state.directions());
        directions.put(step.share(), step.direction());
        String message = String.format(
                "kept %s %s: %s",
                shareName(step.share()), percent(current(state.split(), step.share())), verdict.why());
        return new Decision(
                new TuningState(
                        state.generation(),
                        state.split(),
                        state.reason(),
                        null,
                        state.undone(),
                        directions,
                        state.splitHashes(),
                        message),
                Kind.KEPT,
                message);
    }

    /** A step that did not help: undone, and its signal not acted on again until the policy changes. */
    private static Decision undone(TuningState state, Step step, Verdict verdict) {
        Set<Signal> undone = EnumSet.of(step.signal());
        undone.addAll(state.undone());
        String message = String.format(
                "undid %s %s -> %s: %s; %s is not acted on again until the policy changes",
                shareName(step.share()),
                percent(current(step.from(), step.share())),
                percent(current(state.split(), step.share())),
                verdict.why(),
                signalName(step.signal()));
        return new Decision(
                new TuningState(
                        state.generation(),
                        step.from(),
                        step.fromReason(),
                        null,
                        undone,
                        state.directions(),
                        List.of(),
                        message),
                Kind.UNDONE,
                message);
    }

    /** Whether a step helped the user, and the figure that says so, with its numbers. */
    private record Verdict(boolean helped, String why) {}

    /** By the consumer lag, when known before and after and the application is behind on either side; else null. */
    private static Verdict byLag(Step step, TuningSignals signals) {
        Long before = step.lagBefore();
        Long after = signals.consumerLagRecords();
        if (before == null || after == null || Math.max(before, after) <= BEHIND_LAG_RECORDS) {
            return null;
        }
        boolean helped = after <= before;
        return new Verdict(
                helped,
                String.format(
                        Locale.ROOT,
                        "consumer lag %d -> %d records, %s (decided by it: behind, over %d records)",
                        before,
                        after,
                        helped ? "did not grow" : "grew",
                        BEHIND_LAG_RECORDS));
    }

    /** By the CPU per record, when known before and after (the application keeps up, or its lag is unknown). */
    private static Verdict byCpuPerRecord(Step step, TuningSignals signals) {
        Double before = step.cpuPerRecordBefore();
        Double after = signals.cpuNanosPerRecord();
        if (before == null || after == null) {
            return null;
        }
        boolean helped = after <= before * (1 - CPU_PER_RECORD_FALL);
        String state = step.lagBefore() != null && signals.consumerLagRecords() != null
                ? String.format(
                        Locale.ROOT, "keeping up, lag %d -> %d records", step.lagBefore(), signals.consumerLagRecords())
                : "the consumer lag unknown";
        return new Verdict(
                helped,
                String.format(
                        Locale.ROOT,
                        "CPU per record %s -> %s, %s %.0f%% lower (decided by it: %s)",
                        micros(before),
                        micros(after),
                        helped ? "at least" : "not",
                        CPU_PER_RECORD_FALL * 100,
                        state));
    }

    /** The step's own figure, before and after. */
    private static String change(Step step, double figure) {
        return String.format(
                Locale.ROOT,
                "%s %s -> %s",
                signalName(step.signal()),
                figureText(step.signal(), step.figureBefore()),
                figureText(step.signal(), figure));
    }

    private static String micros(double nanos) {
        return String.format(Locale.ROOT, "%.1f us", nanos / 1000);
    }

    private static Double figure(Signal signal, TuningSignals s) {
        return switch (signal) {
            case GC_PAUSES -> s.gcShare();
            case WRITE_STALLS -> s.stallShare();
            case SMALL_FLUSHES ->
                s.meanFlushBytes() == null ? null : s.meanFlushBytes().doubleValue();
            case STORAGE_READS -> s.storageReadsPerSecond();
        };
    }

    private static boolean fires(Signal signal, double figure, Long writeBufferSize) {
        return switch (signal) {
            case GC_PAUSES -> figure > GC_SHARE_MAX;
            case WRITE_STALLS -> figure > STALL_SHARE_MAX;
            case SMALL_FLUSHES -> writeBufferSize != null && figure < writeBufferSize / (double) SMALL_FLUSH_DIVISOR;
            case STORAGE_READS -> figure > STORAGE_READS_MAX;
        };
    }

    /** The shares a signal moves, the first that can move taking the step. */
    private static Share[] shares(Signal signal) {
        return switch (signal) {
            // Out of the record cache first: its entries cost the heap several times what they are counted at.
            case GC_PAUSES -> new Share[] {Share.RECORD_CACHE, Share.ROCKSDB};
            case WRITE_STALLS, SMALL_FLUSHES, STORAGE_READS -> new Share[] {Share.WRITE_BUFFERS};
        };
    }

    private static int direction(Signal signal) {
        return signal == Signal.WRITE_STALLS || signal == Signal.SMALL_FLUSHES ? +1 : -1;
    }

    private static double step(Share share) {
        return share == Share.WRITE_BUFFERS ? WRITE_BUFFER_STEP : FRACTION_STEP;
    }

    /** The model's fraction of a share. */
    static double model(Share share) {
        return switch (share) {
            case ROCKSDB -> MemoryModel.ROCKSDB_FRACTION;
            case WRITE_BUFFERS -> 1.0 / MemoryModel.WRITE_BUFFER_DIVISOR;
            case RECORD_CACHE -> MemoryModel.RECORD_CACHE_FRACTION;
        };
    }

    /** The least the tuner gives a share: RocksDB keeps most of the model's, the cache and memtables a useful part. */
    static double lowest(Share share) {
        return switch (share) {
            case ROCKSDB -> 0.25;
            case WRITE_BUFFERS -> 1.0 / 6;
            case RECORD_CACHE -> 0.05;
        };
    }

    /**
     * The most the tuner gives a share. Memtables: one step over the model's third. At 512 MiB ({@code make
     * bench-throughput CANDIDATES=true}, 2026-12-04, one repeat) the second step, half the cache, still grew the flushes
     * (188 to 256 KiB) and cut the write stops (81 to 39) but ran at 0.268 of the unbounded defaults, against 0.354 at
     * the first step and 0.333 at the model's: data blocks then miss more than the memtables gain.
     */
    static double highest(Share share) {
        return switch (share) {
            case ROCKSDB -> 0.55;
            case WRITE_BUFFERS -> 0.417;
            case RECORD_CACHE -> MemoryModel.RECORD_CACHE_FRACTION;
        };
    }

    private static double current(Fractions split, Share share) {
        Double value = split.get(share);
        return value != null ? value : model(share);
    }

    private static double bounded(Share share, double value) {
        // Rounded to 1/1000 so a step of 1/12 from 1/3 lands where the model's own fractions would.
        double rounded = Math.round(value * 1000) / 1000.0;
        return Math.max(lowest(share), Math.min(highest(share), rounded));
    }

    private static String said(Signal signal, double figure, Long writeBufferSize) {
        return switch (signal) {
            case GC_PAUSES ->
                String.format(
                        Locale.ROOT, "GC pauses %s of the time (over %s)", percent(figure), percent(GC_SHARE_MAX));
            case WRITE_STALLS ->
                String.format(
                        Locale.ROOT,
                        "writes stalled %s of the time (over %s)",
                        percent(figure),
                        percent(STALL_SHARE_MAX));
            case SMALL_FLUSHES ->
                String.format(
                        "memtable flushes of %s on average, under a quarter of the %s memtables",
                        ByteSize.format((long) figure), ByteSize.format(writeBufferSize));
            case STORAGE_READS ->
                String.format(
                        "%s/s read from storage (over %s/s)",
                        ByteSize.format((long) figure), ByteSize.format((long) STORAGE_READS_MAX));
        };
    }

    private static String figureText(Signal signal, double figure) {
        return switch (signal) {
            case GC_PAUSES, WRITE_STALLS -> percent(figure);
            case SMALL_FLUSHES -> ByteSize.format((long) figure);
            case STORAGE_READS -> ByteSize.format((long) figure) + "/s";
        };
    }

    static String signalName(Signal signal) {
        return switch (signal) {
            case GC_PAUSES -> "GC pauses";
            case WRITE_STALLS -> "write stalls";
            case SMALL_FLUSHES -> "mean flush";
            case STORAGE_READS -> "storage reads";
        };
    }

    static String shareName(Share share) {
        return switch (share) {
            case ROCKSDB -> "RocksDB's share of the pool";
            case WRITE_BUFFERS -> "write buffers' share of the block cache";
            case RECORD_CACHE -> "record cache's share of the heap";
        };
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }
}
