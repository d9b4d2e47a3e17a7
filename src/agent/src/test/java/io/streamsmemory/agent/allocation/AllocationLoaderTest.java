package io.streamsmemory.agent.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.streamsmemory.agent.StreamsMemory;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.log.CapturedAgentLog;
import io.streamsmemory.agent.state.AgentState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Every way the allocation can be missing or broken gives exactly one warning and applies nothing. */
class AllocationLoaderTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final CapturedAgentLog log = new CapturedAgentLog();

    private final List<String> lines = log.lines();

    private AgentAllocation loadFile(String content) throws Exception {
        Path file = dir.resolve("alloc.json");
        Files.writeString(file, content);
        return loadEnv(file.toString());
    }

    private AgentAllocation loadEnv(String value) {
        AgentState.accept(AllocationLoader.load(Map.of(AllocationLoader.ENV, value), new Properties()), "agent");
        return AgentState.allocation();
    }

    private List<String> warnings() {
        return lines.stream()
                .filter(line -> line.startsWith(AgentLog.PREFIX + "WARN"))
                .toList();
    }

    private void assertOneWarning(AgentAllocation allocation, String... mentions) {
        assertThat(allocation).isNull();
        assertThat(warnings()).hasSize(1);
        assertThat(warnings().get(0)).contains(mentions).contains("runs on its own memory settings");
        assertThat(AgentState.status()).startsWith("inactive");
    }

    @Test
    void aValidDocumentLoadsWithOneStartupLine() throws Exception {
        AgentAllocation allocation = loadFile(Allocations.oneGiB());
        assertThat(allocation).isNotNull();
        assertThat(allocation.memoryBytes()).isEqualTo(1L << 30);
        assertThat(allocation.streamsConfig()).containsKeys("statestore.cache.max.bytes", "producer.buffer.memory");
        assertThat(allocation.rocksDb()).isNotNull();
        assertThat(warnings()).isEmpty();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .contains("INFO", allocation.hash(), "shared block cache", "io.streamsmemory:type=Agent");
    }

    @Test
    void noVariableNoProperty() {
        AgentState.accept(AllocationLoader.load(Map.of(), new Properties()), "agent");
        assertOneWarning(AgentState.allocation(), AllocationLoader.ENV, AllocationLoader.PROPERTY);
    }

    @Test
    void propertyWinsOverEnvironment() throws Exception {
        Path file = dir.resolve("alloc.json");
        Files.writeString(file, Allocations.oneGiB());
        Properties properties = new Properties();
        properties.setProperty(AllocationLoader.PROPERTY, file.toString());
        AllocationLoader.Result result = AllocationLoader.load(Map.of(AllocationLoader.ENV, "/nope"), properties);
        assertThat(result.allocation()).isNotNull();
    }

    @Test
    void missingFile() {
        assertOneWarning(loadEnv(dir.resolve("absent.json").toString()), "does not exist");
    }

    @Test
    void directoryInsteadOfFile() {
        assertOneWarning(loadEnv(dir.toString()), "not a regular file");
    }

    /** A file whose text is no allocation document: one warning saying what is wrong with it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("noAllocationDocument")
    void aFileThatIsNoAllocationDocumentIsOneWarning(String content, String mention) throws Exception {
        assertOneWarning(loadFile(content), mention);
    }

    static Stream<Arguments> noAllocationDocument() {
        String valid = Allocations.oneGiB();
        return Stream.of(
                arguments(named("empty", ""), "is empty"),
                arguments(named("blank", "  \n\n"), "is empty"),
                arguments(named("truncated", valid.substring(0, valid.length() / 2)), "truncated or garbled"),
                arguments(named("garbled text", "memory: lots, please"), "truncated or garbled"),
                arguments(named("JSON but not an object", "[1, 2, 3]"), "JSON object"),
                arguments(
                        named("unknown formatVersion", valid.replace("\"formatVersion\" : 1", "\"formatVersion\" : 2")),
                        "formatVersion 2"),
                arguments(named("wrong kind", valid.replace("\"StreamsMemoryAllocation\"", "\"ConfigMap\"")), "kind"));
    }

    @Test
    void binaryGarbage() throws Exception {
        Path file = dir.resolve("alloc.json");
        Files.write(file, new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, (byte) 0x81, 0x7b});
        assertOneWarning(loadEnv(file.toString()), "garbled");
    }

    @Test
    void engineErrorDocument() throws Exception {
        String errors = "{\"apiVersion\":\"streamsmemory.io/v1alpha1\",\"kind\":\"StreamsMemoryAllocation\","
                + "\"formatVersion\":1,\"errors\":[{\"code\":\"TooSmall\"}],\"minimumMemoryBytes\":1}";
        assertOneWarning(loadFile(errors), "engine's errors");
    }

    @Test
    void negativeValue() throws Exception {
        String json = Allocations.oneGiB()
                .replaceAll("\"producer.buffer.memory\" : \"\\d+\"", "\"producer.buffer.memory\" : \"-5\"");
        assertOneWarning(loadFile(json), "producer.buffer.memory", "negative");
    }

    @Test
    void nonNumericValue() throws Exception {
        String json = Allocations.oneGiB()
                .replaceAll("\"producer.buffer.memory\" : \"\\d+\"", "\"producer.buffer.memory\" : \"32m\"");
        assertOneWarning(loadFile(json), "producer.buffer.memory", "whole number");
    }

    @Test
    void absurdValueLargerThanThePod() throws Exception {
        String json = Allocations.oneGiB()
                .replaceAll(
                        "\"statestore.cache.max.bytes\" : \"\\d+\"",
                        "\"statestore.cache.max.bytes\" : \"9000000000000\"");
        assertOneWarning(loadFile(json), "statestore.cache.max.bytes", "larger than the whole pod");
    }

    /**
     * An absurd value of a number the agent checks (a pod's memory, a negative block cache, a ratio above 1, a
     * memtable or flush thread count no JVM runs): the field set to {@code value} in the engine's 1 GiB document,
     * where it first matches {@code valueRegex}, is one warning naming the field.
     */
    @ParameterizedTest(name = "{0}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "memoryBytes             | 1073741824, | 9223372036854775807,",
                "blockCacheCapacityBytes | \\d+        | -1",
                "highPriorityPoolRatio   | [0-9.]+     | 7.5",
                "maxWriteBufferNumber    | \\d+        | 100000",
                "backgroundFlushThreads  | \\d+        | 100000"
            })
    void anAbsurdNumberIsOneWarning(String field, String valueRegex, String value) throws Exception {
        String valid = Allocations.oneGiB();
        String json = valid.replaceFirst("\"" + field + "\" : " + valueRegex, "\"" + field + "\" : " + value);
        assertThat(json).isNotEqualTo(valid);
        assertOneWarning(loadFile(json), field);
    }

    @Test
    void aDocumentFromBeforeFlushThreadsLeavesRocksDbsOwn() throws Exception {
        String json = Allocations.oneGiB().replaceFirst(",\\s*\"backgroundFlushThreads\" : \\d+", "");
        assertThat(json).doesNotContain("backgroundFlushThreads");
        AgentAllocation allocation = loadFile(json);
        assertThat(allocation.rocksDb().backgroundFlushThreads()).isZero();
        assertThat(warnings()).isEmpty();
        assertThat(lines.get(0)).contains("flush threads RocksDB's own");
    }

    @Test
    void hugeFileIsNotRead() throws Exception {
        Path file = dir.resolve("alloc.json");
        byte[] big = new byte[(int) AllocationLoader.MAX_FILE_BYTES + 1];
        Arrays.fill(big, (byte) ' ');
        Files.write(file, big);
        assertOneWarning(loadEnv(file.toString()), "bytes");
    }

    @Test
    void aSecondLoadDoesNotWarnAgain() {
        AgentState.accept(AllocationLoader.load(Map.of(), new Properties()), "agent");
        AgentState.ensureLoaded("library");
        StreamsMemory.apply(new Properties());
        assertThat(warnings()).hasSize(1);
    }

    @Test
    void libraryModeWithABadFileLeavesPropertiesAlone() throws Exception {
        Path file = dir.resolve("alloc.json");
        Files.write(file, "{\"kind\":".getBytes(StandardCharsets.UTF_8));
        Properties props = new Properties();
        props.setProperty("statestore.cache.max.bytes", "999999999");
        StreamsMemory.apply(props, file);
        assertThat(props).hasSize(1).containsEntry("statestore.cache.max.bytes", "999999999");
        assertThat(warnings()).hasSize(1);
    }
}
