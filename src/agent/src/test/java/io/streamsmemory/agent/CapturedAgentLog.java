package io.streamsmemory.agent;

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
final class CapturedAgentLog implements BeforeEachCallback, AfterEachCallback {
    private final List<String> lines = new ArrayList<>();
    private Consumer<String> previous;

    @Override
    public void beforeEach(ExtensionContext context) {
        AgentState.reset();
        lines.clear();
        previous = AgentLog.redirect(lines::add);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        AgentLog.redirect(previous);
        AgentState.reset();
    }

    /** Everything logged since the test (or the last {@link #restart()}) began. */
    List<String> lines() {
        return lines;
    }

    /** Forgets the agent's state and what it logged, within one test. */
    void restart() {
        AgentState.reset();
        lines.clear();
        AgentLog.redirect(lines::add);
    }
}
