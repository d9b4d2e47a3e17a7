package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.bench.MemoryBenchmark.Progress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;

/** RocksDB's block cache counters as the benchmark reads them, from real RocksDB instances sharing one statistics. */
class RocksDbTickersTest {
    @Test
    void oneStatisticsCountsTheBlockCacheOfStoresKafkaStreamsOpenedAndClosed(@TempDir Path dir) throws Exception {
        RocksDB.loadLibrary();
        Statistics shared = RocksDbTickers.countersOnly();
        byte[] value = "v".repeat(100).getBytes(StandardCharsets.UTF_8);
        try (LRUCache cache = new LRUCache(8 << 20)) {
            for (String store : List.of("segment-1", "segment-2")) {
                try (Options options = new Options()
                                .setCreateIfMissing(true)
                                .setStatistics(shared)
                                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
                        RocksDB db = RocksDB.open(options, dir.resolve(store).toString());
                        FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                    for (int i = 0; i < 1_000; i++) {
                        db.put(key(i), value);
                    }
                    db.flush(flush);
                    for (int round = 0; round < 3; round++) {
                        for (int i = 0; i < 1_000; i++) {
                            assertThat(db.get(key(i))).isEqualTo(value);
                        }
                    }
                    // Kafka Streams closes what the options' statistics() returns when it closes a store: a handle of
                    // its own on the same statistics, so the shared one counts on for the next store.
                    options.statistics().close();
                }
            }
        }

        RocksDbTickers counted = RocksDbTickers.parse(RocksDbTickers.line(shared, 5_000));
        assertThat(counted.millis()).isEqualTo(5_000);
        // Each store read its one file's data blocks three times: a miss the first time, hits after.
        assertThat(counted.dataMisses()).isPositive();
        assertThat(counted.dataHits()).isGreaterThan(2 * counted.dataMisses());
    }

    @Test
    void theRatiosAreOverTheSteadyWindowOnly() {
        List<RocksDbTickers> samples = List.of(
                // The start: every lookup a miss, and a long stall, both before the window.
                new RocksDbTickers(0, 0, 1_000, 0, 500, 9_000_000),
                new RocksDbTickers(100_000, 0, 2_000, 0, 1_000, 10_000_000),
                new RocksDbTickers(160_000, 600, 2_200, 900, 1_100, 10_500_000),
                new RocksDbTickers(220_000, 1_800, 2_600, 2_900, 1_100, 11_000_000));
        SteadyRate.Window window = new SteadyRate.Window(new Progress(100_000, 1), new Progress(220_000, 2));

        assertThat(RocksDbTickers.overWindow(samples, window))
                .isEqualTo("block cache hit ratio data=0.750 index+filter=0.967 (2400 and 3000 lookups), "
                        + "write stalls 1.0 s");
    }

    @Test
    void noSamplesNoRatios() {
        assertThat(RocksDbTickers.overWindow(List.of(), null)).isEqualTo("no RocksDB counters over the steady window");
        assertThat(RocksDbTickers.parse("PROCESSED 12 34")).isNull();
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
