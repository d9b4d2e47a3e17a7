package io.streamsmemory.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.agent.StreamsConfigHook;
import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.AllocationLoader;
import io.streamsmemory.agent.allocation.Allocations;
import io.streamsmemory.agent.log.CapturedAgentLog;
import io.streamsmemory.agent.rocksdb.RocksDbStats;
import io.streamsmemory.agent.state.AgentState;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.StreamsConfig;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The report's two renderings, its arithmetic, and a report of this very JVM. */
class MemoryReportTest {
    private static final Pattern NAME = Pattern.compile("[a-z_:][a-z0-9_:]*");
    private static final Pattern SAMPLE = Pattern.compile("([^\\s{]+)(\\{[^}]*})? (-?[0-9]+(\\.[0-9]+)?)");

    @RegisterExtension
    final CapturedAgentLog log = new CapturedAgentLog();

    static MemoryReport sample() {
        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        sections.put("process", Map.of("rssBytes", 1000L));
        sections.put("cgroup", new LinkedHashMap<>(Map.of("version", 2L)));
        sections.get("cgroup").put("currentBytes", 1200L);
        sections.put("jvm", new LinkedHashMap<>(Map.of("heapUsedBytes", 10L)));
        sections.get("jvm").put("heapCommittedBytes", 20L);
        sections.put("streams", Map.of());
        sections.put("rocksdb", Map.of("blockCacheCapacityBytes", 64L));
        return new MemoryReport("abc\"def", "rst", "plan", "3.4.1", "-Xmx2g", null, sections, 7L);
    }

    @Test
    void jsonHasTheDocumentedNamesAndLeavesOutWhatIsUnknown() throws Exception {
        JsonNode json = new ObjectMapper().readTree(sample().toJson());
        List<String> top = new ArrayList<>();
        json.fieldNames().forEachRemaining(top::add);
        assertThat(top)
                .containsExactly(
                        "formatVersion",
                        "allocationHash",
                        "restartHash",
                        "recordCacheSource",
                        "kafkaStreamsVersion",
                        "heapFlag",
                        "process",
                        "cgroup",
                        "jvm",
                        "rocksdb",
                        "unexplainedBytes"); // the empty streams section is left out
        assertThat(json.get("formatVersion").asInt()).isEqualTo(1);
        assertThat(json.get("allocationHash").asText()).isEqualTo("abc\"def");
        assertThat(json.get("recordCacheSource").asText()).isEqualTo("plan");
        assertThat(json.get("kafkaStreamsVersion").asText()).isEqualTo("3.4.1");
        assertThat(json.get("heapFlag").asText()).isEqualTo("-Xmx2g");
        assertThat(json.at("/cgroup/version").asLong()).isEqualTo(2);
        assertThat(json.at("/cgroup/currentBytes").asLong()).isEqualTo(1200);
        assertThat(json.at("/cgroup").has("maxBytes")).isFalse();
        assertThat(json.at("/jvm/heapCommittedBytes").asLong()).isEqualTo(20);
        assertThat(json.get("unexplainedBytes").asLong()).isEqualTo(7);
        JsonNode bare = new ObjectMapper()
                .readTree(new MemoryReport(null, null, null, null, null, null, Map.of(), null).toJson());
        assertThat(bare.toString()).isEqualTo("{\"formatVersion\":1}");
    }

