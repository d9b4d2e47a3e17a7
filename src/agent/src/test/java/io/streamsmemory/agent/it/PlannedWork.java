package io.streamsmemory.agent.it;

import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationDocument;
import java.nio.file.Path;

/**
 * A test class's fresh work folder with the engine's allocation for its facts written in it ({@code alloc.json}),
 * where the agent of each application it starts reads it.
 *
 * @param dir        the work folder, emptied
 * @param file       the allocation file the agent is pointed at
 * @param allocation what the file says
 */
record PlannedWork(Path dir, Path file, AllocationDocument allocation) {
    static PlannedWork fresh(String name, WorkloadFacts facts) throws Exception {
        Path dir = AppRun.freshDir(name);
        Path file = dir.resolve("alloc.json");
        return new PlannedWork(dir, file, AgentRealBrokerTest.writeAllocation(file, facts));
    }
}
