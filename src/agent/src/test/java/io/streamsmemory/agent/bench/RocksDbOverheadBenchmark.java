package io.streamsmemory.agent.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.ObjectName;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;

/**
 * Measures the native memory one RocksDB instance costs beyond what the bounds catch: {@code make
 * bench-rocksdb-overhead} (the figure behind {@code MemoryModel.ROCKSDB_NATIVE_OVERHEAD_PER_INSTANCE}).
 *
 * <p>For each instance count N a fresh JVM (pre-touched fixed heap, C1 only so compiler arenas stay small, native
 * memory tracking on) creates the shared LRU cache and WriteBufferManager as the agent does and takes a first reading:
 * RSS, what the JVM itself committed (NMT total: heap, metaspace, code, stacks, GC, ...) and the cache's usage. It then
 * opens N RocksDB instances configured as Kafka Streams' RocksDBStore configures them and bounded as the agent's
 * SharedRocksDb bounds them (the shared cache and manager, 1 MiB memtables, 64 KiB arena blocks or
 * {@code -Darena=bytes}: {@code make bench-rocksdb-overhead ARENA=8192}), writes a little to each (WAL off, as
 * Kafka Streams), flushes it to one SST file (or {@code -Dflushes=N} files: {@code make bench-rocksdb-overhead
 * FLUSHES=N}), writes a little more into the memtable, reads keys back, and takes a second reading. The growth of
 * RSS that neither the JVM's growth nor the cache's (data, index and filter blocks, and the memtables the manager
 * charges to it) explains is the instances' unexplained memory; its
 * slope over N, by a least-squares fit, is the per-instance overhead (the intercept takes what does not scale with N).
 * Each count runs in several fresh JVMs and the median is kept.
 */
public final class RocksDbOverheadBenchmark {
    private static final int[] DEFAULT_COUNTS = {8, 16, 32, 64, 128};
    /** Per instance: 2,000 keys of ~100 B, about one Kafka Streams changelog-restore batch of a small store. */
    private static final int KEYS_PER_INSTANCE = 2_000;

    private static final int VALUE_BYTES = 100;
    /** Large enough that no instance's blocks are evicted: the cache's usage then explains all cached blocks. */
    private static final long CACHE_BYTES = 256L << 20;

    private static final long WRITE_BUFFER_MANAGER_BYTES = CACHE_BYTES / 3;
    private static final long WRITE_BUFFER_SIZE = 1L << 20;
    /** Arena block of every memtable ({@code -Darena=bytes}, default 64 KiB; the engine plans 4 KiB to 1 MiB). */
    private static final long ARENA_BLOCK = Long.getLong("arena", 64L << 10);

    private static final int REPEATS = 3;
    /** SST files per instance ({@code -Dflushes=N}, default 1): each a batch of keys written and flushed. Stay under
     *  universal compaction's trigger of 4 files, or the files are merged back into one. */
    private static final int FLUSHES = Integer.getInteger("flushes", 1);

