package io.streamsmemory.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.AllocationLoader;
import io.streamsmemory.agent.allocation.Allocations;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.config.ConfigMerger;
import io.streamsmemory.agent.config.KafkaCatalog;
import io.streamsmemory.agent.config.KafkaCatalog.Client;
import io.streamsmemory.agent.config.ReflectiveKafkaCatalog;
import io.streamsmemory.agent.log.Bytes;
import io.streamsmemory.agent.log.CapturedAgentLog;
import io.streamsmemory.agent.report.AgentMXBeanImpl;
import io.streamsmemory.agent.state.AgentState;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.protocol.AllocationFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rocksdb.Options;

class ConfigMergerTest {
    private static final AgentAllocation ALLOCATION = Allocations.agentAllocation(Allocations.oneGiB());
    private static final KafkaCatalog KAFKA = ReflectiveKafkaCatalog.of(StreamsConfig.class);

    @RegisterExtension
    final CapturedAgentLog log = new CapturedAgentLog();

    private final List<String> lines = log.lines();

    private static long alloc(String key) {
        return ALLOCATION.streamsConfig().get(key);
    }

    private static long plannedHeap(AgentAllocation allocation) {
        return allocation.plannedLimits().get(AllocationFormat.HEAP_PART);
    }

    /** Merges in a JVM whose heap is the one the allocation planned, as the webhook's -Xmx gives it. */
    private static ConfigMerger.Result merge(
            Map<?, ?> app, AgentAllocation allocation, KafkaCatalog catalog, Class<?> setterClass) {
        return ConfigMerger.merge(app, allocation, catalog, setterClass, plannedHeap(allocation));
    }

    @Test
    void theCatalogReadsTheApplicationsKafka() {
        assertThat(KAFKA.version()).isEqualTo("4.4.0");
        assertThat(KAFKA.unsupportedReason()).isNull();
        assertThat(KAFKA.knows(Client.CONSUMER, "fetch.max.bytes")).isTrue();
        assertThat(KAFKA.defaultValue(Client.CONSUMER, "fetch.max.bytes")).isEqualTo(52428800);
        assertThat(KAFKA.defaultValue(Client.PRODUCER, "buffer.memory")).isEqualTo(33554432L);
    }

    @Test
    void defaultsAreBoundedToTheAllocation() {
        ConfigMerger.Result result =
                merge(Map.of("application.id", "a"), ALLOCATION, KAFKA, BoundedRocksDBConfigSetter.class);
        Map<Object, Object> props = result.props();
        assertThat(props).containsEntry("application.id", "a");
        // Kafka's 10 MiB record cache is below a 1 GiB pod's allocation: the plan's larger one is the one it counted.
        assertThat(props)
                .containsEntry("statestore.cache.max.bytes", Long.toString(alloc("statestore.cache.max.bytes")))
                .doesNotContainKey("cache.max.bytes.buffering");
        assertThat(props).containsEntry("producer.buffer.memory", Long.toString(alloc("producer.buffer.memory")));
        assertThat(props)
                .containsEntry("main.consumer.fetch.max.bytes", Long.toString(alloc("main.consumer.fetch.max.bytes")));
        assertThat(props)
                .containsEntry(
                        "restore.consumer.fetch.max.bytes", Long.toString(alloc("restore.consumer.fetch.max.bytes")));
        // Equal to Kafka's defaults: nothing to change.
        assertThat(props)
                .doesNotContainKeys(
                        "producer.batch.size",
                        "main.consumer.max.partition.fetch.bytes",
                        "buffered.records.per.partition");
        assertThat(props).containsEntry("rocksdb.config.setter", BoundedRocksDBConfigSetter.class);
        assertThat(result.changes()).extracting(ConfigMerger.Change::key).contains("rocksdb.config.setter");
    }

    /** An allocation for an application with transactional state stores (KIP-892). */
    private static final AgentAllocation TRANSACTIONAL =
            Allocations.agentAllocation(AllocationJson.write(new AllocationEngine()
                    .allocate(WorkloadFacts.builder()
                            .memoryBytes(1L << 30)
                            .streamThreads(2)
                            .partitions(8)
                            .stores(new StoreCounts(2, 1, 0))
                            .transactionalStateStores(true)
                            .build())
                    .allocation()));

