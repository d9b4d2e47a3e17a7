package io.streamsmemory.operator.workload;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Optional;

/** A container's memory limit in bytes, as the planner and the webhook read it. */
public final class MemoryLimit {
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private MemoryLimit() {}

    /**
     * The limit in bytes, empty when it cannot be read. One beyond a long reads as {@link Long#MAX_VALUE}: no pod is
     * that large, and {@code getAmountInBytes(q).longValue()} would wrap it into a small or negative number that then
     * looks like a limit below the policy's memory (found by PolicyQuantitiesFuzzTest: {@code 8Ei}).
     */
    public static Optional<Long> bytes(Quantity limit) {
        if (limit == null) {
            return Optional.empty();
        }
        try {
            BigDecimal bytes = Quantity.getAmountInBytes(limit);
            return Optional.of(bytes.compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE : bytes.longValue());
        } catch (RuntimeException unreadable) { // fabric8 throws IllegalArgumentException or ArithmeticException
            return Optional.empty();
        }
    }

    /** As {@link #bytes(Quantity)}, for the text of a pod's JSON (which the webhook sees before validation). */
    public static Optional<Long> bytes(String limit) {
        try {
            return bytes(new Quantity(limit));
        } catch (RuntimeException unreadable) {
            return Optional.empty();
        }
    }
}
