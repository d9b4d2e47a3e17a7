package io.streamsmemory.operator.admission;

import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.util.List;

/**
 * What the webhook needs of a published allocation document: its hashes, the pod memory it divides, the heap
 * it sets, and the JVM flags for {@code JAVA_TOOL_OPTIONS}, all of them flags the engine emits
 * ({@link EngineJvmFlags}).
 */
public record PublishedAllocation(
        String hash, String restartHash, long memoryBytes, long heapBytes, List<String> jvmOptions) {

    /**
     * @throws IllegalArgumentException when the text is not a usable allocation document, or holds a JVM flag
     *                                  the engine does not emit or a value not of the engine's form
     */
    public static PublishedAllocation parse(String json) {
        AllocationDocument document = AllocationJson.read(json);
        if (document.hash() == null || document.jvmOptions() == null || document.memoryBytes() <= 0) {
            throw new IllegalArgumentException("the allocation document has no hash, memory or JVM options");
        }
        List<String> flags = List.copyOf(document.jvmOptions());
        List<String> problems = EngineJvmFlags.problems(flags, document.memoryBytes());
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("its JVM options are not the engine's: " + String.join("; ", problems));
        }
        Long heap = EngineJvmFlags.valueOf(flags, EngineJvmFlags.HEAP);
        if (heap == null) {
            throw new IllegalArgumentException("its JVM options set no heap (-Xmx)");
        }
        return new PublishedAllocation(document.hash(), document.restartHash(), document.memoryBytes(), heap, flags);
    }
}
