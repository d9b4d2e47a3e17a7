package io.streamsmemory.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A short digest of the settings given, so a pod can record what it runs with: all an allocation applies for its
 * hash; its JVM options and RocksDB settings (no Kafka Streams config) for its restart hash.
 */
final class AllocationHash {
    private AllocationHash() {}

    static String of(List<String> jvmOptions, Map<String, String> streamsConfig, RocksDbSettings rocksDb) {
        StringBuilder canonical = new StringBuilder();
        jvmOptions.forEach(option -> canonical.append(option).append('\n'));
        new TreeMap<>(streamsConfig)
                .forEach((k, v) -> canonical.append(k).append('=').append(v).append('\n'));
        canonical.append(rocksDb == null ? "null" : rocksDb.canonical()); // null: no persistent store
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every JVM has SHA-256", impossible);
        }
    }
}
