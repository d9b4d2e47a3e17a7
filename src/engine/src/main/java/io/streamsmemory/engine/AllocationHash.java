package io.streamsmemory.engine;

import io.streamsmemory.protocol.RocksDbSettings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A short digest of the settings given, so a pod can record what it runs with: all an allocation applies for its
 * hash; the JVM options and RocksDB's memory bounds (no Kafka Streams config, no arena blocks or flush threads) for
 * its restart hash, the settings worth a restart. A setting added later enters the digest only when it differs from
 * what documents before it meant, so an unchanged plan keeps its hash.
 */
final class AllocationHash {
    private AllocationHash() {}

    /** Every setting the allocation applies. */
    static String of(List<String> jvmOptions, Map<String, String> streamsConfig, RocksDbSettings rocksDb) {
        String rocks = rocksDb == null
                ? "null"
                : rocksDb.canonical() + "\narenaBlockSizeBytes=" + rocksDb.arenaBlockSizeBytes()
                        + "\nbackgroundFlushThreads=" + rocksDb.backgroundFlushThreads()
                        + (rocksDb.lastLevelFilters() ? "\nlastLevelFilters=true" : "");
        return digest(jvmOptions, streamsConfig, rocks);
    }

    /** What a running JVM cannot take and whose change is worth a restart: the JVM options and RocksDB's bounds. */
    static String restart(List<String> jvmOptions, RocksDbSettings rocksDb) {
        return digest(jvmOptions, Map.of(), rocksDb == null ? "null" : rocksDb.canonical());
    }

    private static String digest(List<String> jvmOptions, Map<String, String> streamsConfig, String rocksDb) {
        StringBuilder canonical = new StringBuilder();
        jvmOptions.forEach(option -> canonical.append(option).append('\n'));
        new TreeMap<>(streamsConfig)
                .forEach((k, v) -> canonical.append(k).append('=').append(v).append('\n'));
        canonical.append(rocksDb); // "null": no persistent store
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every JVM has SHA-256", impossible);
        }
    }
}
