package io.streamsmemory.agent.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.protocol.RocksDbSettings;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Env;
import org.rocksdb.IndexType;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.RocksDB;

class SharedRocksDbTest {
    @Test
    void theStoreIsBoundButKeepsItsIndexAndFilters() {
        RocksDB.loadLibrary();
        SharedRocksDb shared =
                new SharedRocksDb(new RocksDbSettings(64L << 20, 16L << 20, 4L << 20, 2, 0.1, false, 8192, 1, false));
        try (Options options = new Options().setTableFormatConfig(new BlockBasedTableConfig())) {
            options.setOptimizeFiltersForHits(true); // Kafka Streams 4.2+
            shared.apply("latest-store", options, false);

            BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
            assertThat(table.cacheIndexAndFilterBlocks()).isTrue();
            assertThat(table.indexType()).isEqualTo(IndexType.kBinarySearch);
            assertThat(table.partitionFilters()).isFalse();
            assertThat(options.writeBufferSize()).isEqualTo(4L << 20);
            assertThat(options.maxWriteBufferNumber()).isEqualTo(2);
            assertThat(options.arenaBlockSize()).isEqualTo(8192);
            // A plan from before lastLevelFilters leaves Kafka Streams' value.
            assertThat(options.optimizeFiltersForHits()).isTrue();
        }
    }

    @Test
    void theLastLevelKeepsItsFiltersUnlessTheApplicationsSetterChose() {
        RocksDB.loadLibrary();
        RocksDbStats.reset();
        SharedRocksDb shared =
                new SharedRocksDb(new RocksDbSettings(64L << 20, 16L << 20, 4L << 20, 2, 0.1, false, 8192, 1, true));
        try (Options kafkas = new Options().setTableFormatConfig(new BlockBasedTableConfig());
                Options applications = new Options().setTableFormatConfig(new BlockBasedTableConfig())) {
            kafkas.setOptimizeFiltersForHits(true);
            shared.apply("latest-store", kafkas, SharedRocksDb.filtersForHitsChanged(kafkas, true));
            assertThat(kafkas.optimizeFiltersForHits()).isFalse();
            assertThat(RocksDbStats.KEPT_APPLICATION_OPTIONS).isEmpty();

            // Kafka Streams set false (before 4.2), the application's setter true: the application's choice stays.
            applications.setOptimizeFiltersForHits(true);
            shared.apply("count-store", applications, SharedRocksDb.filtersForHitsChanged(applications, false));
            assertThat(applications.optimizeFiltersForHits()).isTrue();
            assertThat(RocksDbStats.KEPT_APPLICATION_OPTIONS).containsExactly("optimize_filters_for_hits");
        } finally {
            RocksDbStats.reset();
        }
    }

    @Test
    void thePlannedFlushThreadsReplaceTheOneKafkaStreamsLeaves() {
        // 1: what Kafka Streams' RocksDBStore sets at every open.
        assertFlushThreadsAfterRaising(1, new int[] {3}, 3);
    }

    @Test
    void aLargerPoolTheApplicationChoseStays() {
        // The 0: a document from before the engine planned them.
        assertFlushThreadsAfterRaising(6, new int[] {3, 0}, 6);
    }

    @Test
    void aSmallerPoolTheApplicationChoseStays() {
        // 2: the application's setter, after Kafka Streams' reset to one.
        assertFlushThreadsAfterRaising(2, new int[] {4}, 2);
    }

    /**
     * The default Env's flush (HIGH) pool set to {@code pool}, then raised to each of {@code planned} in turn, holds
     * {@code expected} threads. The pool is left at Kafka Streams' one after.
     */
    private static void assertFlushThreadsAfterRaising(int pool, int[] planned, int expected) {
        RocksDB.loadLibrary();
        Env env = Env.getDefault();
        try {
            env.setBackgroundThreads(pool, Priority.HIGH);
            for (int threads : planned) {
                SharedRocksDb.raiseFlushThreads(env, threads);
            }
            assertThat(env.getBackgroundThreads(Priority.HIGH)).isEqualTo(expected);
        } finally {
            env.setBackgroundThreads(1, Priority.HIGH);
        }
    }
}
