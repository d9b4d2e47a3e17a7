package io.streamsmemory.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class KubeletOomKillsTest {
    static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
    final KubeletOomKills kills = new KubeletOomKills(Duration.ofHours(1));

    @Test
    void eachKilledContainerCountsOnceHoweverManyRoundsSeeIt() {
        Pod first = pod("containerd://a", "OOMKilled", "2026-12-02T11:59:00Z");
        kills.record("ns/Deployment/app", first, NOW);
        kills.record("ns/Deployment/app", first, NOW.plusSeconds(30));
        assertThat(kills.count("ns/Deployment/app", NOW.plusSeconds(30))).isEqualTo(1);

        // kubelet replaced the last state with the next kill: a second one.
        kills.record("ns/Deployment/app", pod("containerd://b", "OOMKilled", "2026-12-02T12:01:00Z"), NOW);
        assertThat(kills.count("ns/Deployment/app", NOW.plusSeconds(90))).isEqualTo(2);
        assertThat(kills.workloads(NOW.plusSeconds(90))).containsExactly("ns/Deployment/app");
    }

    @Test
    void otherEndsAndOtherWorkloadsDoNotCount() {
        kills.record("ns/Deployment/app", pod("containerd://c", "Error", "2026-12-02T11:59:00Z"), NOW);
        kills.record("ns/Deployment/app", pod("containerd://d", "Completed", "2026-12-02T11:59:00Z"), NOW);
        assertThat(kills.count("ns/Deployment/app", NOW)).isZero();
        assertThat(kills.count("ns/Deployment/other", NOW)).isZero();
        assertThat(kills.workloads(NOW)).isEmpty();
    }

    @Test
    void aKillOlderThanTheWindowIsForgotten() {
        kills.record("ns/Deployment/app", pod("containerd://e", "OOMKilled", "2026-12-02T10:00:00Z"), NOW);
        assertThat(kills.count("ns/Deployment/app", NOW)).isZero();
        assertThat(kills.workloads(NOW)).isEmpty();
    }

    /** A running container whose previous run ended as {@code reason}. */
    static Pod pod(String killedContainerId, String reason, String finishedAt) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("app-1")
                .withUid("uid-1")
                .endMetadata()
                .withNewStatus()
                .addNewContainerStatus()
                .withName("streams")
                .withRestartCount(1)
                .withNewState()
                .withNewRunning()
                .endRunning()
                .endState()
                .withNewLastState()
                .withNewTerminated()
                .withContainerID(killedContainerId)
                .withReason(reason)
                .withExitCode(137)
                .withStartedAt("2026-12-02T09:00:00Z")
                .withFinishedAt(finishedAt)
                .endTerminated()
                .endLastState()
                .endContainerStatus()
                .endStatus()
                .build();
    }
}
