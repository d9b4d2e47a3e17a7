package io.streamsmemory.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.protocol.RocksDbSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hashes pods record must not change unless a setting does: a different digest of the same settings would
 * roll every workload the operator manages at its next upgrade.
 */
class AllocationHashTest {
    private static final RocksDbSettings ROCKSDB =
            new RocksDbSettings(536_870_912L, 178_956_970L, 16_777_216L, 2, 0.1, false, 1_048_576L, 4, false);
    /**
     * The restart digest of these settings. It changed once since it stopped depending on the record's toString()
     * (then fbbcfdf1ffe90c52): when the arena block size left it, because it bounds no memory. That operator upgrade
     * rolls each Automatic workload once; no arena block change rolls one after it.
     */
    private static final String PINNED = "df210d81ac486da8";

    private static final String PINNED_STATELESS = "7e6bb9949ea07025";

    @Test
    void theSameSettingsGiveTheRestartDigestTheyAlwaysGave() {
        // Changing it rolls every workload the operator manages.
        assertThat(AllocationHash.restart(List.of("-Xms1g", "-Xmx1g"), ROCKSDB))
                .isEqualTo(AllocationHash.restart(List.of("-Xms1g", "-Xmx1g"), ROCKSDB))
                .isEqualTo(PINNED);
        assertThat(ROCKSDB.canonical())
                .isEqualTo("RocksDbSettings[blockCacheCapacityBytes=536870912, "
                        + "writeBufferManagerBytes=178956970, writeBufferSizeBytes=16777216, maxWriteBufferNumber=2, "
                        + "highPriorityPoolRatio=0.1, strictCapacityLimit=false]");
    }

    @Test
    void aStatelessAllocationGivesTheDigestItAlwaysGave() {
        // Pinned from the toString()-based code, like PINNED: no RocksDB settings were appended as "null".
        assertThat(AllocationHash.restart(List.of("-Xmx1g"), null))
                .isEqualTo(AllocationHash.of(List.of("-Xmx1g"), Map.of(), null))
                .isEqualTo(PINNED_STATELESS);
    }

    @Test
    void theFlushThreadsAndArenaBlocksChangeTheHashButRollNothing() {
        RocksDbSettings fewerThreads =
                new RocksDbSettings(536_870_912L, 178_956_970L, 16_777_216L, 2, 0.1, false, 1_048_576L, 2, false);
        RocksDbSettings smallerBlocks =
                new RocksDbSettings(536_870_912L, 178_956_970L, 16_777_216L, 2, 0.1, false, 65_536L, 4, false);
        for (RocksDbSettings other : List.of(fewerThreads, smallerBlocks)) {
            assertThat(AllocationHash.of(List.of("-Xmx1g"), Map.of(), other))
                    .isNotEqualTo(AllocationHash.of(List.of("-Xmx1g"), Map.of(), ROCKSDB));
            assertThat(AllocationHash.restart(List.of("-Xmx1g"), other))
                    .isEqualTo(AllocationHash.restart(List.of("-Xmx1g"), ROCKSDB));
        }
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
                        new RocksDbSettings(
                                536_870_912L, 178_956_970L, 16_777_216L, 2, 0.1, false, 2_097_152L, 4, false)))
                .isNotEqualTo(base);
    }
}
