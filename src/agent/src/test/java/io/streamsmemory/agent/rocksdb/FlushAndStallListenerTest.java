package io.streamsmemory.agent.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.protocol.RocksDbSettings;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactionStyle;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.FlushOptions;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** The report's flush and stall figures, from a real RocksDB bounded by the agent. */
class FlushAndStallListenerTest {
    private static final int KEY_BYTES = 16;
    private static final int VALUE_BYTES = 100;
    /** RocksDB's internal key: the user key and 8 bytes of sequence number and type. */
    private static final int INTERNAL_KEY_BYTES = 8;

    @TempDir
    Path dir;

    /** One flush thread, so that flushes complete (and are counted) in the order they were asked for. */
    private static SharedRocksDb shared() {
        RocksDB.loadLibrary();
        return new SharedRocksDb(new RocksDbSettings(64L << 20, 16L << 20, 4L << 20, 2, 0.1, false, 8192, 1, false));
    }

    @Test
    void flushesAndTheirRawBytesAreCountedButNotThoseOfTheOffsetsColumnFamily() throws Exception {
        AtomicInteger applicationSaw = new AtomicInteger();
        RocksDB.loadLibrary();
        try (ApplicationListener application = new ApplicationListener(applicationSaw);
                Options options =
                        new Options().setCreateIfMissing(true).setTableFormatConfig(new BlockBasedTableConfig())) {
            options.setListeners(List.of(application)); // what an application's own setter may have done
            shared().apply("counted-store", options, false);
            assertThat(options.listeners()).hasSize(2).startsWith(application);
            shared().apply("counted-store", options, false); // options seen twice still carry the agent's listener once
            assertThat(options.listeners()).hasSize(2);
            assertThat(RocksDbStats.listening).isTrue();

            long flushes = RocksDbStats.FLUSHES.get();
            long bytes = RocksDbStats.FLUSHED_BYTES.get();
            try (RocksDB db = RocksDB.open(options, dir.toString());
                    ColumnFamilyOptions cfOptions = new ColumnFamilyOptions();
                    ColumnFamilyHandle offsets = db.createColumnFamily(new ColumnFamilyDescriptor(
                            FlushAndStallListener.OFFSETS_COLUMN_FAMILY.getBytes(StandardCharsets.UTF_8), cfOptions));
                    FlushOptions wait = new FlushOptions().setWaitForFlush(true)) {
                write(db, offsets, 0, 50);
                db.flush(wait, offsets);
                for (int batch = 1; batch <= 3; batch++) {
                    write(db, db.getDefaultColumnFamily(), batch * 1000, 200);
                    db.flush(wait);
                }
                // RocksDB may call listeners just after flush() returns; the application's listener is called first.
                awaitTrue(() -> applicationSaw.get() == 4 && RocksDbStats.FLUSHES.get() - flushes == 3);
                db.dropColumnFamily(offsets);
            }
            assertThat(applicationSaw).hasValue(4); // the application's listener still sees every flush
            assertThat(RocksDbStats.FLUSHES.get() - flushes).isEqualTo(3); // the offsets one is left out
            long entries = 3 * 200;
            assertThat(RocksDbStats.FLUSHED_BYTES.get() - bytes)
                    .isEqualTo(entries * (KEY_BYTES + INTERNAL_KEY_BYTES + VALUE_BYTES));
        }
    }

    /**
     * A real stall: with no compaction style (so nothing empties level 0) and writes stopped at two level-0 files, the
     * second flush stops writes; raising the limits ends the stall.
     */
    @Test
    void aRealWriteStallIsTimedWithinTheUptime() throws Exception {
        try (Options options = new Options()
                        .setCreateIfMissing(true)
                        .setTableFormatConfig(new BlockBasedTableConfig())
                        .setCompactionStyle(CompactionStyle.NONE)
                        .setLevel0FileNumCompactionTrigger(2)
                        .setLevel0SlowdownWritesTrigger(2)
                        .setLevel0StopWritesTrigger(2);
                FlushOptions wait = new FlushOptions().setWaitForFlush(true).setAllowWriteStall(true)) {
            shared().apply("stalled-store", options, false);
            long before = RocksDbStats.WRITE_STALLS.millis();
            try (RocksDB db = RocksDB.open(options, dir.toString())) {
                for (int file = 0; file < 2; file++) {
                    write(db, db.getDefaultColumnFamily(), file * 1000, 10);
                    db.flush(wait);
                }
                awaitTrue(() -> RocksDbStats.WRITE_STALLS.stalledNow() > 0);
                Thread.sleep(50);
                db.setOptions(MutableColumnFamilyOptions.builder()
                        .setLevel0SlowdownWritesTrigger(20)
                        .setLevel0StopWritesTrigger(20)
                        .build());
                awaitTrue(() -> RocksDbStats.WRITE_STALLS.stalledNow() == 0);
            }
            long stalled = RocksDbStats.WRITE_STALLS.millis() - before;
            assertThat(stalled)
                    .isGreaterThanOrEqualTo(50)
                    .isLessThanOrEqualTo(ManagementFactory.getRuntimeMXBean().getUptime());
            assertThat(RocksDbStats.WRITE_STALLS.millis()).isEqualTo(before + stalled); // the clock stopped
        }
    }

    private static void write(RocksDB db, ColumnFamilyHandle family, int first, int count) throws RocksDBException {
        for (int i = first; i < first + count; i++) {
            byte[] key = String.format("key-%012d", i).getBytes(StandardCharsets.US_ASCII);
            assertThat(key).hasSize(KEY_BYTES);
            db.put(family, key, new byte[VALUE_BYTES]);
        }
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        // 60 s: a background flush takes milliseconds, unless the two cores run make test's lanes and a build.
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(condition.getAsBoolean()).as("within 60 s").isTrue();
    }

    /** An application's own listener, as its rocksdb.config.setter may add one. */
    private static final class ApplicationListener extends AbstractEventListener {
        private final AtomicInteger flushes;

        ApplicationListener(AtomicInteger flushes) {
            super(EnabledEventCallback.ON_FLUSH_COMPLETED);
            this.flushes = flushes;
        }

        @Override
        public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
            flushes.incrementAndGet();
        }
    }
}
