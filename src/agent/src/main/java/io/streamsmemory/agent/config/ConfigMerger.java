package io.streamsmemory.agent.config;

import static io.streamsmemory.protocol.StreamsConfigKeys.CACHE_MAX_BYTES_BUFFERING;
import static io.streamsmemory.protocol.StreamsConfigKeys.STATESTORE_CACHE_MAX_BYTES;
import static io.streamsmemory.protocol.StreamsConfigKeys.STATESTORE_UNCOMMITTED_MAX_BYTES;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.config.KafkaCatalog.Client;
import io.streamsmemory.agent.log.Bytes;
import io.streamsmemory.protocol.AllocationFormat;
import io.streamsmemory.protocol.StreamsConfigKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Merges an allocation into the properties an application gives {@code StreamsConfig}. Pure: no logging, no global
 * state. For every allocated key the effective value becomes the smaller of the application's own (explicit, or
 * inherited through Kafka Streams' prefix precedence, or the client default) and the allocation's; the application's
 * stricter choices are kept, keys the allocation does not name are untouched. One exception, the record cache: an
 * application that leaves it unset gets the plan's value even above Kafka's default, when the heap in force holds the
 * heap the plan counted it in (see {@code Merge.recordCache}).
 */
public final class ConfigMerger {
    static final String SETTER_KEY = "rocksdb.config.setter";
    /** Where the agent keeps the application's own {@code rocksdb.config.setter}, which it calls first. */
    public static final String CHAINED_SETTER_CONFIG = "streamsmemory.chained.rocksdb.config.setter";
    /** Enables KIP-892's transactional state stores: {@link StreamsConfigKeys#STATESTORE_UNCOMMITTED_MAX_BYTES} bounds their writes. */
    static final String TRANSACTIONAL_STATE_STORES = "enable.transactional.statestores";

    /** One value the merge changed; {@code before} says where the old value came from, {@code reason} why, if told. */
    public static final class Change {
        private final String key;
        private final String before;
        private final String after;
        private final String reason;

        Change(String key, String before, String after) {
            this(key, before, after, null);
        }

        Change(String key, String before, String after, String reason) {
            this.key = key;
            this.before = before;
            this.after = after;
            this.reason = reason;
        }

        public String key() {
            return key;
        }

        public String before() {
            return before;
        }

        String after() {
            return after;
        }

        /** "old -> new", and why when the merge says. */
        public String transition() {
            return before + " -> " + after + (reason == null ? "" : " (" + reason + ")");
        }

        public String describe() {
            return key + ": " + transition();
        }
    }

    /** Which record cache a merge leaves in force, and why: for the report, the MBean and the log. */
    public static final class RecordCache {
        public enum Source {
            /** The plan's value applied (or the application's, equal to it). */
            PLAN("plan"),
            /** The application's own smaller value kept. */
            APPLICATION("application"),
            /** Kafka's default kept: the heap in force is smaller than the one the plan counted the cache in. */
            KAFKA_DEFAULT("kafka-default"),
            /** No allocation, nothing merged yet, or the record cache key not applied (see the skipped keys). */
            NONE("none");

            private final String label;

            Source(String label) {
                this.label = label;
            }

            public String label() {
                return label;
            }
        }

        /** {@link #applicationBytes} of an application that leaves the record cache to the plan. */
        public static final long UNSET = -1;

        private final Source source;
        private final String reason;
        private final Long applicationBytes;

        RecordCache(Source source, String reason, Long applicationBytes) {
            this.source = source;
            this.reason = reason;
            this.applicationBytes = applicationBytes;
        }

        public static RecordCache none(String reason) {
            return new RecordCache(Source.NONE, reason, null);
        }

        public Source source() {
            return source;
        }

        /**
         * The record cache the application sets itself, {@link #UNSET} when it sets none, null when not known (no
         * merge, or a value that is not a number): the operator plans the heap for the cache that runs.
         */
        public Long applicationBytes() {
            return applicationBytes;
        }

        public String reason() {
            return reason;
        }
    }

    public static final class Result {
        private final Map<Object, Object> props;
        private final List<Change> changes;
        private final List<String> skipped;
        private final RecordCache recordCache;

        Result(Map<Object, Object> props, List<Change> changes, List<String> skipped, RecordCache recordCache) {
            this.props = props;
            this.changes = changes;
            this.skipped = skipped;
            this.recordCache = recordCache;
        }

        public Map<Object, Object> props() {
            return props;
        }

        public List<Change> changes() {
            return changes;
        }

        /** Each allocated key not applied, as "key (why)". */
        public List<String> skipped() {
            return skipped;
        }

        public boolean changed() {
            return !changes.isEmpty();
        }