    private RocksDbOverheadBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(Integer.parseInt(args[1]), Path.of(args[2]));
            return;
        }
        RocksDB.loadLibrary();
        int[] counts = args.length == 0
                ? DEFAULT_COUNTS
                : Stream.of(args).mapToInt(Integer::parseInt).toArray();
        System.out.printf(
                Locale.ROOT,
                "RocksDB %s, %d SST file(s) of %d keys x %d B per instance, %d KiB arena blocks, cache %d MiB "
                        + "(write buffers %d MiB), median of %d fresh JVMs per count; growth from opening the "
                        + "instances:%n",
                RocksDB.rocksdbVersion(),
                FLUSHES,
                KEYS_PER_INSTANCE,
                VALUE_BYTES,
                ARENA_BLOCK >> 10,
                CACHE_BYTES >> 20,
                WRITE_BUFFER_MANAGER_BYTES >> 20,
                REPEATS);
        System.out.printf(
                Locale.ROOT,
                "%9s %12s %12s %12s %12s %12s%n",
                "instances",
                "rss_delta",
                "jvm_nmt_delta",
                "cache_delta",
                "unexplained",
                "per_instance");
        List<double[]> points = new ArrayList<>();
        for (int n : counts) {
            List<long[]> runs = new ArrayList<>();
            for (int repeat = 0; repeat < REPEATS; repeat++) {
                runs.add(fork(n));
            }
            runs.sort(Comparator.comparingLong(run -> run[3]));
            long[] best = runs.get(runs.size() / 2);
            System.out.printf(
                    Locale.ROOT, "%9d %12d %12d %12d %12d %12d%n", n, best[0], best[1], best[2], best[3], best[3] / n);
            points.add(new double[] {n, best[3]});
        }
        double[] fit = fit(points);
        System.out.printf(
                Locale.ROOT,
                "fit: unexplained = %.0f B + %.0f B x instances (R^2 %.4f, %d points)%n",
                fit[0],
                fit[1],
                fit[2],
                points.size());
        System.out.printf(
                Locale.ROOT,
                "summary: rocksdb_native_overhead_per_instance=%d bytes (%.0f KiB)%n",
                Math.round(fit[1]),
                fit[1] / 1024);
    }

    /** Runs one count in a fresh JVM: the growth of {rss, jvm nmt committed, cache usage, unexplained}, in bytes. */
    private static long[] fork(int n) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("rocksdb-overhead-");
        try {
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process process = new ProcessBuilder(
                            java,
                            "-Xms64m",
                            "-Xmx64m",
                            "-XX:+AlwaysPreTouch",
                            "-XX:+UseSerialGC",
                            "-XX:TieredStopAtLevel=1",
                            "-XX:NativeMemoryTracking=summary",
                            "-Dflushes=" + FLUSHES,
                            "-Darena=" + ARENA_BLOCK,
                            "-cp",
                            System.getProperty("java.class.path"),
                            RocksDbOverheadBenchmark.class.getName(),
                            "child",
                            Integer.toString(n),
                            dir.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String output = new String(process.getInputStream().readAllBytes());
            if (process.waitFor() != 0) {
                throw new IllegalStateException("child for " + n + " instances failed: " + output);
            }
            String[] fields = output.trim().split("\\s+");
            long rss = Long.parseLong(fields[3]) - Long.parseLong(fields[0]);
            long nmt = Long.parseLong(fields[4]) - Long.parseLong(fields[1]);
            long cache = Long.parseLong(fields[5]) - Long.parseLong(fields[2]);
            return new long[] {rss, nmt, cache, rss - nmt - cache};
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        }
    }

    /** Least squares {intercept, slope, R^2} of y over x. */
    static double[] fit(List<double[]> points) {
        double n = points.size();
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        double syy = 0;
        for (double[] p : points) {
            sx += p[0];
            sy += p[1];
            sxx += p[0] * p[0];
            sxy += p[0] * p[1];
            syy += p[1] * p[1];
        }
        double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        double intercept = (sy - slope * sx) / n;
        double r = (n * sxy - sx * sy) / Math.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
        return new double[] {intercept, slope, r * r};
    }

    private static void child(int n, Path dir) throws Exception {
        RocksDB.loadLibrary();
        LRUCache cache = new LRUCache(CACHE_BYTES, -1, false, 0.1);
        WriteBufferManager manager = new WriteBufferManager(WRITE_BUFFER_MANAGER_BYTES, cache);
        List<RocksDB> dbs = new ArrayList<>();
        List<Options> options = new ArrayList<>();
        byte[] value = new byte[VALUE_BYTES];
        String before = reading(cache);
        try (WriteOptions write = new WriteOptions().setDisableWAL(true);
                FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            for (int i = 0; i < n; i++) {
                Options o = kafkaStreamsOptions(cache, manager);
                options.add(o);
                RocksDB db = RocksDB.open(o, dir.resolve("db-" + i).toString());
                dbs.add(db);
                for (int file = 0; file < FLUSHES; file++) {
                    for (int k = 0; k < KEYS_PER_INSTANCE; k++) {
                        value[k % VALUE_BYTES] = (byte) k;
                        db.put(write, String.format("key-%d-%08d", file, k).getBytes(), value);
                    }
                    db.flush(flush);
                }
                // A second batch stays in the memtable, as a live store's recent writes do.
                for (int k = 0; k < KEYS_PER_INSTANCE / 4; k++) {
                    db.put(write, String.format("new-%08d", k).getBytes(), value);
                }
            }
            for (RocksDB db : dbs) {
                for (int k = 0; k < KEYS_PER_INSTANCE; k += 7) {
                    db.get(String.format("key-%d-%08d", k % FLUSHES, k).getBytes());
                }
            }
            System.out.println(before + " " + reading(cache));
        } finally {
            dbs.forEach(RocksDB::close);
            options.forEach(Options::close);
            manager.close();
            cache.close();
        }
    }

    /** Kafka Streams' RocksDBStore defaults (block-based table, bloom filter, universal compaction, no compression)
     *  bounded as the agent's SharedRocksDb.apply bounds them. */
    private static Options kafkaStreamsOptions(LRUCache cache, WriteBufferManager manager) {
        BlockBasedTableConfig table = new BlockBasedTableConfig();
        table.setBlockSize(4096L);
        table.setFilterPolicy(new BloomFilter());
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        Options options = new Options();
        options.setCreateIfMissing(true);
        options.setErrorIfExists(false);
        options.setTableFormatConfig(table);
        options.setCompactionStyle(CompactionStyle.UNIVERSAL);
        options.setCompressionType(CompressionType.NO_COMPRESSION);
        options.setIncreaseParallelism(Math.max(Runtime.getRuntime().availableProcessors(), 2));
        options.setWriteBufferManager(manager);
        options.setWriteBufferSize(WRITE_BUFFER_SIZE);
        options.setMaxWriteBufferNumber(2);
        options.setArenaBlockSize(ARENA_BLOCK);
        return options;
    }

    /** "rss nmt usage" after a collection and a pause for background flushes to settle. */
    private static String reading(LRUCache cache) throws Exception {
        System.gc();
        Thread.sleep(2_000);
        return vmRss() + " " + nmtCommitted() + " " + cache.getUsage();
    }

    private static long vmRss() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    /** The JVM's own committed memory by native memory tracking (which does not see RocksDB's mallocs). */
    private static long nmtCommitted() throws Exception {
        String summary = (String) ManagementFactory.getPlatformMBeanServer()
                .invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"),
                        "vmNativeMemory",
                        new Object[] {new String[] {"summary"}},
                        new String[] {String[].class.getName()});
        Matcher total =
                Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB").matcher(summary);
        if (!total.find()) {
            throw new IllegalStateException("no NMT total in: " + summary);
        }
        return Long.parseLong(total.group(2)) * 1024;
    }
}
