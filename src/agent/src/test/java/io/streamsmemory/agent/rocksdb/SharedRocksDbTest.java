package io.streamsmemory.agent.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.allocation.RocksDbSettings;
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
                new SharedRocksDb(new RocksDbSettings(64L << 20, 16L << 20, 4L << 20, 2, 0.1, false, 8192, 1));
        try (Options options = new Options().setTableFormatConfig(new BlockBasedTableConfig())) {
            shared.apply("latest-store", options);

            BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
            assertThat(table.cacheIndexAndFilterBlocks()).isTrue();
            assertThat(table.indexType()).isEqualTo(IndexType.kBinarySearch);
            assertThat(table.partitionFilters()).isFalse();
            assertThat(options.writeBufferSize()).isEqualTo(4L << 20);
            assertThat(options.maxWriteBufferNumber()).isEqualTo(2);
            assertThat(options.arenaBlockSize()).isEqualTo(8192);
        }
    }

    @Test
    void thePlannedFlushThreadsReplaceTheOneKafkaStreamsLeaves() {
        RocksDB.loadLibrary();
        Env env = Env.getDefault();
        try {
            env.setBackgroundThreads(1, Priority.HIGH); // what Kafka Streams' RocksDBStore sets at every open

            SharedRocksDb.raiseFlushThreads(env, 3);

            assertThat(env.getBackgroundThreads(Priority.HIGH)).isEqualTo(3);
        } finally {
            env.setBackgroundThreads(1, Priority.HIGH);
        }
    }

    @Test
    void aLargerPoolTheApplicationChoseStays() {
        RocksDB.loadLibrary();
        Env env = Env.getDefault();
        try {
            env.setBackgroundThreads(6, Priority.HIGH);

            SharedRocksDb.raiseFlushThreads(env, 3);
            SharedRocksDb.raiseFlushThreads(env, 0); // a document from before the engine planned them

            assertThat(env.getBackgroundThreads(Priority.HIGH)).isEqualTo(6);
        } finally {
            env.setBackgroundThreads(1, Priority.HIGH);
        }
    }

    @Test
    void aSmallerPoolTheApplicationChoseStays() {
        RocksDB.loadLibrary();
        Env env = Env.getDefault();
        try {
            env.setBackgroundThreads(2, Priority.HIGH); // the application's setter, after Kafka Streams' reset to one

            SharedRocksDb.raiseFlushThreads(env, 4);

            assertThat(env.getBackgroundThreads(Priority.HIGH)).isEqualTo(2);
        } finally {
            env.setBackgroundThreads(1, Priority.HIGH);
        }
    }
}
