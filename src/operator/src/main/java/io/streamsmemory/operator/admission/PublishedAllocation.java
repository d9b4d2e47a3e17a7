package io.streamsmemory.operator.admission;

import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import java.util.List;

/**
 * What the webhook needs of a published allocation document: its hashes, the pod memory it divides,
 * and the JVM flags for {@code JAVA_TOOL_OPTIONS}.
 */
public record PublishedAllocation(String hash, String restartHash, long memoryBytes, List<String> jvmOptions) {

    /**
     * @throws IllegalArgumentException when the text is not a usable allocation document
     */
    public static PublishedAllocation parse(String json) {
        AllocationDocument document = AllocationJson.read(json);
        if (document.hash() == null || document.jvmOptions() == null || document.memoryBytes() <= 0) {
            throw new IllegalArgumentException("the allocation document has no hash, memory or JVM options");
        }
        return new PublishedAllocation(document.hash(), document.restartHash(), document.memoryBytes(),
                List.copyOf(document.jvmOptions()));
    }
}
