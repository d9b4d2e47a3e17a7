package io.streamsmemory.agent.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * One reading of the bytes a run's JVM made the kernel fetch from and send to storage ({@code /proc/<pid>/io}'s
 * {@code read_bytes} and {@code write_bytes}): RocksDB's reads that neither its block cache nor the page cache held,
 * and its flushes and compactions. In a memory cgroup the page cache counts against the limit, so a pod whose process
 * takes most of its budget keeps little of its SST files in memory, and a read the block cache misses goes to disk;
 * the unbounded anchor's 8 GiB cgroup keeps them all.
 *
 * @param epochMillis when it was read, on the same clock as the application's progress lines
 */
record IoSample(long epochMillis, long readBytes, long writeBytes) {
    /** Reads it now; null when the process is gone or its {@code io} file cannot be read. */
    static IoSample read(long pid) {
        try {
            long read = -1;
            long write = -1;
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
                if (line.startsWith("read_bytes: ")) {
                    read = Long.parseLong(
                            line.substring("read_bytes: ".length()).trim());
                } else if (line.startsWith("write_bytes: ")) {
                    write = Long.parseLong(
                            line.substring("write_bytes: ".length()).trim());
                }
            }
            return read < 0 || write < 0 ? null : new IoSample(System.currentTimeMillis(), read, write);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Bytes read from storage per record processed over {@code window}; NaN without samples in it. */
    static double readBytesPerRecord(List<IoSample> samples, SteadyRate.Window window) {
        IoSample from = Samples.atOrBefore(samples, IoSample::epochMillis, window.fromMillis());
        IoSample to = Samples.atOrBefore(samples, IoSample::epochMillis, window.toMillis());
        long records = window.to().count() - window.from().count();
        return from == null || to == null || records <= 0
                ? Double.NaN
                : (to.readBytes - from.readBytes) / (double) records;
    }

    /** Storage reads and writes per second over the steady window, as a run's row prints them. */
    static String overWindow(List<IoSample> samples, SteadyRate.Window window) {
        IoSample from = window == null ? null : Samples.atOrBefore(samples, IoSample::epochMillis, window.fromMillis());
        IoSample to = window == null ? null : Samples.atOrBefore(samples, IoSample::epochMillis, window.toMillis());
        if (from == null || to == null || to.epochMillis <= from.epochMillis) {
            return "no storage figures over the steady window";
        }
        double seconds = (to.epochMillis - from.epochMillis) / 1000.0;
        return String.format(
                Locale.ROOT,
                "storage reads %.1f MiB/s, writes %.1f MiB/s",
                (to.readBytes - from.readBytes) / seconds / 1048576.0,
                (to.writeBytes - from.writeBytes) / seconds / 1048576.0);
    }
}
