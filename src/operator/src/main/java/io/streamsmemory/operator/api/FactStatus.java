package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One topology fact the split used, and where it came from. */
public class FactStatus {
    @JsonPropertyDescription("The fact: threads, instancesPerPod, partitions or tasksPerPod, standbyReplicas, stores, "
            + "loadedClasses.")
    private String name;

    @JsonPropertyDescription("Its value in the plan.")
    private String value;

    @JsonPropertyDescription("Declared (the policy, or the workload's stream-threads annotation), Observed (the "
            + "most the workload's pods reported over the observation window) or Default (provisional, until the pods "
            + "report it).")
    private String source;

    public FactStatus() {}

    public FactStatus(String name, String value, String source) {
        this.name = name;
        this.value = value;
        this.source = source;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getValue() {
        return value;
    }

    public void setValue(String value) {
        this.value = value;
    }

    public String getSource() {
        return source;
    }

    public void setSource(String source) {
        this.source = source;
    }
}
