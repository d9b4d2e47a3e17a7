package io.streamsmemory.operator.observe;

/** {@link AgentReport#parse} for the fuzz target in {@code io.streamsmemory.operator.fuzz}. */
public final class AgentReportFuzzAccess {
    private AgentReportFuzzAccess() {}

    public static AgentReport parse(byte[] body) {
        return AgentReport.parse(body);
    }
}
