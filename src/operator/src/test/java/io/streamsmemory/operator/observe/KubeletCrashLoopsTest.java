package io.streamsmemory.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.operator.workload.MetadataKeys;
import org.junit.jupiter.api.Test;

class KubeletCrashLoopsTest {
    @Test
    void anInjectedContainerRestartedTwiceAfterItsJvmFailedIsALoopAndItsMessageNamesTheCap() {
        CrashLoop loop = KubeletCrashLoops.of(pod(
                        "streams",
                        2,
                        1,
                        "Error",
                        "Exception in thread main " + "java.lang.OutOfMemoryError: Metaspace"))
                .orElseThrow();
        assertThat(loop.namedCaps()).containsExactly(JvmCap.METASPACE);
        assertThat(loop.describe())
                .contains("container streams of pod app-1 restarted 2 times", "exiting with code 1")
                .contains("OutOfMemoryError: Metaspace");

        CrashLoop direct = KubeletCrashLoops.of(
                        pod("streams", 3, 1, "Error", "java.lang.OutOfMemoryError: Direct buffer memory"))
                .orElseThrow();
        assertThat(direct.namedCaps()).containsExactly(JvmCap.DIRECT_MEMORY);
        assertThat(KubeletCrashLoops.of(pod("streams", 2, 1, "Error", null))
                        .orElseThrow()
                        .namedCaps())
                .isEmpty();
    }

    @Test
    void oneRestartAKillFromOutsideAnOomKillOrAnotherContainerIsNoLoop() {
        assertThat(KubeletCrashLoops.of(pod("streams", 1, 1, "Error", null))).isEmpty();
        assertThat(KubeletCrashLoops.of(pod("streams", 5, 143, "Error", null))).isEmpty(); // a failed liveness probe
        assertThat(KubeletCrashLoops.of(pod("streams", 5, 137, "OOMKilled", null)))
                .isEmpty(); // counted as OOM kills
        assertThat(KubeletCrashLoops.of(pod("sidecar", 5, 1, "Error", null))).isEmpty();
        // Failed twice once, running since: no loop.
        Pod recovered = pod("streams", 2, 1, "Error", null);
        recovered.getStatus().getContainerStatuses().get(0).getState().setWaiting(null);
        recovered
                .getStatus()
                .getContainerStatuses()
                .get(0)
                .getState()
                .setRunning(new io.fabric8.kubernetes.api.model.ContainerStateRunning("2026-12-04T05:00:00Z"));
        assertThat(KubeletCrashLoops.of(recovered)).isEmpty();
    }

    private static Pod pod(String container, int restarts, int exitCode, String reason, String message) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("app-1")
                .addToAnnotations(MetadataKeys.INJECTED_CONTAINER, "streams")
                .endMetadata()
                .withNewStatus()
                .addNewContainerStatus()
                .withName(container)
                .withRestartCount(restarts)
                .withNewState()
                .withNewWaiting()
                .withReason("CrashLoopBackOff")
                .endWaiting()
                .endState()
                .withNewLastState()
                .withNewTerminated()
                .withExitCode(exitCode)
                .withReason(reason)
                .withMessage(message)
                .endTerminated()
                .endLastState()
                .endContainerStatus()
                .endStatus()
                .build();
    }
}
