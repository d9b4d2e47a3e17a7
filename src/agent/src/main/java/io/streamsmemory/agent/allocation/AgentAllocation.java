package io.streamsmemory.agent.allocation;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamsmemory.agent.log.Bytes;
import io.streamsmemory.protocol.AllocationFormat;
import io.streamsmemory.protocol.RocksDbSettings;
import io.streamsmemory.protocol.StreamsConfigKeys;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An allocation document that passed the agent's checks: every number it will apply is present, non-negative and
 * plausible for the pod it was computed for. Anything else is rejected as a whole; the agent never applies half a
 * document.
 */
public final class AgentAllocation {
    /** Larger than any pod this agent is meant for: a value beyond it is a broken document, not a big pod. */
    static final long ABSURD_MEMORY_BYTES = 64L << 40;
    /** RocksDB accepts at most a few dozen memtables per column family before it stalls writes anyway. */
    static final int MAX_WRITE_BUFFER_NUMBER = 64;
    /** More flush threads than this is no pod's plan (the engine sets at most a few): a broken document. */
    static final int MAX_FLUSH_THREADS = 64;

    /** A pod runs a handful of KafkaStreams instances at most; more is a broken document. */
    static final int MAX_INSTANCES = 64;

    private final String hash;
    private final String restartHash;
    private final long memoryBytes;
    private final Map<String, Long> streamsConfig;
    private final RocksDbSettings rocksDb;
    private final String source;
    private final int instancesPerPod;
    private final Map<String, Long> plannedLimits;
    private final long plannedLoadedClasses;

    private AgentAllocation(
            String hash,
            String restartHash,
            long memoryBytes,
            Map<String, Long> streamsConfig,
            RocksDbSettings rocksDb,
            String source,
            int instancesPerPod,
            Map<String, Long> plannedLimits,
            long plannedLoadedClasses) {
        this.hash = hash;
        this.restartHash = restartHash;
        this.memoryBytes = memoryBytes;
        this.streamsConfig = Collections.unmodifiableMap(streamsConfig);
        this.rocksDb = rocksDb;
        this.source = source;
        this.instancesPerPod = instancesPerPod;
        this.plannedLimits = Collections.unmodifiableMap(plannedLimits);
        this.plannedLoadedClasses = plannedLoadedClasses;
    }

    /**
     * Reads and checks an allocation document (the JSON of {@code plan --output json}, the engine's
     * {@code AllocationDocument}). The agent reads only the fields it applies, so fields added later are ignored.
     *
     * @throws IllegalArgumentException naming the first problem found
     */
    public static AgentAllocation of(JsonNode document, String source) {
        if (document == null || !document.isObject()) {
            throw new IllegalArgumentException("the document is not a JSON object");
        }
        String kind = text(document, "kind");
        if (!AllocationFormat.KIND.equals(kind)) {
            throw new IllegalArgumentException("kind is " + quote(kind) + ", expected " + AllocationFormat.KIND);
        }
        String apiVersion = text(document, "apiVersion");
        if (!AllocationFormat.API_VERSION.equals(apiVersion)) {
            throw new IllegalArgumentException(
                    "apiVersion is " + quote(apiVersion) + ", expected " + AllocationFormat.API_VERSION);
        }
        JsonNode format = document.get("formatVersion");
        if (format == null || !format.isIntegralNumber() || format.asLong() != AllocationFormat.FORMAT_VERSION) {
            throw new IllegalArgumentException("formatVersion " + (format == null ? "missing" : format.toString())
                    + " is not supported (this agent reads formatVersion " + AllocationFormat.FORMAT_VERSION + ")");
        }
        long memory = wholeNumber(document, "memoryBytes");
        if (memory <= 0 || memory > ABSURD_MEMORY_BYTES) {
            throw new IllegalArgumentException("memoryBytes " + memory + " is not a plausible pod memory");
        }
        Map<String, Long> config = readStreamsConfig(document, memory);
        RocksDbSettings rocks = readRocksDb(document, memory);
        if (config.isEmpty() && rocks == null) {
            throw new IllegalArgumentException("it has neither streamsConfig nor rocksdb settings");
        }
        String hash = text(document, "hash");
        String restartHash = text(document, "restartHash");
        return new AgentAllocation(
                hash == null || hash.isBlank() ? "unhashed" : hash,
                restartHash == null || restartHash.isBlank() ? null : restartHash,
                memory,
                config,
                rocks,
                source,
                readInstances(document),
                readPlannedLimits(document, memory),
                readPlannedLoadedClasses(document));
    }