        public RecordCache recordCache() {
            return recordCache;
        }
    }

    /** A client prefix and the order in which Kafka Streams looks a client key up (most specific first). */
    private static final class Prefix {
        final String prefix;
        final Client client;
        final List<String> chain;
        final List<String> narrower;

        Prefix(String prefix, Client client, List<String> chain, List<String> narrower) {
            this.prefix = prefix;
            this.client = client;
            this.chain = chain;
            this.narrower = narrower;
        }
    }

    private static final List<Prefix> PREFIXES = List.of(
            new Prefix("main.consumer.", Client.CONSUMER, List.of("main.consumer.", "consumer.", ""), List.of()),
            new Prefix("restore.consumer.", Client.CONSUMER, List.of("restore.consumer.", "consumer.", ""), List.of()),
            new Prefix("global.consumer.", Client.CONSUMER, List.of("global.consumer.", "consumer.", ""), List.of()),
            new Prefix(
                    "consumer.",
                    Client.CONSUMER,
                    List.of("consumer.", ""),
                    List.of("main.consumer.", "restore.consumer.", "global.consumer.")),
            new Prefix("producer.", Client.PRODUCER, List.of("producer.", ""), List.of()),
            new Prefix("admin.", Client.ADMIN, List.of("admin.", ""), List.of()));

    private ConfigMerger() {}

    /**
     * @param setterClass the agent's RocksDB config setter to install, or null to leave {@code rocksdb.config.setter}
     *                    alone (no persistent stores, or Kafka Streams cannot load the agent's classes)
     * @param heapBytes   the heap in force ({@link JvmLimits#heapInForce()}), -1 when unknown: the plan's record cache
     *                    replaces a smaller Kafka default only when this heap holds the one the plan counted it in
     */
    public static Result merge(
            Map<?, ?> app, AgentAllocation allocation, KafkaCatalog catalog, Class<?> setterClass, long heapBytes) {
        Merge merge = new Merge(app, catalog);
        List<String> skipped = merge.skipped;
        RecordCache recordCache = RecordCache.none("the allocation plans no record cache");
        for (Map.Entry<String, Long> entry : allocation.streamsConfig().entrySet()) {
            String key = entry.getKey();
            long bound = entry.getValue();
            if (!StreamsConfigKeys.applied(key)) {
                // Only what the engine emits: an edited ConfigMap must not reach any other setting of the application.
                skipped.add(key + " (not a key the allocation engine emits; ignored)");
                continue;
            }
            if (key.equals(STATESTORE_CACHE_MAX_BYTES) || key.equals(CACHE_MAX_BYTES_BUFFERING)) {
                recordCache = merge.recordCache(key, bound, heapShortfall(allocation, heapBytes));
                continue;
            }
            Prefix prefix = prefixOf(key);
            if (prefix == null) {
                merge.streamsKey(key, bound);
                continue;
            }
            String bare = key.substring(prefix.prefix.length());
            if (!catalog.knows(prefix.client, bare)) {
                skipped.add(key + " (not a " + prefix.client.name().toLowerCase(Locale.ROOT) + " config of Kafka "
                        + catalog.version() + ")");
                continue;
            }
            if (merge.rejected(prefix.client, key, bare, bound)) {
                continue;
            }
            Object fallback = catalog.defaultValue(prefix.client, bare);
            merge.bound(key, prefix.chain, bare, fallback, bound);
            for (String narrower : prefix.narrower) {
                if (app.containsKey(narrower + bare)) {
                    merge.bound(narrower + bare, List.of(narrower), bare, null, bound);
                }
            }
        }
        if (transactional(app)
                && !allocation.streamsConfig().containsKey(STATESTORE_UNCOMMITTED_MAX_BYTES)
                && catalog.knows(Client.STREAMS, STATESTORE_UNCOMMITTED_MAX_BYTES)) {
            // Nothing to apply, but the plan misses a consumer: say so where the skipped keys are reported.
            skipped.add(STATESTORE_UNCOMMITTED_MAX_BYTES + " (the application sets " + TRANSACTIONAL_STATE_STORES
                    + "=true but "
                    + "the allocation has no part for its uncommitted writes: declare spec.streams."
                    + "transactionalStateStores in the policy)");
        }
        if (setterClass != null && allocation.rocksDb() != null) {
            merge.installSetter(setterClass);
        }
        return merge.result(recordCache);
    }

