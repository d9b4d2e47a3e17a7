package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** The benchmark reads what a real RocksDB wrote to its LOG: its flushes, their reasons, compactions and L0. */
class RocksDbLogsTest {
    @Test
    void countsTheFlushesAndCompactionsOfARealRocksDb(@TempDir Path state) throws Exception {
        RocksDB.loadLibrary();
        Path dir = state.resolve("0_1").resolve("rocksdb").resolve("store");
        Files.createDirectories(dir);
        byte[] value = "v".repeat(100).getBytes(StandardCharsets.UTF_8);
        try (Options options = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(options, dir.toString());
                FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            // The same keys in every file: the compaction then merges them rather than moving files down.
            for (int file = 0; file < 3; file++) {
                for (int i = 0; i < 1_000; i++) {
                    db.put(("key-" + i).getBytes(StandardCharsets.UTF_8), value);
                }
                db.flush(flush);
            }
            db.compactRange();
        }

        RocksDbLogs logs = RocksDbLogs.read(state);

        assertThat(logs.instances()).isEqualTo(1);
        assertThat(logs.flushes()).isEqualTo(3);
        // Each flush held 1,000 entries of about 110 bytes of key and value.
        assertThat(logs.averageFlushBytes()).isBetween(100_000L, 200_000L);
        assertThat(logs.flushReasons()).containsOnlyKeys("Manual Flush");
        assertThat(logs.flushesByFamily()).containsOnlyKeys("default");
        assertThat(logs.flushesByFamily().get("default")[0]).isEqualTo(3);
        assertThat(logs.compactions()).isPositive();
        assertThat(logs.compactionOutputBytes()).isPositive();
        assertThat(logs.maxLevel0Files()).isEqualTo(3);
        assertThat(logs.line()).startsWith("rocksdb: instances=1 flushes=3 ");
    }

    @Test
    void namesWhyRocksDbStoppedOrSlowedWrites() {
        assertThat(RocksDbLogs.stallCause(
                        "[WARN] [db/column_family.cc:991] [default] Stopping writes because we have 2 "
                                + "immutable memtables (waiting for flush), max_write_buffer_number is set to 2"))
                .isEqualTo("stop:memtables");
        assertThat(RocksDbLogs.stallCause("[WARN] [default] Stalling writes because we have 20 level-0 files rate 123"))
                .isEqualTo("slow:level0");
        assertThat(RocksDbLogs.stallCause(
                        "[WARN] [default] Stopping writes because of estimated pending compaction bytes 123"))
                .isEqualTo("stop:pending-compaction");
    }

    @Test
    void noStateFolderIsNoFigures(@TempDir Path state) {
        assertThat(RocksDbLogs.read(state.resolve("missing"))).isEqualTo(RocksDbLogs.NONE);
    }
}
