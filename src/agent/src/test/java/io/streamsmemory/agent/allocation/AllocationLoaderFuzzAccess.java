package io.streamsmemory.agent.allocation;

import java.nio.file.Path;

/** The agent's allocation reader for the fuzz target in {@code io.streamsmemory.agent.fuzz}. */
public final class AllocationLoaderFuzzAccess {
    private AllocationLoaderFuzzAccess() {}

    /** The loader's answer for a document's text: the allocation's description, or its one-sentence problem. */
    public static Outcome parse(String text) {
        return outcome(AllocationLoader.parse(text, "fuzz", "fuzz"));
    }

    /** As {@link #parse}, for a file of any bytes. */
    public static Outcome read(Path file) {
        return outcome(AllocationLoader.read(file.toString(), "fuzz"));
    }

    private static Outcome outcome(AllocationLoader.Result result) {
        return result.allocation() != null
                ? new Outcome(result.allocation().describe(), null)
                : new Outcome(null, result.problem());
    }

    /** Exactly one of the two is set: an allocation the agent applies, or why it stays inert. */
    public record Outcome(String allocation, String problem) {}
}
