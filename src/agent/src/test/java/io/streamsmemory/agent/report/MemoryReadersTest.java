package io.streamsmemory.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The readers of the kernel's files, on files laid out as the kernel writes them. */
class MemoryReadersTest {
    @TempDir
    Path root;

    @Test
    void cgroupV2ReadsTheFourFiguresAndLeavesOutMax() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
        Files.writeString(root.resolve("memory.current"), "734003200\n");
        Files.writeString(root.resolve("memory.max"), "max\n");
        Files.writeString(root.resolve("memory.peak"), "900001792\n");
        Files.writeString(
                root.resolve("memory.events"), "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n");
        Path self = writeSelf("0::/\n");
        assertThat(CgroupMemory.read(root, self))
                .containsExactly(
                        Map.entry("version", 2L),
                        Map.entry("currentBytes", 734003200L),
                        Map.entry("peakBytes", 900001792L),
                        Map.entry("oomKills", 1L));
        Files.writeString(root.resolve("memory.max"), "1073741824\n");
        assertThat(CgroupMemory.read(root, self)).containsEntry("maxBytes", 1073741824L);
    }

    @Test
    void cgroupV2FindsTheProcessOwnGroupWithoutANamespace() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "memory\n");
        Files.writeString(root.resolve("memory.current"), "999\n"); // the host's root: not ours
        Path own = Files.createDirectories(root.resolve("kubepods.slice/pod1/ctr"));
        Files.writeString(own.resolve("memory.current"), "4096\n");
        Files.writeString(own.resolve("memory.max"), "8192\n");
        assertThat(CgroupMemory.read(root, writeSelf("0::/kubepods.slice/pod1/ctr\n")))
                .containsExactly(
                        Map.entry("version", 2L), Map.entry("currentBytes", 4096L), Map.entry("maxBytes", 8192L));
    }

    @Test
    void cgroupV2WithMissingFilesGivesOnlyWhatIsThere() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpu\n");
        assertThat(CgroupMemory.read(root, writeSelf("0::/\n"))).isEmpty();
        Files.writeString(root.resolve("memory.current"), "not a number\n");
        Files.writeString(root.resolve("memory.events"), "oom 3\n");
        assertThat(CgroupMemory.read(root, root.resolve("absent"))).isEmpty();
        Files.writeString(root.resolve("memory.peak"), "5\n");
        assertThat(CgroupMemory.read(root, root.resolve("absent")))
                .containsExactly(Map.entry("version", 2L), Map.entry("peakBytes", 5L));
    }

    @Test
    void cgroupV1ReadsItsFilesAndLeavesOutNoLimit() throws Exception {
        Path memory = Files.createDirectories(root.resolve("memory"));
        Files.writeString(memory.resolve("memory.usage_in_bytes"), "52428800\n");
        Files.writeString(memory.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
        Files.writeString(memory.resolve("memory.max_usage_in_bytes"), "62914560\n");
        Files.writeString(memory.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
        Path self = writeSelf("12:pids:/\n5:cpu,cpuacct:/\n4:memory:/\n0::/\n");
        assertThat(CgroupMemory.read(root, self))
                .containsExactly(
                        Map.entry("version", 1L),
                        Map.entry("currentBytes", 52428800L),
                        Map.entry("peakBytes", 62914560L),
                        Map.entry("oomKills", 3L));
        Files.writeString(memory.resolve("memory.limit_in_bytes"), "536870912\n");
        assertThat(CgroupMemory.read(root, self)).containsEntry("maxBytes", 536870912L);
        Files.delete(memory.resolve("memory.oom_control"));
        assertThat(CgroupMemory.read(root, self)).doesNotContainKey("oomKills").containsKey("currentBytes");
    }

    @Test
    void noCgroupAtAllIsAnEmptySection() {
        assertThat(CgroupMemory.read(root.resolve("absent"), root.resolve("absent")))
                .isEmpty();
    }

    @Test
    void procStatusGivesRssAndPeakInBytes() throws Exception {
        String status = "Name:\tjava\nVmPeak:\t 5912340 kB\nVmSize:\t 5846804 kB\nVmHWM:\t  412220 kB\n"
                + "VmRSS:\t  398124 kB\nRssAnon:\t  371000 kB\nThreads:\t42\n";
        assertThat(ProcStatus.parse(status))
                .containsExactly(Map.entry("rssBytes", 398124L * 1024), Map.entry("rssPeakBytes", 412220L * 1024));
        assertThat(ProcStatus.parse("Name:\tjava\nVmRSS:\tgarbage kB\n")).isEmpty();
        assertThat(ProcStatus.read(root.resolve("absent"))).isEmpty();
        Path file = root.resolve("status");
        Files.writeString(file, "VmRSS:\t  1 kB\n");
        assertThat(ProcStatus.read(file)).containsExactly(Map.entry("rssBytes", 1024L));
    }

    @Test
    void procIoGivesTheBytesReadFromStorage() throws Exception {
        String io = "rchar: 323934931\nwchar: 323929600\nsyscr: 632687\nsyscw: 632675\nread_bytes: 4096\n"
                + "write_bytes: 323932160\ncancelled_write_bytes: 0\n";
        assertThat(ProcIo.parse(io)).containsExactly(Map.entry("storageReadBytes", 4096L));
        assertThat(ProcIo.parse("rchar: 1\nread_bytes: garbage\n")).isEmpty();
        assertThat(ProcIo.parse("rchar: 1\n")).isEmpty();
        assertThat(ProcIo.read(root.resolve("absent"))).isEmpty();
        Path file = root.resolve("io");
        Files.writeString(file, io);
        assertThat(ProcIo.read(file)).containsExactly(Map.entry("storageReadBytes", 4096L));
        assertThat(ProcIo.read(ProcIo.SELF)).containsKey("storageReadBytes"); // this Linux process
    }

    @Test
    void thisProcessHasAResidentSet() {
        assertThat(ProcStatus.read(ProcStatus.SELF).get("rssBytes")).isPositive();
    }

    private Path writeSelf(String text) throws Exception {
        Path self = root.resolve("self-cgroup");
        Files.writeString(self, text);
        return self;
    }
}
