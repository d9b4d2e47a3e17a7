package io.streamsmemory.operator.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.operator.admission.WebhookSettings;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The webhook's platform settings as application.properties (or the environment) give them. */
class WebhookLifecycleTest {

    private static WebhookLifecycle configured(long runAsUser, String cpuRequest, String cpuLimit, String memoryLimit) {
        WebhookLifecycle lifecycle = new WebhookLifecycle();
        lifecycle.extraSans = Optional.empty();
        lifecycle.certFile = Optional.empty();
        lifecycle.keyFile = Optional.empty();
        lifecycle.runAsUser = Optional.of(runAsUser);
        lifecycle.cpuRequest = cpuRequest;
        lifecycle.cpuLimit = cpuLimit;
        lifecycle.memoryRequest = "32Mi";
        lifecycle.memoryLimit = memoryLimit;
        lifecycle.imagePullSecrets = Optional.of(List.of("agent-registry", " mirror "));
        lifecycle.mallocArenaMax = MemoryModel.MALLOC_ARENA_MAX;
        return lifecycle;
    }

    @Test
    void noneLeavesAResourceOutAndMinusOneLeavesRunAsUserOut() {
        WebhookSettings settings = configured(-1, "none", "50m", " NONE ").settings();
        assertThat(settings.runAsUser()).isNull();
        assertThat(settings.initRequest("cpu")).isNull();
        assertThat(settings.initLimit("cpu")).isEqualTo("50m");
        assertThat(settings.initRequest("memory")).isEqualTo("32Mi");
        assertThat(settings.initLimit("memory")).isNull();
        assertThat(settings.imagePullSecrets()).containsExactly("agent-registry", "mirror");
    }

    @Test
    void mallocArenaMaxIsTheModelsUnlessNone() {
        WebhookLifecycle lifecycle = configured(65532, "10m", "100m", "32Mi");
        assertThat(lifecycle.settings().mallocArenaMax()).isEqualTo(MemoryModel.MALLOC_ARENA_MAX);
        lifecycle.mallocArenaMax = " None ";
        assertThat(lifecycle.settings().mallocArenaMax()).isNull();
    }

    @Test
    void aUserIdIsKept() {
        assertThat(configured(65532, "10m", "100m", "32Mi").settings().runAsUser())
                .isEqualTo(65532L);
    }
}
