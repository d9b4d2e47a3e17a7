package io.streamsmemory.operator.workload;

import static io.streamsmemory.operator.workload.MetadataKeys.ALLOCATION_KEY;
import static io.streamsmemory.operator.workload.MetadataKeys.DATA_HASH;
import static io.streamsmemory.operator.workload.MetadataKeys.FIELD_MANAGER;
import static io.streamsmemory.operator.workload.MetadataKeys.TARGET_CONTAINER;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * What the operator's cache keeps of a ConfigMap it published. A published allocation is about 11 KB of JSON (each
 * part with its reason) and its managed fields parse into dozens of small maps; at 5,000 workloads the two were a
 * third of the operator's heap. The cache therefore keeps the document gzip-compressed (about a quarter of its size)
 * and, of the managed fields, only what {@link ConfigMapProvenance} asks of them: the first field manager other than
 * the operator's that wrote the published fields. Both ride on the cached object (never written back: the operator
 * publishes objects it builds), and every reader goes through {@link #data} and {@link #foreignWriter}, which read a
 * live object from the API server the same way.
 */
public final class CachedConfigMaps {
    /** Where a cached copy keeps its compressed allocation document (not a valid ConfigMap key). */
    static final String COMPRESSED_ALLOCATION = "streamsmemory.io/cached-allocation-gzip";
    /** Where a cached copy keeps {@link #foreignWriter}'s answer, "" for none. */
    static final String FOREIGN_WRITER = "streamsmemory.io/cached-foreign-writer";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private CachedConfigMaps() {}

    /** An item store for the published ConfigMaps' informer that keeps what {@link #trim} keeps. */
    public static ItemStore<ConfigMap> store() {
        return new TransformingItemStore<>(CachedConfigMaps::trim);
    }

    /** {@code configMap} as the cache keeps it, trimmed in place (see the class comment). */
    static ConfigMap trim(ConfigMap configMap) {
        configMap.setAdditionalProperty(FOREIGN_WRITER, foreignWriter(configMap).orElse(""));
        configMap.getMetadata().setManagedFields(null);
        Map<String, String> data = configMap.getData();
        String allocation = data == null ? null : data.remove(ALLOCATION_KEY);
        if (allocation != null) {
            configMap.setAdditionalProperty(COMPRESSED_ALLOCATION, gzip(allocation));
        }
        return configMap;
    }

    /** The ConfigMap's data as the API server holds it, from a live object or a cached copy; empty for none. */
    public static Map<String, String> data(ConfigMap configMap) {
        Map<String, String> data = configMap.getData() == null ? Map.of() : configMap.getData();
        Object compressed = configMap.getAdditionalProperties().get(COMPRESSED_ALLOCATION);
        if (!(compressed instanceof byte[] bytes)) {
            return data;
        }
        Map<String, String> whole = new LinkedHashMap<>(data);
        whole.put(ALLOCATION_KEY, gunzip(bytes));
        return whole;
    }

    /**
     * The first field manager other than the operator's that wrote the ConfigMap's data, binary data, target
     * container or data hash, from the managed fields of a live object or what the cache kept of them.
     */
    public static Optional<String> foreignWriter(ConfigMap configMap) {
        Object kept = configMap.getAdditionalProperties().get(FOREIGN_WRITER);
        if (kept instanceof String manager) {
            return manager.isEmpty() ? Optional.empty() : Optional.of(manager);
        }
        List<ManagedFieldsEntry> entries = configMap.getMetadata().getManagedFields();
        return entries == null
                ? Optional.empty()
                : entries.stream()
                        .filter(entry -> !FIELD_MANAGER.equals(entry.getManager()) && writesPublishedFields(entry))
                        .map(ManagedFieldsEntry::getManager)
                        .findFirst();
    }

    private static boolean writesPublishedFields(ManagedFieldsEntry entry) {
        if (entry.getFieldsV1() == null) {
            return false;
        }
        JsonNode fields = MAPPER.valueToTree(entry.getFieldsV1());
        JsonNode annotations = fields.path("f:metadata").path("f:annotations");
        return fields.has("f:data")
                || fields.has("f:binaryData")
                || annotations.has("f:" + TARGET_CONTAINER)
                || annotations.has("f:" + DATA_HASH);
    }

    private static byte[] gzip(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length() / 3);
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return bytes.toByteArray();
    }

    private static String gunzip(byte[] compressed) {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }
}
