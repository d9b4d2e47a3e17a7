package io.streamsmemory.operator.observe;

import static io.streamsmemory.engine.ByteSize.format;

import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.Part;
import io.streamsmemory.protocol.AgentReportDocument;
import io.streamsmemory.protocol.ReportFigure;
import java.util.function.Function;

/**
 * The state a pod's topology holds on the heap, as its agent reports it ({@code heapState}): in-memory key-value
 * stores and {@code suppress()} buffers. The plan learns its size like the topology; an unbounded buffer, or state the
 * plan in force cannot hold, is a Warning with what to change.
 *
 * @param stateBytes         heap of the stores' entries and the buffers' records (the agent's estimate)
 * @param bufferBytes        of that, the suppression buffers' records
 * @param inMemoryStores     in-memory key-value stores open in the pod (one per task of each store)
 * @param suppressionBuffers suppression buffers open in the pod (one per task of each suppress())
 * @param unboundedBuffers   of those, the ones with neither a record nor a byte bound
 * @param unboundedNames     their store names, comma-separated, or null
 */
public record HeapState(
        Long stateBytes,
        Long bufferBytes,
        Long inMemoryStores,
        Long suppressionBuffers,
        Long unboundedBuffers,
        String unboundedNames) {
    /** The report's heapState section, or null when the pod holds no such state (or its agent is older). */
    static HeapState of(AgentReportDocument report, Function<ReportFigure, Long> known) {
        if (!report.has(ReportFigure.Section.HEAP_STATE)) {
            return null;
        }
        return new HeapState(
                known.apply(ReportFigure.STATE_BYTES),
                known.apply(ReportFigure.SUPPRESSION_BUFFER_BYTES),
                known.apply(ReportFigure.IN_MEMORY_STORES),
                known.apply(ReportFigure.SUPPRESSION_BUFFERS),
                known.apply(ReportFigure.UNBOUNDED_SUPPRESSION_BUFFERS),
                report.word(AgentReportDocument.Word.UNBOUNDED_SUPPRESSION_BUFFERS));
    }

    /** The larger of each pod's figures (a workload's pods run the same topology). */
    static HeapState max(HeapState a, HeapState b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return new HeapState(
                AgentReport.max(a.stateBytes, b.stateBytes),
                AgentReport.max(a.bufferBytes, b.bufferBytes),
                AgentReport.max(a.inMemoryStores, b.inMemoryStores),
                AgentReport.max(a.suppressionBuffers, b.suppressionBuffers),
                AgentReport.max(a.unboundedBuffers, b.unboundedBuffers),
                a.unboundedNames != null ? a.unboundedNames : b.unboundedNames);
    }

    /**
     * What is wrong with this state, and what to change.
     *
     * @param reason  the Event's reason: an unbounded buffer first, as it is the one that grows for ever
     * @param message the Warning condition's words, with the sizes seen now
     * @param event   the Event's words: the same without the sizes, which move with every report, so the recorder
     *                posts it once and then counts it
     */
    public record Finding(String reason, String message, String event) {}

    /**
     * What is wrong with this state under {@code allocation}; null when nothing is. An unbounded buffer grows with the
     * data until the heap is gone, whatever the plan; state larger than what the plan sets aside for it plus the heap's
     * application part leaves the application nothing.
     */
    public Finding finding(Allocation allocation) {
        boolean unbounded = unboundedBuffers != null && unboundedBuffers > 0;
        long planned = partBytes(allocation, "in-memory-state") + partBytes(allocation, "application");
        boolean tooLarge = stateBytes != null && stateBytes > planned;
        if (!unbounded && !tooLarge) {
            return null;
        }
        StringBuilder message = new StringBuilder();
        StringBuilder event = new StringBuilder();
        if (unbounded) {
            String what = String.format(
                    "%d suppression buffer(s) with no bound (%s)",
                    unboundedBuffers, unboundedNames == null ? "names not reported" : unboundedNames);
            String change = ": an untilWindowCloses(unbounded()) buffer keeps every key's latest result until its"
                    + " window closes and grows with the data until the heap is gone; bound it"
                    + " (Suppressed.BufferConfig.maxBytes(...)), or state its largest size in spec.streams.inMemoryState";
            message.append(what)
                    .append(" hold ")
                    .append(bufferBytes == null ? "an unknown size" : format(bufferBytes))
                    .append(change);
            event.append(what).append(change);
        }
        if (tooLarge) {
            String change = ": the next plan sets it aside (spec.streams.inMemoryState states it); keep the state in a"
                    + " persistent (RocksDB) store, bound the buffers, or give the pod more memory";
            String separator = unbounded ? "; " : "";
            message.append(separator)
                    .append(String.format(
                            "in-memory stores and suppression buffers hold %s of heap, more than the plan holds for"
                                    + " them and the application (%s)",
                            format(stateBytes), format(planned)))
                    .append(change);
            event.append(separator)
                    .append("in-memory stores and suppression buffers hold more heap than the plan holds for them and"
                            + " the application")
                    .append(change);
        }
        return new Finding(
                unbounded ? "SuppressionBufferUnbounded" : "InMemoryStateTooLarge",
                message.toString(),
                event.toString());
    }

    private static long partBytes(Allocation allocation, String name) {
        return allocation.findPart(name).map(Part::bytes).orElse(0L);
    }
}
