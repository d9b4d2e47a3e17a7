package io.streamsmemory.agent.bench;

import java.util.List;
import java.util.function.ToLongFunction;

/** Readings taken during a run, each with the epoch milliseconds it was taken at, in the order taken. */
final class Samples {
    private Samples() {}

    /** The last sample taken at or before {@code millis}; null when every sample is later. */
    static <T> T atOrBefore(List<T> samples, ToLongFunction<T> takenAt, long millis) {
        T found = null;
        for (T sample : samples) {
            if (takenAt.applyAsLong(sample) > millis) {
                break;
            }
            found = sample;
        }
        return found;
    }
}
