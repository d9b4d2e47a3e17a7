package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The benchmark's memory cgroup on this machine's kernel: a JVM past its limit is killed and reported as killed. */
class MemoryCgroupTest {
    private static final long MiB = 1L << 20;

    @Test
    void reportsTheKernelsKillOfAJvmPastItsLimit() throws Exception {
        MemoryCgroup.Parent parent = available();
        try (MemoryCgroup cgroup = parent.create(name("past"), 64 * MiB)) {
            // A heap of twice the limit, every page touched at start.
            Process java = run(cgroup, "-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch");

            assertThat(java.exitValue()).isEqualTo(128 + 9);
            assertThat(cgroup.killed(java.exitValue())).isTrue();
        }
        assertThat(parent.dir().resolve(name("past"))).doesNotExist();
    }

    @Test
    void aJvmUnderItsLimitSurvives() throws Exception {
        MemoryCgroup.Parent parent = available();
        try (MemoryCgroup cgroup = parent.create(name("under"), 256 * MiB)) {
            Process java = run(cgroup, "-Xmx32m");

            assertThat(java.exitValue()).isZero();
            assertThat(cgroup.killed(java.exitValue())).isFalse();
        }
    }

    private static MemoryCgroup.Parent available() {
        MemoryCgroup.Parent parent = MemoryCgroup.parent();
        assumeTrue(parent.available(), () -> "no memory cgroup: " + parent.unavailable());
        return parent;
    }

    private static String name(String test) {
        return "streams-memory-bench-test-" + test + "-"
                + ProcessHandle.current().pid();
    }

    /** {@code java <options> -version} in the cgroup, to its end. */
    private static Process run(MemoryCgroup cgroup, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(MemoryBenchmark.jdkTool("java")));
        command.addAll(List.of(options));
        command.add("-version");
        Process java = new ProcessBuilder(cgroup.command(command))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return java;
    }
}
