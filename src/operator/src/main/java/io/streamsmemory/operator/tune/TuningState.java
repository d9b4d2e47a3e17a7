package io.streamsmemory.operator.tune;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.engine.TunedSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where a workload's split tuning stands, published with its allocation (the ConfigMap annotation {@code
 * streamsmemory.io/split-tuning}) so a restarted operator goes on where it was: the split in force, the step still
 * being judged, the signals whose step was undone, and the direction each share has moved. Everything but the split
 * starts over when the policy changes (a new {@code metadata.generation}).
 *
 * @param generation   the policy's generation these steps were taken under
 * @param split        the fractions in force, each null for the model's
 * @param reason       why the split is what it is: the last step's message, null while it is the model's
 * @param pending      the last step, until the pods running it show whether it helped; null when none is judged
 * @param undone       signals whose step did not help: not acted on again under this generation
 * @param directions   each moved share's direction (+1 or -1): a later step never moves it back
 * @param splitHashes  the allocations published with this split (the last {@value #SPLIT_HASHES}): a pod running
 *                     any of them runs this split, whatever else (learned JVM caps, say) its allocation has
 * @param judged       the last judgement's message (kept or undone, and the figure that decided), until the next
 *                     step: what the row says after it; null in a state written by an operator older than it
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record TuningState(
        long generation,
        Fractions split,
        String reason,
        Step pending,
        Set<Signal> undone,
        Map<Share, Integer> directions,
        List<String> splitHashes,
        String judged) {
    public static final TuningState NONE =
            new TuningState(0, Fractions.MODEL, null, null, Set.of(), Map.of(), List.of());
    static final int SPLIT_HASHES = 8;
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    public TuningState {
        split = split == null ? Fractions.MODEL : split;
        undone = undone == null ? Set.of() : Set.copyOf(new TreeSet<>(undone));
        directions = directions == null ? Map.of() : Map.copyOf(new TreeMap<>(directions));
        splitHashes = splitHashes == null ? List.of() : List.copyOf(splitHashes);
    }

    /** A state with no judgement since its last step. */
    public TuningState(
            long generation,
            Fractions split,
            String reason,
            Step pending,
            Set<Signal> undone,
            Map<Share, Integer> directions,
            List<String> splitHashes) {
        this(generation, split, reason, pending, undone, directions, splitHashes, null);
    }

    /**
     * This state once {@code hash} is published: added to the split's hashes, or the only one when the split just
     * changed (the allocations before it ran another split).
     */
    TuningState published(String hash, boolean splitChanged) {
        List<String> hashes = new ArrayList<>(splitChanged ? List.of() : splitHashes);
        if (!hashes.contains(hash)) {
            hashes.add(hash);
        }
        List<String> kept = hashes.subList(Math.max(0, hashes.size() - SPLIT_HASHES), hashes.size());
        return new TuningState(generation, split, reason, pending, undone, directions, kept, judged);
    }

    /** The shares the tuner moves. */
    public enum Share {
        ROCKSDB,
        WRITE_BUFFERS,
        RECORD_CACHE
    }

    /** What the pods showed that moved a share. */
    public enum Signal {
        GC_PAUSES,
        WRITE_STALLS,
        SMALL_FLUSHES,
        STORAGE_READS
    }

    /** The tuned fractions, each null for the model's (as {@link TunedSplit}'s). */
    public record Fractions(Double rocksDb, Double writeBuffers, Double recordCache) {
        public static final Fractions MODEL = new Fractions(null, null, null);

        Double get(Share share) {
            return switch (share) {
                case ROCKSDB -> rocksDb;
                case WRITE_BUFFERS -> writeBuffers;
                case RECORD_CACHE -> recordCache;
            };
        }

        Fractions with(Share share, double value) {
            return switch (share) {
                case ROCKSDB -> new Fractions(value, writeBuffers, recordCache);
                case WRITE_BUFFERS -> new Fractions(rocksDb, value, recordCache);
                case RECORD_CACHE -> new Fractions(rocksDb, writeBuffers, value);
            };
        }
    }

    /**
     * A step being judged: the signal that took it and its figure before, the share it moved and which way, the split
     * and reason to go back to, when it was taken (ISO-8601), and what the user saw before it: the consumer lag and
     * the CPU nanoseconds per record, each null when unknown (and in a state written by an operator older than them).
     */
    public record Step(
            Signal signal,
            double figureBefore,
            Share share,
            int direction,
            Fractions from,
            String fromReason,
            String at,
            Long lagBefore,
            Double cpuPerRecordBefore) {
        /** A step without the figures the user sees. */
        public Step(
                Signal signal,
                double figureBefore,
                Share share,
                int direction,
                Fractions from,
                String fromReason,
                String at) {
            this(signal, figureBefore, share, direction, from, fromReason, at, null, null);
        }
    }

    /** The split for the engine, null while it is the model's. */
    public TunedSplit tunedSplit() {
        if (split.equals(Fractions.MODEL)) {
            return null;
        }
        return new TunedSplit(split.rocksDb(), split.writeBuffers(), split.recordCache(), reason == null ? "" : reason);
    }

    /** What the row says of the tuning when nothing happened this round: the last judgement, else the split's reason. */
    public String said() {
        return judged != null ? judged : reason;
    }

    /** This state under {@code policyGeneration}: a newer generation keeps the split and forgets the rest. */
    public TuningState under(long policyGeneration) {
        return policyGeneration == generation
                ? this
                : new TuningState(policyGeneration, split, reason, null, Set.of(), Map.of(), splitHashes);
    }

    /** The annotation's value; empty for {@link #NONE}. */
    public String annotation() {
        if (equals(NONE)) {
            return "";
        }
        try {
            return JSON.writeValueAsString(this);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tuning state always writes", e);
        }
    }

    /**
     * Reads an annotation; anything unreadable (absent, edited by hand, written by a newer operator) is the model's
     * split, so a bad value never keeps a tuned split alive or stops planning.
     */
    public static TuningState parse(String annotation) {
        if (annotation == null || annotation.isBlank()) {
            return NONE;
        }
        try {
            TuningState state = JSON.readValue(annotation, TuningState.class);
            return state == null || !state.valid() ? NONE : state;
        } catch (java.io.IOException | IllegalArgumentException e) {
            return NONE;
        }
    }

    /** Whether every fraction lies within what the tuner sets, so a hand-edited one is not planned. */
    private boolean valid() {
        for (Share share : Share.values()) {
            Double value = split.get(share);
            if (value != null
                    && (value.isNaN() || value < SplitTuner.lowest(share) || value > SplitTuner.highest(share))) {
                return false;
            }
        }
        return pending == null || (pending.signal() != null && pending.share() != null && pending.from() != null);
    }
}
