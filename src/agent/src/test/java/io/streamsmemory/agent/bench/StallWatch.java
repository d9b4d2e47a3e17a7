package io.streamsmemory.agent.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a benchmark run was doing while it processed (almost) nothing: a stall that a summary's throughput ratio
 * only shows as a number is explained by the thread dumps taken while it lasts and by the JVM's GC pauses. Earlier
 * stalls at 512 MiB were only seen afterwards in {@code progress.csv}, with no dump of what the threads waited on.
 */
final class StallWatch {
    /** A run stalls while it processes under this share of its best one-second rate so far. */
    static final double STALL_SHARE = 0.1;
    /** Thread dumps per run, at most. */
    private static final int MAX_DUMPS = 5;
    /** The least time between two thread dumps of one run. */
    private static final long DUMP_INTERVAL_MILLIS = 5_000;
    /** The end of a G1 pause line of {@code -Xlog:gc}: "... 123M->45M(256M) 3.456ms". */
    private static final Pattern PAUSE = Pattern.compile("Pause.* (\\d+(?:\\.\\d+)?)ms$");

    private final long pid;
    private final Path dir;
    private int dumps;
    private long lastDumpMillis;

    StallWatch(long pid, Path dir) {
        this.pid = pid;
        this.dir = dir;
    }

    /** The JVM option that writes the run's GC log next to its other files. */
    static String gcLogOption(Path runDir) {
        return "-Xlog:gc:file=" + runDir.resolve("gc.log");
    }

    /** Called with the run's progress so far: saves a thread dump when its last second was a stall. */
    void check(List<MemoryBenchmark.Progress> progress) {
        if (dumps >= MAX_DUMPS || progress.size() < 3) {
            return;
        }
        MemoryBenchmark.Progress last = progress.get(progress.size() - 1);
        if (last.millis() - lastDumpMillis < DUMP_INTERVAL_MILLIS
                || rate(progress.get(progress.size() - 2), last) >= STALL_SHARE * bestRate(progress)) {
            return;
        }
        lastDumpMillis = last.millis();
        double second = (last.millis() - progress.get(0).millis()) / 1000.0;
        Path file = dir.resolve(String.format(Locale.ROOT, "stall-%03.0fs.txt", second));
        try {
            // The machine's dirty and in-flight page cache first: RocksDB's flushes end in an fsync.
            Files.write(file, pageCacheLines());
            Process jcmd = new ProcessBuilder(MemoryBenchmark.jdkTool("jcmd"), Long.toString(pid), "Thread.print")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(file.toFile()))
                    .start();
            jcmd.waitFor(20, TimeUnit.SECONDS);
            dumps++;
            System.out.printf(Locale.ROOT, "    stalled at %.0f s: thread dump in %s%n", second, file);
        } catch (IOException e) {
            System.out.println("    stalled, thread dump not taken: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Seconds of the run in which it processed under {@link #STALL_SHARE} of its best one-second rate. */
    static double stalledSeconds(List<MemoryBenchmark.Progress> progress) {
        double best = bestRate(progress);
        double stalled = 0;
        for (int i = 1; i < progress.size(); i++) {
            if (rate(progress.get(i - 1), progress.get(i)) < STALL_SHARE * best) {
                stalled += (progress.get(i).millis() - progress.get(i - 1).millis()) / 1000.0;
            }
        }
        return stalled;
    }

    /** The sum of the GC pauses in a run's {@code -Xlog:gc} file, in seconds (0 when there is none). */
    static double gcPauseSeconds(Path gcLog) {
        if (!Files.exists(gcLog)) {
            return 0;
        }
        try {
            double millis = 0;
            for (String line : Files.readAllLines(gcLog, StandardCharsets.UTF_8)) {
                Matcher pause = PAUSE.matcher(line.trim());
                if (pause.find()) {
                    millis += Double.parseDouble(pause.group(1));
                }
            }
            return millis / 1000;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static List<String> pageCacheLines() throws IOException {
        return Files.readAllLines(Path.of("/proc/meminfo")).stream()
                .filter(line -> line.startsWith("Dirty:") || line.startsWith("Writeback:"))
                .toList();
    }

    private static double bestRate(List<MemoryBenchmark.Progress> progress) {
        double best = 0;
        for (int i = 1; i < progress.size(); i++) {
            best = Math.max(best, rate(progress.get(i - 1), progress.get(i)));
        }
        return best;
    }

    private static double rate(MemoryBenchmark.Progress from, MemoryBenchmark.Progress to) {
        long millis = to.millis() - from.millis();
        return millis > 0 ? (to.count() - from.count()) * 1000.0 / millis : 0;
    }
}