    @Test
    void uncommittedBytesAreBoundedOnlyWhenTheApplicationEnablesTransactionalStores() {
        long planned = TRANSACTIONAL.streamsConfig().get("statestore.uncommitted.max.bytes");
        assertThat(planned).isPositive().isLessThan(64L << 20);
        // Enabled, Kafka's 64 MiB default: bounded.
        ConfigMerger.Result on = merge(Map.of("enable.transactional.statestores", "true"), TRANSACTIONAL, KAFKA, null);
        assertThat(on.props()).containsEntry("statestore.uncommitted.max.bytes", Long.toString(planned));
        assertThat(on.changes())
                .extracting(ConfigMerger.Change::describe)
                .contains("statestore.uncommitted.max.bytes: 67108864 (default) -> " + planned);
        // The application's smaller value stays; its 0 or -1 (no bound at all) does not.
        Map<String, Object> smaller =
                Map.of("enable.transactional.statestores", true, "statestore.uncommitted.max.bytes", 1L << 20);
        assertThat(merge(smaller, TRANSACTIONAL, KAFKA, null).props())
                .containsEntry("statestore.uncommitted.max.bytes", 1L << 20);
        for (Object unbounded : new Object[] {0L, "-1"}) {
            Map<String, Object> app =
                    Map.of("enable.transactional.statestores", true, "statestore.uncommitted.max.bytes", unbounded);
            assertThat(merge(app, TRANSACTIONAL, KAFKA, null).props())
                    .containsEntry("statestore.uncommitted.max.bytes", Long.toString(planned));
        }
        // Not enabled: Kafka Streams buffers nothing uncommitted, the key is left alone and the skip says why.
        ConfigMerger.Result off = merge(Map.of("application.id", "a"), TRANSACTIONAL, KAFKA, null);
        assertThat(off.props()).doesNotContainKey("statestore.uncommitted.max.bytes");
        assertThat(off.skipped())
                .contains("statestore.uncommitted.max.bytes (the application does not set "
                        + "enable.transactional.statestores=true)");
        // Enabled by the application but not planned: nothing changes, and the skipped keys say what the plan misses.
        ConfigMerger.Result unplanned =
                merge(Map.of("enable.transactional.statestores", "true"), ALLOCATION, KAFKA, null);
        assertThat(unplanned.props()).doesNotContainKey("statestore.uncommitted.max.bytes");
        assertThat(unplanned.skipped()).anyMatch(skip -> skip.contains("no part for its uncommitted writes"));
    }

    @Test
    void theStricterValueWins() {
        Map<String, Object> app = new HashMap<>();
        app.put("statestore.cache.max.bytes", "0");
        app.put("producer.batch.size", 8192);
        app.put("statestore.cache.max.bytes", 0L);
        app.put("main.consumer.fetch.max.bytes", 1024);
        ConfigMerger.Result result = merge(app, ALLOCATION, KAFKA, null);
        assertThat(result.props())
                .containsEntry("statestore.cache.max.bytes", 0L)
                .containsEntry("producer.batch.size", 8192)
                .containsEntry("main.consumer.fetch.max.bytes", 1024)
                .doesNotContainKey("rocksdb.config.setter");
    }

