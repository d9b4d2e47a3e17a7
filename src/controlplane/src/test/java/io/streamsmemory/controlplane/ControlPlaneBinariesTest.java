package io.streamsmemory.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlPlaneBinariesTest {

    @Test
    void pinnedVersionComesFromVersionsEnv() {
        assertThat(ControlPlaneBinaries.versionsEnvDefault("K8S_VERSION")).matches("v1\\.\\d+\\.\\d+");
    }

    @Test
    void theCacheRootDefaultsToTheOneInVersionsEnv() {
        assumeTrue(System.getenv("STREAMS_MEMORY_CACHE") == null && System.getProperty("streams.memory.cache") == null);
        assertThat(ControlPlaneBinaries.cacheRoot())
                .isEqualTo(Path.of(System.getProperty("user.home"), ".cache", "streams-memory-operator"));
    }

    @Test
    void missingBinariesSayHowToBuildThem(@TempDir Path empty) {
        assertThatThrownBy(() -> ControlPlaneBinaries.locateUnder(empty))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(empty.toString())
                .hasMessageContaining("make control-plane-binaries")
                .hasMessageContaining("src/controlplane/bin/build.sh");
    }
}
