package io.streamsmemory.engine;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One slice of the pod's memory: its size, the config keys it becomes, why it is that size, and
 * (for heap and RocksDB) the nested slices it is made of, which sum to it.
 */
public record Part(String name, long bytes, String reason, Map<String, String> config, List<Part> parts) {
    public Part {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(reason, "reason");
        // Sorted, so the published document is byte-for-byte the same on every JVM.
        config = config == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(config));
        parts = parts == null ? List.of() : List.copyOf(parts);
    }

    public static Part leaf(String name, long bytes, String reason, Map<String, String> config) {
        return new Part(name, bytes, reason, config, List.of());
    }

    /** A part made of nested parts; its size is their sum. */
    public static Part of(String name, String reason, Map<String, String> config, List<Part> parts) {
        return new Part(name, parts.stream().mapToLong(Part::bytes).sum(), reason, config, parts);
    }

    /** Finds a part by name anywhere below (or at) this one. */
    public Optional<Part> find(String partName) {
        if (name.equals(partName)) {
            return Optional.of(this);
        }
        return parts.stream()
                .map(p -> p.find(partName))
                .flatMap(Optional::stream)
                .findFirst();
    }
}
