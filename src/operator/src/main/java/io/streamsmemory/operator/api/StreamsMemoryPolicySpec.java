package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** What a user states: the pod's memory, the topology the split depends on, and how changes roll out. */
public class StreamsMemoryPolicySpec {
    /** A Kubernetes memory quantity without milli units. */
    public static final String QUANTITY = "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|K|M|G|T|P|E|[eE][0-9]+)?$";

    @Required
    @Pattern(QUANTITY)
    @JsonPropertyDescription("Total memory of one pod, as a Kubernetes quantity (512Mi, 2Gi). When the workload's "
            + "container memory limit is lower, the limit wins and the policy reports a warning.")
    private String memory;

    @JsonPropertyDescription("The Kafka Streams topology of the workloads: threads, tasks and state stores. Optional: "
            + "what it leaves out is learned from the pods' reports (status.workloads[].facts says which).")
    private StreamsSpec streams;

    @JsonPropertyDescription("What the application's JVM needs besides Kafka Streams: the classes it loads and the "
            + "direct memory its own libraries use.")
    private JvmSpec jvm;

    @JsonPropertyDescription("Choices that replace the engine's defaults; leave unset to let the engine decide.")
    private OverridesSpec overrides;

    @JsonPropertyDescription("The replica range the JVM flags and RocksDB settings are planned for, when no "
            + "HorizontalPodAutoscaler targets the workload; without it, from 1 to the current replicas.")
    private ScalingSpec scaling;

    @Default("Automatic")
    @JsonPropertyDescription("Automatic: when a change needs a restart (JVM flags, RocksDB capacities), stamp the "
            + "allocation hash on the pod template so the workload rolls. Manual: only report the pending restart.")
    private Rollout rollout = Rollout.Automatic;

    @Default("Auto")
    @JsonPropertyDescription("Auto: with spec.jvm.sizing Observed, move memory between the heap, the record cache, "
            + "the write buffers and the block cache as the pods' reports show it is short (GC pauses, write stalls, "
            + "small flushes, storage reads), one step at a time, each undone when it does not help; a share set in "
            + "spec.overrides is never moved. Off: keep the model's split.")
    private SplitTuning tuning = SplitTuning.Auto;

    public SplitTuning getTuning() {
        return tuning;
    }

    public void setTuning(SplitTuning tuning) {
        this.tuning = tuning;
    }

    public String getMemory() {
        return memory;
    }

    public void setMemory(String memory) {
        this.memory = memory;
    }

    public StreamsSpec getStreams() {
        return streams;
    }

    public void setStreams(StreamsSpec streams) {
        this.streams = streams;
    }

    public JvmSpec getJvm() {
        return jvm;
    }

    public void setJvm(JvmSpec jvm) {
        this.jvm = jvm;
    }

    public OverridesSpec getOverrides() {
        return overrides;
    }

    public void setOverrides(OverridesSpec overrides) {
        this.overrides = overrides;
    }

    public ScalingSpec getScaling() {
        return scaling;
    }

    public void setScaling(ScalingSpec scaling) {
        this.scaling = scaling;
    }

    public Rollout getRollout() {
        return rollout;
    }

    public void setRollout(Rollout rollout) {
        this.rollout = rollout;
    }
}
