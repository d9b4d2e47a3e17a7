package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.streamsmemory.engine.MemoryModel;

/**
 * What the application's JVM needs besides Kafka Streams: the classes it loads (-XX:MaxMetaspaceSize) and the direct
 * memory its own libraries use (-XX:MaxDirectMemorySize). The engine cannot see either; a guess too low crash-loops
 * the pod on OutOfMemoryError: Metaspace or Direct buffer memory once the caps are injected.
 */
public class JvmSpec {
    @Min(MemoryModel.MIN_LOADED_CLASSES)
    @Max(MemoryModel.MAX_LOADED_CLASSES)
    @JsonPropertyDescription("Classes the application loads (unset: the most a pod reports once its Kafka Streams "
            + "runs, plus a quarter, never below " + MemoryModel.DEFAULT_LOADED_CLASSES
            + " nor below what the metaspace "
            + "it held needs; until a pod reports, the room of " + MemoryModel.DEFAULT_LOADED_CLASSES
            + " classes with -XX:MaxMetaspaceSize left unset); sizes -XX:MaxMetaspaceSize at 5,800 bytes a class plus "
            + "14 MB. A JVM that hits the cap (a restart loop, OutOfMemoryError: Metaspace) has it lifted until the "
            + "policy changes. Read it from a running pod: the "
            + "classes of the Total Usage line of jcmd <pid> VM.metaspace (hidden classes included), else "
            + "jvm.loadedClasses of the agent's report or jstat -class <pid> (Loaded; both leave hidden classes "
            + "out); add a margin for classes loaded late.")
    private Integer loadedClasses;

    @Pattern(StreamsMemoryPolicySpec.QUANTITY)
    @JsonPropertyDescription("Direct memory the application's own libraries use besides the Kafka clients (Netty, "
            + "gRPC, a web server's NIO buffers), as a Kubernetes quantity; added to -XX:MaxDirectMemorySize and "
            + "taken from the other parts. Unset: the most direct memory a pod held plus a quarter, and until a pod "
            + "reports, -XX:MaxDirectMemorySize left unset. A JVM that hits the cap has it lifted until the policy "
            + "changes.")
    private String extraDirectMemory;

    @JsonPropertyDescription("Where the JVM's caps come from: Declared (default; the model's: metaspace from "
            + "loadedClasses, code cache from the pod's size, thread stacks from the threads) or Observed (each cap "
            + "at the most the workload's pods used over the observation window, plus 25% for metaspace and "
            + "threads and 50% for the code cache, never below 32 MiB for metaspace and code cache nor above the "
            + "model's; what that frees goes to RocksDB's write buffers. Until a pod reports, the model's caps. A "
            + "pod using 90% of a learned cap raises MemoryPressure and restores the model's caps at once, with a "
            + "rollout the rate limit does not hold back).")
    private JvmSizing sizing;

    public Integer getLoadedClasses() {
        return loadedClasses;
    }

    public void setLoadedClasses(Integer loadedClasses) {
        this.loadedClasses = loadedClasses;
    }

    public String getExtraDirectMemory() {
        return extraDirectMemory;
    }

    public void setExtraDirectMemory(String extraDirectMemory) {
        this.extraDirectMemory = extraDirectMemory;
    }

    public JvmSizing getSizing() {
        return sizing;
    }

    public void setSizing(JvmSizing sizing) {
        this.sizing = sizing;
    }
}
