package io.streamsmemory.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** State stores per task. A window or session store keeps about 3 RocksDB instances (live segments). */
public class StoresSpec {
    @Min(0)
    @Max(1000)
    @Default("0")
    @JsonPropertyDescription("Persistent key-value stores per task (one RocksDB instance each).")
    private Integer keyValue = 0;

    @Min(0)
    @Max(1000)
    @Default("0")
    @JsonPropertyDescription("Persistent window stores per task (about 3 RocksDB instances each).")
    private Integer window = 0;

    @Min(0)
    @Max(1000)
    @Default("0")
    @JsonPropertyDescription("Persistent session stores per task (about 3 RocksDB instances each).")
    private Integer session = 0;

    public Integer getKeyValue() {
        return keyValue;
    }

    public void setKeyValue(Integer keyValue) {
        this.keyValue = keyValue;
    }

    public Integer getWindow() {
        return window;
    }

    public void setWindow(Integer window) {
        this.window = window;
    }

    public Integer getSession() {
        return session;
    }

    public void setSession(Integer session) {
        this.session = session;
    }
}
