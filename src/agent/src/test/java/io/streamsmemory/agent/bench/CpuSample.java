package io.streamsmemory.agent.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One reading of the CPU a benchmark run used and of the CPU the hypervisor took from the whole machine, so a run's
 * figures can say how much of the machine it really had. On a shared VM the steal share changes from minute to minute
 * (6-29% in {@code vmstat} on the project's machine, 2026-12-02), and a variant's throughput moves with it; the CPU
 * a run spends per record does not, since stolen time is charged to no process.
 *
 * @param epochMillis when it was read, on the same clock as the application's progress lines
 * @param processTicks user + system CPU of the run's JVM so far, in clock ticks
 * @param stealTicks CPU the hypervisor took from all of the machine's cores so far, in clock ticks
 * @param machineTicks all CPU time of the machine's cores so far, stolen included, in clock ticks
 */
record CpuSample(long epochMillis, long processTicks, long stealTicks, long machineTicks) {
    /** Linux's USER_HZ, which /proc reports CPU times in: 100 on every architecture the project runs on. */
    static final double TICKS_PER_SECOND = 100;

    /** Reads both now; null when the process is gone or /proc cannot be read. */
    static CpuSample read(long pid) {
        try {
            // /proc/<pid>/stat: the command may hold spaces, so fields are counted after its closing parenthesis;
            // utime and stime are fields 14 and 15 of the whole line.
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] afterCommand = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long process = Long.parseLong(afterCommand[11]) + Long.parseLong(afterCommand[12]);
            // /proc/stat's first line: cpu user nice system idle iowait irq softirq steal guest guest_nice
            // (guest time is already counted in user).
            List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            String[] cpu = lines.get(0).trim().split("\\s+");
            long machine = 0;
            for (int field = 1; field <= 8 && field < cpu.length; field++) {
                machine += Long.parseLong(cpu[field]);
            }
            long steal = cpu.length > 8 ? Long.parseLong(cpu[8]) : 0;
            return new CpuSample(System.currentTimeMillis(), process, steal, machine);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The last sample taken at or before {@code millis}, or the first one; null without samples. */
    static CpuSample at(List<CpuSample> samples, long millis) {
        CpuSample found = samples.isEmpty() ? null : samples.get(0);
        for (CpuSample sample : samples) {
            if (sample.epochMillis() <= millis) {
                found = sample;
            }
        }
        return found;
    }

    /** CPU microseconds the run's JVM used per record processed over {@code window}; NaN without samples. */
    static double microsPerRecord(List<CpuSample> samples, SteadyRate.Window window) {
        CpuSample from = at(samples, window.fromMillis());
        CpuSample to = at(samples, window.toMillis());
        long records = window.to().count() - window.from().count();
        return from == null || records <= 0 ? Double.NaN : to.processSecondsSince(from) * 1e6 / records;
    }

    /** CPU seconds the run's JVM used from {@code earlier} to this sample. */
    double processSecondsSince(CpuSample earlier) {
        return (processTicks - earlier.processTicks) / TICKS_PER_SECOND;
    }

    /** The share of the machine's CPU the hypervisor took from {@code earlier} to this sample (0 to 1). */
    double stealShareSince(CpuSample earlier) {
        long machine = machineTicks - earlier.machineTicks;
        return machine > 0 ? (stealTicks - earlier.stealTicks) / (double) machine : 0;
    }
}