    private static Map<String, Long> readStreamsConfig(JsonNode document, long memory) {
        Map<String, Long> config = new LinkedHashMap<>();
        JsonNode streamsConfig = document.get("streamsConfig");
        if (streamsConfig == null || streamsConfig.isNull()) {
            return config;
        }
        if (!streamsConfig.isObject()) {
            throw new IllegalArgumentException("streamsConfig is not an object");
        }
        Iterator<Map.Entry<String, JsonNode>> fields = streamsConfig.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> entry = fields.next();
            String key = entry.getKey();
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("streamsConfig has an empty key");
            }
            JsonNode node = entry.getValue();
            long value;
            try {
                if (node.isIntegralNumber() && node.canConvertToLong()) {
                    value = node.asLong();
                } else if (node.isTextual()) {
                    value = Long.parseLong(node.asText().trim());
                } else {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("streamsConfig " + key + " = " + node + " is not a whole number");
            }
            if (value < 0) {
                throw new IllegalArgumentException("streamsConfig " + key + " = " + value + " is negative");
            }
            if (value > memory) {
                throw new IllegalArgumentException("streamsConfig " + key + " = " + value
                        + " is larger than the whole pod (" + memory + " bytes)");
            }
            config.put(key, value);
        }
        return config;
    }

    private static RocksDbSettings readRocksDb(JsonNode document, long memory) {
        JsonNode rocksNode = document.get("rocksdb");
        if (rocksNode == null || rocksNode.isNull()) {
            return null;
        }
        if (!rocksNode.isObject()) {
            throw new IllegalArgumentException("rocksdb is not an object");
        }
        long capacity = wholeNumber(rocksNode, "blockCacheCapacityBytes");
        checkRange("rocksdb.blockCacheCapacityBytes", capacity, 1, memory);
        long manager = wholeNumber(rocksNode, "writeBufferManagerBytes");
        checkRange("rocksdb.writeBufferManagerBytes", manager, 0, capacity);
        long bufferSize = wholeNumber(rocksNode, "writeBufferSizeBytes");
        checkRange("rocksdb.writeBufferSizeBytes", bufferSize, 1, memory);
        long buffers = wholeNumber(rocksNode, "maxWriteBufferNumber");
        checkRange("rocksdb.maxWriteBufferNumber", buffers, 1, MAX_WRITE_BUFFER_NUMBER);
        JsonNode ratioNode = rocksNode.get("highPriorityPoolRatio");
        if (ratioNode == null || !ratioNode.isNumber()) {
            throw new IllegalArgumentException("rocksdb.highPriorityPoolRatio is missing or not a number");
        }
        double ratio = ratioNode.asDouble();
        if (!(ratio >= 0.0 && ratio <= 1.0)) {
            throw new IllegalArgumentException("rocksdb.highPriorityPoolRatio " + ratio + " is not within [0, 1]");
        }
        JsonNode strict = rocksNode.get("strictCapacityLimit");
        if (strict == null || !strict.isBoolean()) {
            throw new IllegalArgumentException("rocksdb.strictCapacityLimit is missing or not true/false");
        }
        long arenaBlock = wholeNumber(rocksNode, "arenaBlockSizeBytes");
        checkRange("rocksdb.arenaBlockSizeBytes", arenaBlock, 4096, bufferSize);
        // Added within format version 1: a document written before it plans no flush threads (RocksDB's own stay).
        long flushThreads = 0;
        if (rocksNode.has("backgroundFlushThreads")) {
            flushThreads = wholeNumber(rocksNode, "backgroundFlushThreads");
            checkRange("rocksdb.backgroundFlushThreads", flushThreads, 1, MAX_FLUSH_THREADS);
        }
        // Added within format version 1 too: a document written before it leaves Kafka Streams' filters.
        JsonNode lastLevelFilters = rocksNode.get("lastLevelFilters");
        if (lastLevelFilters != null && !lastLevelFilters.isBoolean()) {
            throw new IllegalArgumentException("rocksdb.lastLevelFilters is not true/false");
        }
        return new RocksDbSettings(
                capacity,
                manager,
                bufferSize,
                (int) buffers,
                ratio,
                strict.asBoolean(),
                arenaBlock,
                (int) flushThreads,
                lastLevelFilters != null && lastLevelFilters.asBoolean());
    }

    /**
     * {@code inputs.instancesPerPod}: how many KafkaStreams instances the per-instance values were divided among.
     * Documents written before the field existed planned one.
     */
    private static int readInstances(JsonNode document) {
        JsonNode inputs = document.get("inputs");
        JsonNode value = inputs == null || !inputs.isObject() ? null : inputs.get("instancesPerPod");
        if (value == null || value.isNull()) {
            return 1;
        }
        if (!value.isIntegralNumber() || value.asLong() < 1 || value.asLong() > MAX_INSTANCES) {
            throw new IllegalArgumentException(
                    "inputs.instancesPerPod " + value + " is not within [1, " + MAX_INSTANCES + "]");
        }
        return value.asInt();
    }

    /**
     * {@code inputs.loadedClasses}: the class count -XX:MaxMetaspaceSize was sized for, shown next to the classes
     * loaded now. Only reported, never applied, so an absent or odd value reads as unknown (-1) rather than rejecting
     * the document.
     */
    private static long readPlannedLoadedClasses(JsonNode document) {
        JsonNode inputs = document.get("inputs");
        JsonNode value = inputs == null || !inputs.isObject() ? null : inputs.get("loadedClasses");
        return value != null && value.isIntegralNumber() && value.asLong() > 0 ? value.asLong() : -1;
    }

    /**
     * The bytes of the top-level parts that the engine turned into JVM flags (-Xmx, -XX:MaxMetaspaceSize,
     * -XX:MaxDirectMemorySize). Read from the parts rather than by parsing the flags: the parts carry exact bytes.
     * A part that is absent is simply not checked.
     */
    private static Map<String, Long> readPlannedLimits(JsonNode document, long memory) {
        Map<String, Long> limits = new LinkedHashMap<>();
        JsonNode parts = document.get("parts");
        if (parts == null || !parts.isArray()) {
            return limits;
        }
        for (JsonNode part : parts) {
            String name = part == null ? null : text(part, "name");
            if (AllocationFormat.HEAP_PART.equals(name)
                    || AllocationFormat.METASPACE_PART.equals(name)
                    || AllocationFormat.DIRECT_MEMORY_PART.equals(name)) {
                long bytes = wholeNumber(part, "bytes");
                checkRange("parts." + name + ".bytes", bytes, 1, memory);
                limits.put(name, bytes);
            }
        }
        return limits;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static long wholeNumber(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(
                    field + " is " + (value == null ? "missing" : value.toString()) + ", not a whole number");
        }
        return value.asLong();
    }

    private static void checkRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + " is not within [" + min + ", " + max + "]");
        }
    }

    private static String quote(Object value) {
        return value == null ? "missing" : "\"" + value + "\"";
    }

    public String hash() {
        return hash;
    }

    /** The digest of the settings that need a restart (JVM flags, RocksDB sizes); null when the document has none. */
    public String restartHash() {
        return restartHash;
    }

    public long memoryBytes() {
        return memoryBytes;
    }

    /** Kafka Streams property names (client prefixes applied) to their allocated values. */
    public Map<String, Long> streamsConfig() {
        return streamsConfig;
    }

    /** Null when the workload has no persistent stores. */
    public RocksDbSettings rocksDb() {
        return rocksDb;
    }

    public String source() {
        return source;
    }

    /** The KafkaStreams instances per JVM the instance-scoped values were planned for (at least 1). */
    public int instancesPerPod() {
        return instancesPerPod;
    }

    /** The record cache of one KafkaStreams instance (whichever of its two keys the engine wrote), -1 when none. */
    public long recordCacheBytes() {
        Long value = streamsConfig.get(StreamsConfigKeys.STATESTORE_CACHE_MAX_BYTES);
        if (value == null) {
            value = streamsConfig.get(StreamsConfigKeys.CACHE_MAX_BYTES_BUFFERING);
        }
        return value == null ? -1 : value;
    }

    /**
     * The record cache planned for the pod: the engine writes each instance's equal share, so the pod's is that times
     * {@link #instancesPerPod()} (the engine's {@code record-cache} part). -1 when the allocation names none.
     */
    public long plannedRecordCacheBytes() {
        long perInstance = recordCacheBytes();
        return perInstance < 0 ? -1 : perInstance * instancesPerPod;
    }

    /** The planned bytes of {@link AllocationFormat#HEAP_PART}, {@link AllocationFormat#METASPACE_PART} and {@link AllocationFormat#DIRECT_MEMORY_PART}, when present. */
    public Map<String, Long> plannedLimits() {
        return plannedLimits;
    }

    /** The loaded classes the metaspace cap was planned for; -1 when the document does not say. */
    public long plannedLoadedClasses() {
        return plannedLoadedClasses;
    }

    /**
     * The same allocation with every instance-scoped value multiplied by {@code planned / instance} (rounded down),
     * for the {@code instance}-th KafkaStreams instance when more appear than were planned: that instance never gets
     * more than an equal share of the per-JVM bound. Values of other keys are kept.
     */
    public AgentAllocation forUnplannedInstance(int instance) {
        Map<String, Long> scaled = new LinkedHashMap<>();
        for (Map.Entry<String, Long> entry : streamsConfig.entrySet()) {
            long value = entry.getValue();
            scaled.put(
                    entry.getKey(),
                    StreamsConfigKeys.instanceScoped(entry.getKey()) ? value * instancesPerPod / instance : value);
        }
        return new AgentAllocation(
                hash,
                restartHash,
                memoryBytes,
                scaled,
                rocksDb,
                source,
                instancesPerPod,
                plannedLimits,
                plannedLoadedClasses);
    }

    /** The one startup line: what this JVM is bounded to. */
    public String describe() {
        StringBuilder line = new StringBuilder();
        line.append("allocation ")
                .append(hash)
                .append(" from ")
                .append(source)
                .append(": pod ")
                .append(Bytes.format(memoryBytes));
        for (Map.Entry<String, Long> entry : streamsConfig.entrySet()) {
            line.append(", ").append(entry.getKey()).append('=').append(entry.getValue());
        }
        if (rocksDb != null) {
            line.append("; RocksDB: one shared block cache of ")
                    .append(Bytes.format(rocksDb.blockCacheCapacityBytes()))
                    .append(" (strict=")
                    .append(rocksDb.strictCapacityLimit())
                    .append(", high-priority ")
                    .append(rocksDb.highPriorityPoolRatio())
                    .append("), WriteBufferManager ")
                    .append(Bytes.format(rocksDb.writeBufferManagerBytes()))
                    .append(" charged to it, memtables ")
                    .append(rocksDb.maxWriteBufferNumber())
                    .append(" x ")
                    .append(Bytes.format(rocksDb.writeBufferSizeBytes()))
                    .append(", flush threads ")
                    .append(rocksDb.backgroundFlushThreads() > 0 ? rocksDb.backgroundFlushThreads() : "RocksDB's own")
                    .append(rocksDb.lastLevelFilters() ? ", Bloom filters on the last level" : "");
        } else {
            line.append("; no RocksDB bound (no persistent stores)");
        }
        return line.toString();
    }
}