    /**
     * Null when the heap in force holds the heap the allocation planned (the record cache's home), within what
     * {@link JvmLimits#heapHolds} allows; otherwise why not.
     */
    private static String heapShortfall(AgentAllocation allocation, long heapBytes) {
        Long planned = allocation.plannedLimits().get(AllocationFormat.HEAP_PART);
        if (planned == null) {
            return "the allocation plans no heap to hold it";
        }
        if (heapBytes < 0) {
            return "the heap in force is unknown";
        }
        if (JvmLimits.heapHolds(planned, heapBytes)) {
            return null;
        }
        return "the heap in force (" + Bytes.format(heapBytes) + ") is smaller than the " + Bytes.format(planned)
                + " the plan counted it in (a -Xmx or -XX:MaxRAMPercentage of the application's won)";
    }

    /** Where a value came from, for a change's "before": the value and, unless set under its own key, its origin. */
    private static String before(Object raw, String from, String target) {
        String origin = from == null ? "default" : from.equals(target) ? null : "from " + from;
        return (raw == null ? "unset" : String.valueOf(raw)) + (origin == null ? "" : " (" + origin + ")");
    }

    /**
     * One merge under way: the application's properties, the Kafka that reads them, and what the merge has written,
     * changed and skipped so far.
     */
    private static final class Merge {
        private final Map<?, ?> app;
        private final KafkaCatalog catalog;
        private final Map<Object, Object> out;
        private final List<Change> changes = new ArrayList<>();
        private final List<String> skipped = new ArrayList<>();

        Merge(Map<?, ?> app, KafkaCatalog catalog) {
            this.app = app;
            this.catalog = catalog;
            this.out = new LinkedHashMap<>(app);
        }

        Result result(RecordCache recordCache) {
            return new Result(changes.isEmpty() ? new LinkedHashMap<>(app) : out, changes, skipped, recordCache);
        }

        /**
         * The record cache. KIP-770 renamed its key in 3.4; the allocation names one of them, the application's
         * version decides which one Kafka Streams reads (from 3.4 the deprecated key still counts as the
         * application's value when it set only that). An application's own value is bounded as any other key. Unlike
         * the other keys, an application that leaves it unset gets the plan's value even above Kafka's default: the
         * plan counted that cache in the heap, and a status that shows a cache the JVM does not have misleads. Unless
         * {@code heapShortfall} says the heap in force is smaller than the planned one: then Kafka's smaller default
         * stays, so the application keeps the heap it had.
         */
        RecordCache recordCache(String key, long bound, String heapShortfall) {
            String target = catalog.knows(Client.STREAMS, STATESTORE_CACHE_MAX_BYTES)
                    ? STATESTORE_CACHE_MAX_BYTES
                    : catalog.knows(Client.STREAMS, CACHE_MAX_BYTES_BUFFERING) ? CACHE_MAX_BYTES_BUFFERING : null;
            if (target == null) {
                skipped.add(key + " (Kafka Streams " + catalog.version() + " has no record cache key)");
                return RecordCache.none("Kafka Streams " + catalog.version() + " has no record cache key");
            }
            if (rejected(Client.STREAMS, key, target, bound)) {
                return RecordCache.none("the allocation's record cache is rejected by Kafka " + catalog.version());
            }
            String from = present(app, target)
                    ? target
                    : present(app, CACHE_MAX_BYTES_BUFFERING)
                                    && catalog.knows(Client.STREAMS, CACHE_MAX_BYTES_BUFFERING)
                            ? CACHE_MAX_BYTES_BUFFERING
                            : null;
            Object raw = from == null ? catalog.defaultValue(Client.STREAMS, target) : app.get(from);
            Long current = raw == null ? null : asLong(raw);
            if (raw != null && current == null) {
                skipNotANumber(target, raw);
                return RecordCache.none("the application's record cache is not a number");
            }
            Long own = from == null ? RecordCache.UNSET : current;
            boolean smaller = current != null && current >= 0 && current < bound;
            if (smaller && from != null) {
                return new RecordCache(
                        RecordCache.Source.APPLICATION,
                        "the application's own " + current + ", smaller than the plan's " + bound,
                        own);
            }
            if (smaller && heapShortfall != null) {
                String reason = "kept Kafka's default " + current + ", not the plan's " + bound + ": " + heapShortfall;
                skipped.add(target + " (" + reason + ")");
                return new RecordCache(RecordCache.Source.KAFKA_DEFAULT, reason, own);
            }
            boolean equal = current != null && current == bound;
            String reason;
            if (smaller) {
                reason = "the plan's record cache; the heap in force holds it";
            } else if (equal) {
                reason = "the plan's record cache";
            } else {
                reason = "the plan's record cache, smaller than "
                        + (from == null ? "Kafka's default" : "the application's");
            }
            if (!equal) {
                out.put(target, Long.toString(bound));
                changes.add(new Change(target, before(raw, from, target), Long.toString(bound), reason));
            }
            return new RecordCache(RecordCache.Source.PLAN, reason, own);
        }

