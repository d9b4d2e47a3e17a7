package io.streamsmemory.operator.reconcile.decide;

import io.streamsmemory.engine.Allocation;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.MemoryVerdict;
import java.time.Duration;
import java.util.List;

/**
 * What reconciling one workload came to: its status row, the sizes of the allocation's main parts (null when it could
 * not be computed; the allocation itself is not kept, as a policy of thousands of workloads would hold thousands of
 * them until its status is written), and, when it failed, the Event reason and message; warnings are worth telling but changed nothing;
 * {@code retryAfter} (else null) when something waits (a rollout for its rate limit, a drift rollout for the
 * webhook) and nothing else would wake it; {@code verdict} (else null) holds what its pods reported against the plan.
 */
public record WorkloadOutcome(
        WorkloadAllocationStatus row,
        Parts parts,
        String failureReason,
        String failure,
        List<String> warnings,
        Duration retryAfter,
        MemoryVerdict verdict) {
    /** How soon a policy whose workload waits for something nothing else announces is reconciled again. */
    public static final Duration RETRY_SOON = Duration.ofSeconds(5);

    /** The parts of an allocation the policy's printer columns show. */
    public record Parts(long heapBytes, long rocksDbBytes, long recordCacheBytes) {
        public static Parts of(Allocation allocation) {
            return new Parts(
                    allocation.part("heap").bytes(),
                    allocation.part("rocksdb").bytes(),
                    allocation.part("record-cache").bytes());
        }
    }

    public boolean failed() {
        return failure != null;
    }

    /** The sooner of two waits, either null when nothing waits. */
    public static Duration earliest(Duration a, Duration b) {
        return a == null ? b : b == null ? a : a.compareTo(b) <= 0 ? a : b;
    }
}