    @Test
    void aLargerApplicationValueIsReducedAndLogged() {
        Map<String, Object> app =
                Map.of("statestore.cache.max.bytes", "1073741824", "buffered.records.per.partition", "100000");
        ConfigMerger.Result result = merge(app, ALLOCATION, KAFKA, null);
        assertThat(result.props())
                .containsEntry("statestore.cache.max.bytes", Long.toString(alloc("statestore.cache.max.bytes")))
                .containsEntry("buffered.records.per.partition", "1000");
        assertThat(result.changes()).anySatisfy(change -> {
            assertThat(change.key()).isEqualTo("statestore.cache.max.bytes");
            assertThat(change.describe())
                    .isEqualTo("statestore.cache.max.bytes: 1073741824 -> " + alloc("statestore.cache.max.bytes")
                            + " (the plan's record cache, smaller than the application's)");
        });
        assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.PLAN);
        // A larger value of its own is still the application's setting, reported as such.
        assertThat(result.recordCache().applicationBytes()).isEqualTo(1073741824L);
    }

    @Test
    void anUnsetRecordCacheGetsThePlansEvenAboveKafkasDefault() {
        long planned = alloc("statestore.cache.max.bytes");
        assertThat(planned).isGreaterThan(10L << 20);
        for (Map<String, Object> app : List.of(
                Map.<String, Object>of("application.id", "a"),
                Map.<String, Object>of("statestore.cache.max.bytes", " ", "cache.max.bytes.buffering", ""))) {
            ConfigMerger.Result result = merge(app, ALLOCATION, KAFKA, null);
            assertThat(result.props()).containsEntry("statestore.cache.max.bytes", Long.toString(planned));
            assertThat(result.changes())
                    .extracting(ConfigMerger.Change::describe)
                    .contains("statestore.cache.max.bytes: 10485760 (default) -> " + planned
                            + " (the plan's record cache; the heap in force holds it)");
            assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.PLAN);
            assertThat(result.recordCache().applicationBytes()).isEqualTo(ConfigMerger.RecordCache.UNSET);
        }
        // Merged again (Kafka Streams builds configs from configs): nothing changes, the plan's value stays the plan's.
        ConfigMerger.Result again =
                merge(merge(Map.of(), ALLOCATION, KAFKA, null).props(), ALLOCATION, KAFKA, null);
        assertThat(again.changes()).isEmpty();
        assertThat(again.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.PLAN);
    }

    /**
     * A policy that states {@code spec.streams.recordCache: 0} for an application that sets none: the plan's record
     * cache is 0, and the agent applies it as any plan's (the cache off, every update forwarded downstream).
     */
    @Test
    void aPlanWithoutRecordCacheTurnsTheCacheOffWhereTheApplicationSetsNone() {
        AgentAllocation off = Allocations.agentAllocation(Allocations.oneGiBWithRecordCache(0));
        assertThat(off.streamsConfig()).containsEntry("statestore.cache.max.bytes", 0L);

        ConfigMerger.Result result =
                merge(Map.of("application.id", "a", "bootstrap.servers", "127.0.0.1:1"), off, KAFKA, null);
        assertThat(result.props()).containsEntry("statestore.cache.max.bytes", "0");
        assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.PLAN);
        assertThat(result.recordCache().applicationBytes()).isEqualTo(ConfigMerger.RecordCache.UNSET);
        assertThat(new StreamsConfig(result.props()).getLong("statestore.cache.max.bytes"))
                .isZero();
    }

    @Test
    void theApplicationsOwnSmallerRecordCacheIsKept() {
        for (Object own : new Object[] {"5000000", 5000000L, 0}) {
            Map<String, Object> app = Map.of("statestore.cache.max.bytes", own);
            ConfigMerger.Result result = merge(app, ALLOCATION, KAFKA, null);
            assertThat(result.props()).containsEntry("statestore.cache.max.bytes", own);
            assertThat(result.changes())
                    .extracting(ConfigMerger.Change::key)
                    .doesNotContain("statestore.cache.max.bytes");
            assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.APPLICATION);
            assertThat(result.recordCache().reason())
                    .contains("smaller than the plan's " + alloc("statestore.cache.max.bytes"));
            // What the operator plans the heap for: the application's own value, as a number.
            assertThat(result.recordCache().applicationBytes()).isEqualTo(Long.parseLong(own.toString()));
        }
    }

    @Test
    void aHeapSmallerThanPlannedKeepsKafkasDefaultAndSaysWhy() {
        long planned = alloc("statestore.cache.max.bytes");
        long heap = plannedHeap(ALLOCATION);
        for (long inForce : new long[] {heap / 2, -1}) {
            ConfigMerger.Result result =
                    ConfigMerger.merge(Map.of("application.id", "a"), ALLOCATION, KAFKA, null, inForce);
            assertThat(result.props()).doesNotContainKeys("statestore.cache.max.bytes", "cache.max.bytes.buffering");
            assertThat(result.changes())
                    .extracting(ConfigMerger.Change::key)
                    .doesNotContain("statestore.cache.max.bytes");
            assertThat(result.skipped())
                    .anySatisfy(skip -> assertThat(skip)
                            .startsWith("statestore.cache.max.bytes (kept Kafka's default 10485760, not the plan's "
                                    + planned + ": the heap in force "));
            assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.KAFKA_DEFAULT);
        }
        ConfigMerger.Result half = ConfigMerger.merge(Map.of(), ALLOCATION, KAFKA, null, heap / 2);
        assertThat(half.recordCache().reason())
                .contains(
                        "the heap in force (" + Bytes.format(heap / 2) + ") is smaller than the " + Bytes.format(heap));
        // Still the stricter of the two for an application's own value: its larger one is bounded as before.
        ConfigMerger.Result larger = ConfigMerger.merge(
                Map.of("statestore.cache.max.bytes", "1073741824"), ALLOCATION, KAFKA, null, heap / 2);
        assertThat(larger.props()).containsEntry("statestore.cache.max.bytes", Long.toString(planned));
        // Runtime.maxMemory() below -Xmx by a survivor space (Parallel: 1/9, see JvmLimitsTest) still holds the plan.
        ConfigMerger.Result parallel = ConfigMerger.merge(Map.of(), ALLOCATION, KAFKA, null, heap - heap / 9);
        assertThat(parallel.props()).containsEntry("statestore.cache.max.bytes", Long.toString(planned));
    }

    @Test
    void prefixPrecedenceIsFollowed() {
        // consumer.* applies to main and restore consumers; unprefixed fetch.max.bytes too.
        Map<String, Object> app = Map.of(
                "consumer.fetch.max.bytes",
                "2048",
                "fetch.max.bytes",
                "999999999",
                "buffer.memory",
                "1000",
                "producer.buffer.memory",
                "999999999");
        ConfigMerger.Result result = merge(app, ALLOCATION, KAFKA, null);
        assertThat(result.props())
                .doesNotContainKeys("main.consumer.fetch.max.bytes", "restore.consumer.fetch.max.bytes");
        assertThat(result.props())
                .containsEntry("producer.buffer.memory", Long.toString(alloc("producer.buffer.memory")));
        ConfigMerger.Change change = result.changes().stream()
                .filter(c -> c.key().equals("producer.buffer.memory"))
                .findFirst()
                .orElseThrow();
        assertThat(change.before()).isEqualTo("999999999");
        // An unprefixed value is inherited by the main consumer and bounded there.
        result = merge(Map.of("fetch.max.bytes", "999999999"), ALLOCATION, KAFKA, null);
        change = result.changes().stream()
                .filter(c -> c.key().equals("main.consumer.fetch.max.bytes"))
                .findFirst()
                .orElseThrow();
        assertThat(change.before()).isEqualTo("999999999 (from fetch.max.bytes)");
    }

    @Test
    void theDeprecatedCacheKeyCountsAsTheApplicationsValue() {
        ConfigMerger.Result result = merge(Map.of("cache.max.bytes.buffering", "1000"), ALLOCATION, KAFKA, null);
        assertThat(result.props()).doesNotContainKey("statestore.cache.max.bytes");
        result = merge(Map.of("cache.max.bytes.buffering", "9999999999"), ALLOCATION, KAFKA, null);
        assertThat(result.props())
                .containsEntry("statestore.cache.max.bytes", Long.toString(alloc("statestore.cache.max.bytes")));
    }

    @Test
    void olderKafkaStreamsGetsTheOldRecordCacheKey() {
        KafkaCatalog old =
                new FakeCatalog("3.3.2", Set.of("cache.max.bytes.buffering", "buffered.records.per.partition"));
        ConfigMerger.Result result = merge(Map.of("cache.max.bytes.buffering", "999999999"), ALLOCATION, old, null);
        assertThat(result.props())
                .containsEntry("cache.max.bytes.buffering", Long.toString(alloc("statestore.cache.max.bytes")))
                .doesNotContainKey("statestore.cache.max.bytes");
        // Left unset: the plan's value under the old key, unless the heap in force is smaller than planned.
        result = merge(Map.of(), ALLOCATION, old, null);
        assertThat(result.props())
                .containsEntry("cache.max.bytes.buffering", Long.toString(alloc("statestore.cache.max.bytes")))
                .doesNotContainKey("statestore.cache.max.bytes");
        assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.PLAN);
        result = ConfigMerger.merge(Map.of(), ALLOCATION, old, null, plannedHeap(ALLOCATION) / 2);
        assertThat(result.props()).doesNotContainKeys("cache.max.bytes.buffering", "statestore.cache.max.bytes");
        assertThat(result.skipped())
                .anyMatch(skip -> skip.startsWith("cache.max.bytes.buffering (kept Kafka's default"));
        assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.KAFKA_DEFAULT);
        // Its own smaller value is kept.
        result = merge(Map.of("cache.max.bytes.buffering", "1000"), ALLOCATION, old, null);
        assertThat(result.props()).containsEntry("cache.max.bytes.buffering", "1000");
        assertThat(result.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.APPLICATION);
    }

    @Test
    void keysTheVersionDoesNotKnowAreSkipped() {
        KafkaCatalog tiny = new FakeCatalog("3.9.1", Set.of("statestore.cache.max.bytes"));
        ConfigMerger.Result result = merge(Map.of(), ALLOCATION, tiny, null);
        assertThat(result.skipped())
                .anyMatch(s -> s.startsWith("producer.buffer.memory"))
                .anyMatch(s -> s.startsWith("buffered.records.per.partition"));
        // Only the one key it knows: the record cache, left unset, gets the plan's.
        assertThat(result.props()).containsOnlyKeys("statestore.cache.max.bytes");
    }

    @Test
    void aValueThatIsNotANumberIsLeftAlone() {
        ConfigMerger.Result result = merge(Map.of("producer.buffer.memory", "lots"), ALLOCATION, KAFKA, null);
        assertThat(result.props()).containsEntry("producer.buffer.memory", "lots");
        assertThat(result.skipped()).anyMatch(s -> s.startsWith("producer.buffer.memory"));
    }

    @Test
    void aNegativeSocketBufferMeansOsDefaultAndIsBounded() {
        ConfigMerger.Result result = merge(Map.of("main.consumer.receive.buffer.bytes", "-1"), ALLOCATION, KAFKA, null);
        assertThat(result.props())
                .containsEntry(
                        "main.consumer.receive.buffer.bytes",
                        Long.toString(alloc("main.consumer.receive.buffer.bytes")));
    }

    public static class UserSetter implements RocksDBConfigSetter {
        @Override
        public void setConfig(String storeName, Options options, Map<String, Object> configs) {}

        @Override
        public void close(String storeName, Options options) {}
    }

    @Test
    void theApplicationsSetterIsChained() {
        ConfigMerger.Result result = merge(
                Map.of("rocksdb.config.setter", UserSetter.class), ALLOCATION, KAFKA, BoundedRocksDBConfigSetter.class);
        assertThat(result.props())
                .containsEntry("rocksdb.config.setter", BoundedRocksDBConfigSetter.class)
                .containsEntry(StreamsMemory.CHAINED_SETTER_CONFIG, UserSetter.class);
        // Merging a merged config again changes nothing (StreamsConfig is built more than once).
        ConfigMerger.Result again = merge(result.props(), ALLOCATION, KAFKA, BoundedRocksDBConfigSetter.class);
        assertThat(again.changed()).isFalse();
        assertThat(again.props()).isEqualTo(result.props());
        // By name, too.
        result = merge(
                Map.of("rocksdb.config.setter", UserSetter.class.getName()),
                ALLOCATION,
                KAFKA,
                BoundedRocksDBConfigSetter.class);
        assertThat(result.props()).containsEntry(StreamsMemory.CHAINED_SETTER_CONFIG, UserSetter.class.getName());
    }

    @Test
    void libraryModeAppliesToPropertiesAndTheResultBuildsAStreamsConfig() {
        AgentState.accept(AllocationLoader.Result.ok(ALLOCATION), "library");
        Properties props = new Properties();
        props.put("application.id", "lib");
        props.put("bootstrap.servers", "127.0.0.1:1");
        props.put("statestore.cache.max.bytes", "1073741824");
        props.put("rocksdb.config.setter", UserSetter.class.getName());
        StreamsMemory.apply(props);
        StreamsConfig config = new StreamsConfig(props);
        assertThat(config.getLong("statestore.cache.max.bytes")).isEqualTo(alloc("statestore.cache.max.bytes"));
        assertThat(config.getClass("rocksdb.config.setter")).isEqualTo(BoundedRocksDBConfigSetter.class);
        Map<String, Object> producer = config.getProducerConfigs("c");
        assertThat(producer.get("buffer.memory")).isEqualTo(Long.toString(alloc("producer.buffer.memory")));
        Map<String, Object> consumer = config.getMainConsumerConfigs("g", "c", 0);
        assertThat(consumer.get("fetch.max.bytes")).isEqualTo(Long.toString(alloc("main.consumer.fetch.max.bytes")));
        // Each change logged once, even when merged again.
        StreamsMemory.apply(props);
        long cacheLines = lines.stream()
                .filter(l -> l.contains("set statestore.cache.max.bytes"))
                .count();
        assertThat(cacheLines).isEqualTo(1);
        assertThat(lines.stream().filter(l -> l.contains("WARN") && !isJvmLimitsWarning(l)))
                .isEmpty();
    }

    /**
     * The record cache the application's own StreamsConfig got is the one reported and logged, with why: Kafka
     * Streams' later configs (its partition assignor's, built from the consumer's configs, have no record cache key)
     * neither change the report nor log a change that is not in force.
     */
    @Test
    void theApplicationsFirstConfigDecidesTheRecordCacheReportedAndLogged() {
        long heap = plannedHeap(ALLOCATION);
        Assumptions.assumeTrue(
                JvmLimits.heapHolds(heap, JvmLimits.heapInForce()), "the test JVM's heap holds the plan's");
        AgentState.accept(AllocationLoader.Result.ok(ALLOCATION), "agent");
        assertThat(AgentState.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.NONE);
        long planned = alloc("statestore.cache.max.bytes");
        StreamsConfigMerge.merge(Map.of("application.id", "a"), KAFKA, StreamsConfig.class);
        StreamsConfigMerge.merge(Map.of("group.id", "a"), KAFKA, StreamsConfig.class);
        assertThat(lines)
                .filteredOn(l -> l.contains("set statestore.cache.max.bytes"))
                .containsExactly("[streams-memory-agent] INFO set statestore.cache.max.bytes: 10485760 (default) -> "
                        + planned + " (the plan's record cache; the heap in force holds it)");
        assertThat(AgentState.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.PLAN);

        log.restart();
        AgentState.accept(AllocationLoader.Result.ok(ALLOCATION), "agent");
        StreamsConfigMerge.merge(Map.of("statestore.cache.max.bytes", "1000"), KAFKA, StreamsConfig.class);
        StreamsConfigMerge.merge(Map.of("group.id", "a"), KAFKA, StreamsConfig.class);
        assertThat(lines).noneMatch(l -> l.contains("set statestore.cache.max.bytes"));
        assertThat(AgentState.applied()).doesNotContainKey("statestore.cache.max.bytes");
        assertThat(AgentState.recordCache().source()).isEqualTo(ConfigMerger.RecordCache.Source.APPLICATION);
        assertThat(new AgentMXBeanImpl().getRecordCacheSource()).isEqualTo("application");
        assertThat(new AgentMXBeanImpl().getRecordCacheReason()).contains("the application's own 1000");
    }

    @Test
    void anUnsupportedVersionGivesOneWarningAndChangesNothing() {
        AgentState.accept(AllocationLoader.Result.ok(ALLOCATION), "agent");
        Map<String, Object> app = Map.of("statestore.cache.max.bytes", "1073741824");
        for (String version : List.of("5.0.0", "1.1.0", "banana")) {
            log.restart();
            AgentState.accept(AllocationLoader.Result.ok(ALLOCATION), "agent");
            KafkaCatalog catalog = new FakeCatalog(version, Set.of("statestore.cache.max.bytes"));
            assertThat(StreamsConfigMerge.merge(app, catalog, StreamsConfig.class))
                    .isSameAs(app);
            assertThat(StreamsConfigMerge.merge(app, catalog, StreamsConfig.class))
                    .isSameAs(app);
            assertThat(lines.stream().filter(l -> l.contains("WARN")).toList())
                    .hasSize(1)
                    .allSatisfy(l -> assertThat(l).contains(version).contains("own memory settings"));
            assertThat(AgentState.status()).startsWith("inactive");
        }
    }

    @Test
    void theHookNeverThrows() {
        AgentState.accept(AllocationLoader.Result.ok(ALLOCATION), "agent");
        Map<Object, Object> weird = new HashMap<>() {
            @Override
            public Set<Map.Entry<Object, Object>> entrySet() {
                throw new IllegalStateException("boom");
            }

            @Override
            public int size() {
                throw new IllegalStateException("boom");
            }

            @Override
            public Object get(Object key) {
                throw new IllegalStateException("boom");
            }
        };
        assertThat(StreamsConfigHook.merge(weird, StreamsConfig.class) == weird).isTrue();
        assertThat(StreamsConfigHook.merge(null, StreamsConfig.class)).isNull();
        assertThat(lines.stream()
                        .filter(l -> l.contains("WARN") && !isJvmLimitsWarning(l))
                        .toList())
                .hasSize(1);
    }

    /** This test JVM does not run with the allocation's -Xmx, so the agent rightly says so once (see JvmLimitsTest). */
    private static boolean isJvmLimitsWarning(String line) {
        return line.contains("does not run with the allocation's limits");
    }

    /**
     * Case 8 of issue 9, with the application's real ConfigDefs: an edited allocation with a key the engine never
     * emits and a value Kafka rejects (fetch.max.bytes is an INT) is merged into properties from which Kafka Streams
     * and its consumer build without throwing; both are reported and the application keeps its own values.
     */
    @Test
    void onlyEngineKeysWithValuesTheApplicationsKafkaAcceptsAreApplied() throws Exception {
        ObjectNode document = Allocations.editedByHand(Allocations.oneGiB());
        ((ObjectNode) document.get("streamsConfig")).put("producer.acks", "0");
        AgentAllocation tampered = AgentAllocation.of(document, "test");
        Map<String, Object> app = Map.of(
                "application.id", "a", "bootstrap.servers", "127.0.0.1:1", "main.consumer.fetch.max.bytes", "1048576");
        ConfigMerger.Result result = merge(app, tampered, KAFKA, null);
        assertThat(result.skipped())
                .anySatisfy(s -> assertThat(s)
                        .startsWith("main.consumer.max.poll.records (not a " + "key the allocation engine emits"))
                .anySatisfy(s -> assertThat(s).startsWith("producer.acks (not a " + "key"))
                .anySatisfy(s -> assertThat(s)
                        .startsWith("main.consumer.fetch.max.bytes (the allocation's "
                                + "3000000000 is rejected by Kafka 4.4.0")
                        .endsWith("the application keeps its own value)"));
        assertThat(result.props())
                .doesNotContainKeys("main.consumer.max.poll.records", "producer.acks")
                .containsEntry("main.consumer.fetch.max.bytes", "1048576")
                .containsEntry("producer.buffer.memory", Long.toString(alloc("producer.buffer.memory")));
        StreamsConfig streamsConfig = new StreamsConfig(result.props());
        // As Kafka Streams builds its main consumer: these properties plus its byte-array deserializers.
        Map<String, Object> consumerProps = new HashMap<>(streamsConfig.getMainConsumerConfigs("g", "c", 0));
        consumerProps.put("key.deserializer", ByteArrayDeserializer.class);
        consumerProps.put("value.deserializer", ByteArrayDeserializer.class);
        ConsumerConfig consumer = new ConsumerConfig(consumerProps);
        assertThat(consumer.getInt("max.poll.records")).isEqualTo(1000); // Kafka Streams' own default for it
        assertThat(consumer.getInt("fetch.max.bytes")).isEqualTo(1048576);
    }

    @Test
    void theCatalogChecksValuesWithTheApplicationsConfigDef() {
        assertThat(KAFKA.rejects(Client.CONSUMER, "fetch.max.bytes", "1048576")).isNull();
        assertThat(KAFKA.rejects(Client.CONSUMER, "max.poll.records", "0")).contains("max.poll.records");
        assertThat(KAFKA.rejects(Client.CONSUMER, "fetch.max.bytes", "3000000000"))
                .isNotNull();
        assertThat(KAFKA.rejects(Client.STREAMS, "statestore.cache.max.bytes", "-5"))
                .isNotNull();
        assertThat(KAFKA.rejects(Client.PRODUCER, "no.such.key", "1")).contains("no definition");
    }

    /** A Kafka Streams of another version: knows only the given streams keys; clients know nothing. */
    private record FakeCatalog(String version, Set<String> streamsKeys) implements KafkaCatalog {
        @Override
        public String unsupportedReason() {
            return KafkaCatalog.supportReason(version);
        }

        @Override
        public boolean knows(Client client, String key) {
            return client == Client.STREAMS && streamsKeys.contains(key);
        }

        @Override
        public Object defaultValue(Client client, String key) {
            return key.contains("cache") ? 10485760L : 1000;
        }

        @Override
        public String rejects(Client client, String key, Object value) {
            return null;
        }
    }
}
