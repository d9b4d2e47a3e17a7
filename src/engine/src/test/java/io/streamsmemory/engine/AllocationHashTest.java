package io.streamsmemory.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hashes pods record must not change unless a setting does: a different digest of the same settings would
 * roll every workload the operator manages at its next upgrade.
 */
class AllocationHashTest {
    private static final RocksDbSettings ROCKSDB =
            new RocksDbSettings(536_870_912L, 178_956_970L, 16_777_216L, 2, 0.1, false, 1_048_576L, 4);
    /**
     * The restart digest the toString()-based hashing gave for these settings (computed with the code before the
     * change: the same settings with no Kafka Streams config).
     */
    private static final String PINNED = "fbbcfdf1ffe90c52";

    private static final String PINNED_STATELESS = "7e6bb9949ea07025";

    @Test
    void theSameSettingsGiveTheRestartDigestTheyAlwaysGave() {
        // Pinned when the digest stopped depending on the record's toString(); changing it rolls every workload.
        assertThat(AllocationHash.restart(List.of("-Xms1g", "-Xmx1g"), ROCKSDB))
                .isEqualTo(AllocationHash.restart(List.of("-Xms1g", "-Xmx1g"), ROCKSDB))
                .isEqualTo(PINNED);
        assertThat(ROCKSDB.canonical())
                .isEqualTo("RocksDbSettings[blockCacheCapacityBytes=536870912, "
                        + "writeBufferManagerBytes=178956970, writeBufferSizeBytes=16777216, maxWriteBufferNumber=2, "
                        + "highPriorityPoolRatio=0.1, strictCapacityLimit=false, arenaBlockSizeBytes=1048576]");
    }

    @Test
    void aStatelessAllocationGivesTheDigestItAlwaysGave() {
        // Pinned from the toString()-based code, like PINNED: no RocksDB settings were appended as "null".
        assertThat(AllocationHash.restart(List.of("-Xmx1g"), null))
                .isEqualTo(AllocationHash.of(List.of("-Xmx1g"), Map.of(), null))
                .isEqualTo(PINNED_STATELESS);
    }

    @Test
    void theFlushThreadsChangeTheHashButRollNothing() {
        RocksDbSettings moreThreads =
                new RocksDbSettings(536_870_912L, 178_956_970L, 16_777_216L, 2, 0.1, false, 1_048_576L, 2);
        assertThat(AllocationHash.of(List.of("-Xmx1g"), Map.of(), moreThreads))
                .isNotEqualTo(AllocationHash.of(List.of("-Xmx1g"), Map.of(), ROCKSDB));
        assertThat(AllocationHash.restart(List.of("-Xmx1g"), moreThreads))
                .isEqualTo(AllocationHash.restart(List.of("-Xmx1g"), ROCKSDB));
    }

    @Test
    void everySettingChangesTheDigest() {
        String base = AllocationHash.of(List.of("-Xmx1g"), Map.of(), ROCKSDB);
        assertThat(AllocationHash.of(List.of("-Xmx2g"), Map.of(), ROCKSDB)).isNotEqualTo(base);
        assertThat(AllocationHash.of(List.of("-Xmx1g"), Map.of("k", "v"), ROCKSDB))
                .isNotEqualTo(base);
        assertThat(AllocationHash.of(
                        List.of("-Xmx1g"),
                        Map.of(),
                        new RocksDbSettings(536_870_912L, 178_956_970L, 16_777_216L, 2, 0.1, false, 2_097_152L, 4)))
                .isNotEqualTo(base);
    }
}
