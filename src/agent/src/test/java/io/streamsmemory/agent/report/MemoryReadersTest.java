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
        write(
                root,
                "cgroup.controllers",
                "cpuset cpu io memory pids",
                "memory.current",
                "734003200",
                "memory.max",
                "max",
                "memory.peak",
                "900001792",
                "memory.events",
                "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0");
        assertFourFiguresThenTheLimit(
                writeSelf("0::/\n"), root.resolve("memory.max"), 2, 734003200L, 900001792L, 1, 1073741824L);
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
        write(
                memory,
                "memory.usage_in_bytes",
                "52428800",
                "memory.limit_in_bytes",
                "9223372036854771712",
                "memory.max_usage_in_bytes",
                "62914560",
                "memory.oom_control",
                "oom_kill_disable 0\nunder_oom 0\noom_kill 3");
        Path self = writeSelf("12:pids:/\n5:cpu,cpuacct:/\n4:memory:/\n0::/\n");
        assertFourFiguresThenTheLimit(
                self, memory.resolve("memory.limit_in_bytes"), 1, 52428800L, 62914560L, 3, 536870912L);
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

    /**
     * The cgroup {@code self} names gives its version, current, peak and OOM kills, and no maxBytes while
     * {@code limitFile} says "no limit"; once that file holds {@code limit}, maxBytes is that limit.
     */
    private void assertFourFiguresThenTheLimit(
            Path self, Path limitFile, long version, long current, long peak, long oomKills, long limit)
            throws Exception {
        assertThat(CgroupMemory.read(root, self))
                .containsExactly(
                        Map.entry("version", version),
                        Map.entry("currentBytes", current),
                        Map.entry("peakBytes", peak),
                        Map.entry("oomKills", oomKills));
        Files.writeString(limitFile, limit + "\n");
        assertThat(CgroupMemory.read(root, self)).containsEntry("maxBytes", limit);
    }

    /** Writes each file of {@code namesAndTexts} (a name, then its text) into {@code dir}, ending with a newline. */
    private static void write(Path dir, String... namesAndTexts) throws Exception {
        for (int i = 0; i < namesAndTexts.length; i += 2) {
            Files.writeString(dir.resolve(namesAndTexts[i]), namesAndTexts[i + 1] + "\n");
        }
    }

    private Path writeSelf(String text) throws Exception {
        Path self = root.resolve("self-cgroup");
        Files.writeString(self, text);
        return self;
    }
}
