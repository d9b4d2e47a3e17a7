package io.streamsmemory.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.IndexType;

class SharedRocksDbTest {
    @Test
    void theDefaultIndexIsPartitionedWithItsFilters() {
        BlockBasedTableConfig table = new BlockBasedTableConfig();

        SharedRocksDb.partitionIndexAndFilters(table);

        assertThat(table.indexType()).isEqualTo(IndexType.kTwoLevelIndexSearch);
        assertThat(table.partitionFilters()).isTrue();
    }

    @Test
    void anIndexTheApplicationChoseStays() {
        BlockBasedTableConfig table = new BlockBasedTableConfig().setIndexType(IndexType.kHashSearch);

        SharedRocksDb.partitionIndexAndFilters(table);

        assertThat(table.indexType()).isEqualTo(IndexType.kHashSearch);
        assertThat(table.partitionFilters()).isFalse();
    }
}
