package io.streamsmemory.agent.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A memory cgroup one benchmark run lives in, limited to the run's budget: past the budget the kernel kills the run,
 * as it kills a pod's container past its memory limit. cgroup v2 or v1's memory controller, whichever the machine
 * mounts under {@value #MOUNT}; made as root only. {@link #none()} stands for a run without one.
 */
final class MemoryCgroup implements AutoCloseable {
    private static final String MOUNT = "/sys/fs/cgroup";
    /** How long {@link #close()} retries removing the cgroup while the kernel is still releasing its last process. */
    private static final long REMOVE_MILLIS = 5_000;

    private final Path dir;
    private final boolean v2;

    private MemoryCgroup(Path dir, boolean v2) {
        this.dir = dir;
        this.v2 = v2;
    }

    /** No cgroup: commands run as given, and nothing is killed by a limit. */
    static MemoryCgroup none() {
        return new MemoryCgroup(null, false);
    }

    /** Where the runs' cgroups are made, or (dir null) why they cannot be. */
    record Parent(Path dir, boolean v2, String unavailable) {
        static Parent none(String why) {
            return new Parent(null, false, why);
        }

        boolean available() {
            return dir != null;
        }

        /** A cgroup {@code name} under this parent whose memory limit is {@code limitBytes}, swap included. */
        MemoryCgroup create(String name, long limitBytes) throws IOException {
            if (!available()) {
                return MemoryCgroup.none();
            }
            MemoryCgroup cgroup = new MemoryCgroup(dir.resolve(name), v2);
            Files.createDirectory(cgroup.dir);
            try {
                String limit = Long.toString(limitBytes);
                if (v2) {
                    Files.writeString(cgroup.dir.resolve("memory.max"), limit);
                    writeIfPresent(cgroup.dir.resolve("memory.swap.max"), "0");
                } else {
                    Files.writeString(cgroup.dir.resolve("memory.limit_in_bytes"), limit);
                    // Memory plus swap, set after memory alone (the kernel keeps it at least that): no swapping past
                    // the limit where swap is accounted.
                    writeIfPresent(cgroup.dir.resolve("memory.memsw.limit_in_bytes"), limit);
                }
            } catch (IOException e) {
                cgroup.close();
                throw e;
            }
            return cgroup;
        }
    }

    /**
     * This machine's parent for the runs' cgroups: this process's own memory cgroup, so the runs stay under whatever
     * limits the benchmark itself runs in (a container's), else the hierarchy's root; the first under which a
     * limited cgroup can be made and removed. Not root, or neither works: why not.
     */
    static Parent parent() {
        try {
            if ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") != 0) {
                return Parent.none("not root");
            }
            Path mount = Path.of(MOUNT);
            boolean v2 = Files.exists(mount.resolve("cgroup.controllers"));
            if (!v2) {
                mount = mount.resolve("memory");
                if (!Files.isDirectory(mount)) {
                    return Parent.none("neither cgroup v2 nor v1's memory controller under " + MOUNT);
                }
            }
            String failure = "";
            for (Path candidate : new LinkedHashSet<>(List.of(own(mount, v2), mount))) {
                try {
                    if (v2) {
                        enableMemory(candidate);
                    }
                    Parent parent = new Parent(candidate, v2, null);
                    parent.create(
                                    "streams-memory-bench-probe-"
                                            + ProcessHandle.current().pid(),
                                    64L << 20)
                            .close();
                    return parent;
                } catch (IOException | RuntimeException e) {
                    failure += (failure.isEmpty() ? "" : "; ") + candidate + ": " + e;
                }
            }
            return Parent.none("cannot make a limited cgroup under " + failure);
        } catch (IOException | RuntimeException e) {
            return Parent.none(e.toString());
        }
    }

    /**
     * {@code command}, started by a shell that first moves itself into this cgroup and then becomes the command
     * (exec keeps its pid): the command is inside before it allocates anything.
     */
    List<String> command(List<String> command) {
        if (dir == null) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(
                List.of("/bin/sh", "-c", "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "sh"));
        wrapped.addAll(command);
        return wrapped;
    }

    boolean limited() {
        return dir != null;
    }

    /**
     * Whether the kernel killed a process of this cgroup for its limit: the OOM kills it counts (v2's memory.events,
     * v1's memory.oom_control since Linux 4.13); on older v1 kernels, an exit by SIGKILL after the limit was hit.
     */
    boolean killed(int exitStatus) throws IOException {
        if (dir == null) {
            return false;
        }
        long kills = counter(dir.resolve(v2 ? "memory.events" : "memory.oom_control"), "oom_kill");
        if (kills >= 0) {
            return kills > 0;
        }
        return exitStatus == 128 + 9
                && Long.parseLong(
                                Files.readString(dir.resolve("memory.failcnt")).trim())
                        > 0;
    }

    /** Removes the cgroup, once its processes are gone; says so when it cannot. */
    @Override
    public void close() {
        if (dir == null) {
            return;
        }
        long giveUp = System.currentTimeMillis() + REMOVE_MILLIS;
        while (true) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                if (System.currentTimeMillis() > giveUp) {
                    System.out.println("bench-memory: cgroup " + dir + " not removed: " + e);
                    return;
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return dir == null ? "no cgroup" : dir.toString();
    }

    /** This process's cgroup in the hierarchy mounted at {@code mount}, as /proc/self/cgroup names it. */
    private static Path own(Path mount, boolean v2) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            String[] fields = line.split(":", 3);
            boolean memory = v2
                    ? fields[0].equals("0") && fields[1].isEmpty()
                    : List.of(fields[1].split(",")).contains("memory");
            if (memory) {
                Path own = mount.resolve(fields[2].substring(1));
                // In a cgroup namespace the path may not be under this mount as seen here.
                return Files.isDirectory(own) ? own : mount;
            }
        }
        return mount;
    }

    /**
     * cgroup v2 gives a child the memory controller only when its parent lists it in cgroup.subtree_control; the
     * kernel refuses that for a parent other than the root that holds processes of its own.
     */
    private static void enableMemory(Path parent) throws IOException {
        if (!words(parent.resolve("cgroup.controllers")).contains("memory")) {
            throw new IOException("no memory controller in " + parent.resolve("cgroup.controllers"));
        }
        Path subtree = parent.resolve("cgroup.subtree_control");
        if (!words(subtree).contains("memory")) {
            Files.writeString(subtree, "+memory");
        }
    }

    private static List<String> words(Path file) throws IOException {
        return List.of(Files.readString(file).trim().split("\\s+"));
    }

    /** The figure after {@code key} in a "key value" file; -1 when the file has no such line. */
    private static long counter(Path file, String key) throws IOException {
        for (String line : Files.readAllLines(file)) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length == 2 && fields[0].equals(key)) {
                return Long.parseLong(fields[1]);
            }
        }
        return -1;
    }

    private static void writeIfPresent(Path file, String value) throws IOException {
        if (Files.exists(file)) {
            Files.writeString(file, value);
        }
    }
}