        void streamsKey(String key, long bound) {
            if (!catalog.knows(Client.STREAMS, key)) {
                skipped.add(key + " (not a config of Kafka Streams " + catalog.version() + ")");
                return;
            }
            if (key.equals(STATESTORE_UNCOMMITTED_MAX_BYTES) && !transactional(app)) {
                // Without transactional stores Kafka Streams buffers nothing uncommitted: leave the key alone.
                skipped.add(key + " (the application does not set " + TRANSACTIONAL_STATE_STORES + "=true)");
                return;
            }
            if (rejected(Client.STREAMS, key, key, bound)) {
                return;
            }
            boundResolved(key, present(app, key) ? key : null, catalog.defaultValue(Client.STREAMS, key), bound);
        }

        /**
         * Whether the application's own ConfigDef rejects the allocated value (then it is skipped and the application
         * keeps its own): an allocation the engine did not write, or a type the engine did not expect (a long for an
         * INT key), must not make the application's StreamsConfig or clients throw.
         */
        boolean rejected(Client client, String key, String definedKey, long bound) {
            String reason = catalog.rejects(client, definedKey, Long.toString(bound));
            if (reason == null) {
                return false;
            }
            skipped.add(key + " (the allocation's " + bound + " is rejected by Kafka " + catalog.version() + ": "
                    + reason + "; the application keeps its own value)");
            return true;
        }

        /** Bounds {@code target}, whose current value is the first of {@code chain}+bare set by the application. */
        void bound(String target, List<String> chain, String bare, Object fallback, long bound) {
            String from = null;
            for (String prefix : chain) {
                if (present(app, prefix + bare)) {
                    from = prefix + bare;
                    break;
                }
            }
            boundResolved(target, from, fallback, bound);
        }

        private void boundResolved(String target, String from, Object fallback, long bound) {
            Object raw = from == null ? fallback : app.get(from);
            Long current;
            if (raw == null) {
                current = null; // no default: unbounded
            } else {
                current = asLong(raw);
                if (current == null) {
                    skipNotANumber(target, raw);
                    return;
                }
            }
            // A negative value means "unbounded / OS default" for the size keys the allocation names (and 0 as well
            // for statestore.uncommitted.max.bytes).
            boolean bounded = current != null
                    && (current > 0 || current == 0 && !target.equals(STATESTORE_UNCOMMITTED_MAX_BYTES));
            if (bounded && current <= bound) {
                return;
            }
            out.put(target, Long.toString(bound));
            changes.add(new Change(target, before(raw, from, target), Long.toString(bound)));
        }

        private void skipNotANumber(String target, Object raw) {
            skipped.add(target + " (the application's value \"" + raw + "\" is not a number; left alone)");
        }

        void installSetter(Class<?> setterClass) {
            Object existing = app.get(SETTER_KEY);
            if (existing instanceof String && ((String) existing).isBlank()) {
                existing = null;
            }
            if (existing != null && setterName(existing).equals(setterClass.getName())) {
                return;
            }
            String after = setterClass.getName();
            if (existing != null) {
                if (!present(app, CHAINED_SETTER_CONFIG)) {
                    out.put(CHAINED_SETTER_CONFIG, existing);
                }
                after += " (calls " + setterName(existing) + " first)";
            }
            out.put(SETTER_KEY, setterClass);
            changes.add(new Change(SETTER_KEY, existing == null ? "unset" : setterName(existing), after));
        }
    }

    public static String setterName(Object setter) {
        if (setter instanceof Class<?>) {
            return ((Class<?>) setter).getName();
        }
        return String.valueOf(setter).trim();
    }

    /** Whether the application enables transactional state stores (a Boolean or its text, as ConfigDef reads it). */
    static boolean transactional(Map<?, ?> app) {
        Object value = app.get(TRANSACTIONAL_STATE_STORES);
        return Boolean.TRUE.equals(value)
                || value instanceof String && "true".equalsIgnoreCase(((String) value).trim());
    }

    private static boolean present(Map<?, ?> app, String key) {
        Object value = app.get(key);
        return value != null && !(value instanceof String && ((String) value).isBlank());
    }

    private static Prefix prefixOf(String key) {
        for (Prefix prefix : PREFIXES) {
            if (key.startsWith(prefix.prefix)) {
                return prefix;
            }
        }
        return null;
    }

    static Long asLong(Object value) {
        if (value instanceof Number) {
            return ((Number) value).longValue();
        }
        if (value instanceof String) {
            try {
                return Long.parseLong(((String) value).trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }
}
