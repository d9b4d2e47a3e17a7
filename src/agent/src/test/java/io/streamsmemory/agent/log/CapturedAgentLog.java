package io.streamsmemory.agent.log;

import io.streamsmemory.agent.hook.StreamsInstances;
import io.streamsmemory.agent.report.AgentMXBeanImpl;
import io.streamsmemory.agent.rocksdb.SharedRocksDb;
import io.streamsmemory.agent.state.AgentState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives each test a fresh agent state and the lines the agent logs, and restores both afterwards.
 * Register with {@code @RegisterExtension final CapturedAgentLog log = new CapturedAgentLog();}.
 */
public final class CapturedAgentLog implements BeforeEachCallback, AfterEachCallback {
    private final List<String> lines = new ArrayList<>();
    private Consumer<String> previous;

    @Override
    public void beforeEach(ExtensionContext context) {
        resetAgent();
        lines.clear();
        previous = AgentLog.redirect(lines::add);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        AgentLog.redirect(previous);
        resetAgent();
    }

    /** Everything logged since the test (or the last {@link #restart()}) began. */
    public List<String> lines() {
        return lines;
    }

    /** Forgets the agent's state and what it logged, within one test. */
    public void restart() {
        resetAgent();
        lines.clear();
        AgentLog.redirect(lines::add);
    }

    /** Everything the agent keeps for the JVM's life: its state, the shared RocksDB objects, the instances, the MBean. */
    private static void resetAgent() {
        AgentState.reset();
        SharedRocksDb.resetForTests();
        StreamsInstances.reset();
        AgentMXBeanImpl.resetForTests();
    }
}
