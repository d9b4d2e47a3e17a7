package io.streamsmemory.engine;

import java.util.List;

/**
 * Either an allocation or the reasons there is none.
 *
 * @param allocation         the split, null when errors is not empty
 * @param errors             what does not fit; empty on success
 * @param minimumMemoryBytes the least pod memory (whole MiB) at which these facts fit, null when no size fits
 *                           or the facts fit already
 */
public record AllocationResult(Allocation allocation, List<AllocationError> errors, Long minimumMemoryBytes) {
    public boolean ok() {
        return errors.isEmpty();
    }

    /** The errors as one message, as a status condition or a CLI prints it. */
    public String message() {
        return String.join("; ", errors.stream().map(AllocationError::message).toList());
    }
}