    @Test
    void prometheusTextIsValidAndCarriesTheSameFigures() {
        String text = sample().toPrometheus();
        Map<String, String> samples = assertValidPrometheus(text);
        assertThat(samples)
                .containsEntry("streams_memory_agent_process_rss_bytes", "1000")
                .containsEntry("streams_memory_agent_cgroup_version", "2")
                .containsEntry("streams_memory_agent_cgroup_current_bytes", "1200")
                .containsEntry("streams_memory_agent_jvm_heap_committed_bytes", "20")
                .containsEntry("streams_memory_agent_rocksdb_block_cache_capacity_bytes", "64")
                .containsEntry("streams_memory_agent_unexplained_bytes", "7")
                .containsEntry("streams_memory_agent_info", "1")
                .containsEntry("streams_memory_agent_record_cache_source", "1");
        assertThat(text).contains("streams_memory_agent_record_cache_source{source=\"plan\"} 1\n");
        assertThat(text)
                .contains("streams_memory_agent_info{format_version=\"1\",allocation_hash=\"abc\\\"def\","
                        + "restart_hash=\"rst\",kafka_streams_version=\"3.4.1\",heap_flag=\"-Xmx2g\"} 1\n");
    }

    /**
     * Every sample's metric has a TYPE line before it, names are valid, every line is a comment or a sample.
     * Returns metric name to value.
     */
    static Map<String, String> assertValidPrometheus(String text) {
        assertThat(text).endsWith("\n");
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                assertThat(parts).hasSize(4);
                assertThat(parts[2]).matches(NAME);
                assertThat(parts[3]).isEqualTo("gauge");
                assertThat(types.put(parts[2], parts[3]))
                        .as("one TYPE per metric: " + parts[2])
                        .isNull();
            } else if (line.startsWith("# HELP ")) {
                assertThat(line.split(" ", 4)[2]).matches(NAME);
            } else {
                Matcher sample = SAMPLE.matcher(line);
                assertThat(sample.matches()).as("a sample line: " + line).isTrue();
                assertThat(sample.group(1)).matches(NAME);
                assertThat(types).as("TYPE before " + line).containsKey(sample.group(1));
                samples.put(sample.group(1), sample.group(3));
            }
        }
        return samples;
    }

    @Test
    void unexplainedIsRssLessWhatTheJvmAndRocksDbAccountFor() {
        Map<String, Long> jvm = Map.of(
                "heapCommittedBytes",
                100L,
                "metaspaceUsedBytes",
                20L,
                "codeCacheUsedBytes",
                10L,
                "directUsedBytes",
                5L,
                "liveThreads",
                3L,
                "heapUsedBytes",
                99L);
        Map<String, Long> shared = Map.of("blockCacheCapacityBytes", 500L, "blockCacheUsageBytes", 40L);
        // Memtables are charged to the shared cache: counted once, inside its usage.
        assertThat(MemoryReport.unexplained(1000L, jvm, shared, 2)).isEqualTo(1000 - 100 - 20 - 10 - 5 - 6 - 40);
        // Without the agent's cache, RocksDB's memory is not known to the agent: all of it unexplained.
        assertThat(MemoryReport.unexplained(1000L, jvm, Map.of(), 2)).isEqualTo(1000 - 100 - 20 - 10 - 5 - 6);
        assertThat(MemoryReport.unexplained(null, jvm, shared, 2)).isNull();
    }

    @Test
    void theJvmSectionShowsTheClassCountAndCapsTheAllocationPlanned() throws Exception {
        WorkloadFacts facts = WorkloadFacts.builder()
                .memoryBytes(2L << 30)
                .streamThreads(2)
                .partitions(8)
                .stores(new StoreCounts(1, 0, 0))
                .loadedClasses(25_000)
                .extraDirectMemoryBytes(64L << 20)
                .build();
        Allocation allocation = new AllocationEngine().allocate(facts).allocation();
        Map<String, Long> planned = MemoryReport.planned(Allocations.agentAllocation(AllocationJson.write(allocation)));
        assertThat(planned)
                .containsEntry("plannedLoadedClasses", 25_000L)
                .containsEntry("plannedHeapMaxBytes", allocation.part("heap").bytes())
                .containsEntry(
                        "plannedMetaspaceMaxBytes",
                        allocation.part("jvm-metaspace").bytes())
                .containsEntry(
                        "plannedDirectMaxBytes",
                        allocation.part("jvm-direct-memory").bytes());
        assertThat(MemoryReport.planned(null)).isEmpty();
        // In both renderings, next to the figures of the JVM itself.
        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        Map<String, Long> jvm = new LinkedHashMap<>(Map.of("loadedClasses", 24_000L));
        jvm.putAll(planned);
        sections.put("jvm", jvm);
        MemoryReport report = new MemoryReport("h", "r", null, null, null, null, sections, null);
        JsonNode json = new ObjectMapper().readTree(report.toJson());
        assertThat(json.at("/jvm/plannedLoadedClasses").asLong()).isEqualTo(25_000L);
        assertThat(report.toPrometheus())
                .contains(
                        "streams_memory_agent_jvm_planned_loaded_classes 25000\n",
                        "streams_memory_agent_jvm_planned_metaspace_max_bytes "
                                + allocation.part("jvm-metaspace").bytes());
        assertValidPrometheus(report.toPrometheus());
    }

    /**
     * The record cache planned for the pod (each instance's value times the instances planned, the engine's
     * record-cache part) next to the one in force, and which one the application got: "none" before its first
     * StreamsConfig, then the merge's.
     */
    @Test
    void theReportShowsThePlannedRecordCacheAndWhichOneApplied() throws Exception {
        Allocation planned = new AllocationEngine()
                .allocate(WorkloadFacts.builder()
                        .memoryBytes(2L << 30)
                        .streamThreads(2)
                        .partitions(8)
                        .stores(new StoreCounts(1, 0, 0))
                        .instancesPerPod(2)
                        .build())
                .allocation();
        AgentAllocation allocation = Allocations.agentAllocation(AllocationJson.write(planned));
        long perInstance = Long.parseLong(planned.streamsConfig().get("statestore.cache.max.bytes"));
        assertThat(allocation.plannedRecordCacheBytes())
                .isEqualTo(perInstance * 2)
                .isEqualTo(planned.part("record-cache").bytes());
        AgentState.accept(AllocationLoader.Result.ok(allocation), "agent");
        JsonNode before = new ObjectMapper().readTree(MemoryReport.build().toJson());
        assertThat(before.get("recordCacheSource").asText()).isEqualTo("none");
        assertThat(before.at("/streams/plannedRecordCacheBytes").asLong()).isEqualTo(perInstance * 2);

        StreamsConfigHook.merge(Map.of("statestore.cache.max.bytes", "1000"), StreamsConfig.class);
        MemoryReport report = MemoryReport.build();
        assertThat(new ObjectMapper()
                        .readTree(report.toJson())
                        .get("recordCacheSource")
                        .asText())
                .isEqualTo("application");
        assertThat(assertValidPrometheus(report.toPrometheus()))
                .containsEntry(
                        "streams_memory_agent_streams_planned_record_cache_bytes", Long.toString(perInstance * 2));
        assertThat(report.toPrometheus())
                .contains("streams_memory_agent_record_cache_source{source=\"application\"} 1\n");
        assertThat(new ObjectMapper()
                        .readTree(new MemoryReport(null, null, "none", null, null, null, Map.of(), null).toJson())
                        .toString())
                .isEqualTo("{\"formatVersion\":1,\"recordCacheSource\":\"none\"}");
    }

    /** Flushes and stall time are unknown (left out) until the agent listens to a store, then counted from there. */
    @Test
    void theRocksDbSectionCarriesFlushesAndStallTimeOnlyOnceTheAgentListens() throws Exception {
        assertThat(MemoryReport.rocksDb(60_000L)).doesNotContainKeys("flushes", "flushedBytes", "writeStallMillis");

        RocksDbStats.listening = true;
        RocksDbStats.FLUSHES.set(3);
        RocksDbStats.FLUSHED_BYTES.set(3L << 20);
        RocksDbStats.WRITE_STALLS.changed(false, true); // a stall in progress
        Thread.sleep(20);
        Map<String, Long> rocksdb = MemoryReport.rocksDb(60_000L);
        assertThat(rocksdb).containsEntry("flushes", 3L).containsEntry("flushedBytes", 3L << 20);
        assertThat(rocksdb.get("writeStallMillis")).isBetween(20L, 60_000L);
        // Never more than the uptime it is read against.
        assertThat(MemoryReport.rocksDb(5L)).containsEntry("writeStallMillis", 5L);

        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        sections.put("rocksdb", rocksdb);
        MemoryReport report = new MemoryReport(null, null, null, null, null, null, sections, null);
        assertThat(new ObjectMapper()
                        .readTree(report.toJson())
                        .at("/rocksdb/flushedBytes")
                        .asLong())
                .isEqualTo(3L << 20);
        assertThat(assertValidPrometheus(report.toPrometheus()))
                .containsEntry("streams_memory_agent_rocksdb_flushes", "3")
                .containsEntry("streams_memory_agent_rocksdb_flushed_bytes", Long.toString(3L << 20))
                .containsKey("streams_memory_agent_rocksdb_write_stall_millis");
    }

    @Test
    void snakeCaseOfTheFieldNames() {
        assertThat(MemoryReport.snake("heapUsedBytes")).isEqualTo("heap_used_bytes");
        assertThat(MemoryReport.snake("rocksDbInstances")).isEqualTo("rocks_db_instances");
        assertThat(MemoryReport.snake("version")).isEqualTo("version");
    }

    @Test
    void aReportOfThisJvmHasItsHeapAndNoStreamsSectionWhenInstancesAreNotCounted() throws Exception {
        MemoryReport report = MemoryReport.build();
        JsonNode json = new ObjectMapper().readTree(report.toJson());
        JsonNode jvm = json.get("jvm");
        long used = jvm.get("heapUsedBytes").asLong();
        long committed = jvm.get("heapCommittedBytes").asLong();
        assertThat(used).isPositive().isLessThanOrEqualTo(committed);
        assertThat(committed).isLessThanOrEqualTo(jvm.get("heapMaxBytes").asLong());
        // Runtime.maxMemory() leaves out one survivor space with Serial and Parallel; the pools' sum does not.
        assertThat(jvm.get("heapMaxBytes").asLong())
                .isGreaterThanOrEqualTo(Runtime.getRuntime().maxMemory());
        assertThat(jvm.get("loadedClasses").asLong()).isPositive();
        assertThat(jvm.get("liveThreads").asLong())
                .isCloseTo((long) Thread.getAllStackTraces().size(), Offset.offset(3L));
        assertThat(jvm.get("metaspaceUsedBytes").asLong()).isPositive();
        assertThat(jvm.get("codeCacheUsedBytes").asLong()).isPositive();
        assertThat(jvm.has("directUsedBytes")).isTrue();
        System.gc();
        JsonNode afterGc =
                new ObjectMapper().readTree(MemoryReport.build().toJson()).get("jvm");
        assertThat(afterGc.get("gcCollections").asLong()).isPositive();
        assertThat(afterGc.get("gcPauseMillis").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(afterGc.get("uptimeMillis").asLong())
                .isPositive()
                .isGreaterThanOrEqualTo(jvm.get("uptimeMillis").asLong());
        // This Linux process has read its classes from storage, or from the page cache (0); the file is there.
        assertThat(json.at("/process/storageReadBytes").isIntegralNumber()).isTrue();
        assertThat(json.at("/process/storageReadBytes").asLong()).isNotNegative();
        // No store was bounded: the figures of the agent's RocksDB listener are unknown, not 0.
        assertThat(json.has("rocksdb")).isFalse();
        assertThat(json.has("streams")).isFalse();
        assertThat(json.has("allocationHash")).isFalse();
        assertThat(json.get("recordCacheSource").asText()).isEqualTo("none");
        assertThat(json.at("/process/rssBytes").asLong()).isPositive();
        assertThat(json.get("unexplainedBytes")).isNotNull();
        assertValidPrometheus(report.toPrometheus());
    }
}
