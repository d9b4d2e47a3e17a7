package io.streamsmemory.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class PlanCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Run(int exitCode, String out, String err) {}

    private static Run plan(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = PlanCommand.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        int exitCode = commandLine.execute(args);
        return new Run(exitCode, out.toString(), err.toString());
    }

    @Test
    void tablePrintsEveryPartWithItsConfigAndTheKafkaDefaults() {
        Run run = plan(typical("4"));
        assertThat(run.exitCode()).isZero();
        // The cache: 518 MiB of RocksDB less 40 instances x 320 KiB of native overhead (MemoryModel).
        assertThat(run.out())
                .contains(
                        "heap",
                        "-Xmx1023648k",
                        "statestore.cache.max.bytes=",
                        "rocksdb-block-cache",
                        "block_cache.capacity=530055168",
                        "total",
                        "2147483648",
                        "Kafka's defaults for the same topology",
                        "-> the pod can be OOM-killed",
                        "JAVA_TOOL_OPTIONS: -Xms1023648k");
    }

    @Test
    void jsonHasVersionedDocumentWithPartsSummingToMemory() throws Exception {
        Run run = plan(typical("4", "--output", "json"));
        assertThat(run.exitCode()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("formatVersion").asInt()).isEqualTo(1);
        assertThat(doc.get("kind").asText()).isEqualTo("StreamsMemoryAllocation");
        assertPartsSum(doc);
        JsonNode heap = findPart(doc.get("parts"), "heap");
        assertThat(heap.get("config").get("-Xmx").asText()).isEqualTo("1023648k");
        assertThat(heap.get("reason").asText()).isNotBlank();
    }

    @Test
    void instancesDivideTheRecordCacheAmongKafkaStreamsInstances() throws Exception {
        // The share forced, so no per-thread cap applies and the division shows (capped, each instance keeps at
        // least Kafka's 10 MiB: AllocationEngineExamplesTest).
        JsonNode one = JSON.readTree(plan(typical("2", "--output", "json", "--record-cache-fraction", "0.2"))
                .out());
        Run run = plan(typical("2", "--output", "json", "--instances", "2", "--record-cache-fraction", "0.2"));
        assertThat(run.exitCode()).isZero();
        JsonNode two = JSON.readTree(run.out());
        assertThat(two.get("inputs").get("instancesPerPod").asInt()).isEqualTo(2);
        assertPartsSum(two);
        long cacheOne =
                one.get("streamsConfig").get("statestore.cache.max.bytes").asLong();
        long cacheTwo =
                two.get("streamsConfig").get("statestore.cache.max.bytes").asLong();
        assertThat(cacheTwo).isPositive().isLessThanOrEqualTo(cacheOne / 2 + 1);
        JsonNode heap = findPart(two.get("parts"), "heap");
        assertThat(findPart(heap.get("parts"), "record-cache").get("bytes").asLong())
                .isEqualTo(2 * cacheTwo);
        Run table = plan("--memory", "2Gi", "--threads", "2", "--instances", "2", "--partitions", "24");
        assertThat(table.out()).contains("2 KafkaStreams instances x 2 stream threads");
    }

    @Test
    void loadedClassesAndExtraDirectMemoryRaiseTheirJvmCaps() throws Exception {
        JsonNode standard = JSON.readTree(plan(typical("4", "--output", "json")).out());
        Run run = plan(typical("4", "--output", "json", "--loaded-classes", "25000", "--extra-direct-memory", "64Mi"));
        assertThat(run.exitCode()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertPartsSum(doc);
        assertThat(doc.get("inputs").get("loadedClasses").asInt()).isEqualTo(25_000);
        assertThat(doc.get("inputs").get("extraDirectMemoryBytes").asLong()).isEqualTo(64L << 20);
        // ceil((25,000 x 5,800 B + 14,000,000 B) / MiB) = 152 MiB instead of the default 15,000 classes' 97 MiB.
        assertThat(doc.get("jvmOptions").toString()).contains("-XX:MaxMetaspaceSize=152m");
        // The direct cap gains the 64 MiB and loses part of the clients' share, which the larger JVM needs shrink.
        JsonNode direct = findPart(doc.get("parts"), "jvm-direct-memory");
        assertThat(direct.get("bytes").asLong())
                .isGreaterThan(findPart(standard.get("parts"), "jvm-direct-memory")
                        .get("bytes")
                        .asLong());
        assertThat(direct.get("reason").asText()).contains("+ 64 MiB the application's own libraries use");
        assertThat(findPart(doc.get("parts"), "heap").get("bytes").asLong())
                .isLessThan(findPart(standard.get("parts"), "heap").get("bytes").asLong());
        Run tooMany = plan("--memory", "1Gi", "--partitions", "4", "--loaded-classes", "5");
        assertThat(tooMany.exitCode()).isEqualTo(1);
        assertThat(tooMany.err()).contains("loadedClasses must be between");
        Run badQuantity = plan("--memory", "1Gi", "--partitions", "4", "--extra-direct-memory", "lots");
        assertThat(badQuantity.exitCode()).isEqualTo(1);
        assertThat(badQuantity.err()).contains("--extra-direct-memory");
    }

    @Test
    void transactionalStateStoresBoundTheUncommittedWrites() throws Exception {
        Run run = plan(typical("4", "--transactional-state-stores", "--output", "json"));
        assertThat(run.exitCode()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertPartsSum(doc);
        assertThat(doc.get("streamsConfig")
                        .get("statestore.uncommitted.max.bytes")
                        .asText())
                .isEqualTo("43177274");
        assertThat(findPart(doc.get("parts"), "uncommitted-write-batches")
                        .get("bytes")
                        .asLong())
                .isPositive();
        Run old = plan(
                "--memory",
                "2Gi",
                "--partitions",
                "4",
                "--stores",
                "kv=1",
                "--transactional-state-stores",
                "--kafka-streams-version",
                "3.9");
        assertThat(old.exitCode()).isEqualTo(1);
        assertThat(old.err()).contains("needs Kafka Streams 4.4 or later");
    }

    @Test
    void replicaRangeKeepsTheRocksDbSettingsAcrossItAndSaysWhatTheyHoldFor() throws Exception {
        String[] base = {
            "--memory",
            "2Gi",
            "--threads",
            "4",
            "--partitions",
            "24",
            "--stores",
            "kv=2",
            "--standby-replicas",
            "1",
            "--min-replicas",
            "2",
            "--max-replicas",
            "6"
        };
        JsonNode atFour =
                JSON.readTree(plan(with(base, "--replicas", "4", "-o", "json")).out());
        JsonNode atSix =
                JSON.readTree(plan(with(base, "--replicas", "6", "-o", "json")).out());
        assertThat(atFour.get("inputs").get("replicaRange").get("min").asInt()).isEqualTo(2);
        assertThat(atFour.get("inputs").get("replicaRange").get("max").asInt()).isEqualTo(6);
        // Sized for 1 pod holding all 24 active tasks (one pod of 2 restarting): 48 instances, 24 at 4 replicas now.
        assertThat(atFour.get("plannedTopology").get("rocksDbInstances").asLong())
                .isEqualTo(48);
        assertThat(atFour.get("topology").get("rocksDbInstances").asLong()).isEqualTo(24);
        assertThat(atSix.get("restartHash")).isEqualTo(atFour.get("restartHash"));
        assertThat(atSix.get("rocksdb")).isEqualTo(atFour.get("rocksdb"));

        Run table = plan(with(base, "--replicas", "4"));
        assertThat(table.exitCode()).isZero();
        assertThat(table.out())
                .contains(
                        "RocksDB settings and JVM flags hold for 1 to 6 replicas (the range [2, 6]",
                        "sized for 48 RocksDB instances per pod (24 active + 0 standby tasks), 24 now");
        // One bound alone: the other is --replicas.
        JsonNode onlyMax = JSON.readTree(
                plan("--memory", "2Gi", "--partitions", "24", "--replicas", "3", "--max-replicas", "5", "-o", "json")
                        .out());
        assertThat(onlyMax.get("inputs").get("replicaRange").get("min").asInt()).isEqualTo(3);
        // Without either flag the plan holds for exactly --replicas and the table says nothing of a range.
        assertThat(plan("--memory", "2Gi", "--partitions", "24", "--replicas", "3")
                        .out())
                .doesNotContain("hold for");
        Run reversed = plan("--memory", "2Gi", "--partitions", "24", "--min-replicas", "7", "--max-replicas", "6");
        assertThat(reversed.exitCode()).isEqualTo(1);
        assertThat(reversed.err()).contains("replicaRange must satisfy 1 <= min <= max");
    }

    /** 2 GiB, 24 partitions over 3 replicas, two key-value stores and a window store; then {@code more}. */
    private static String[] typical(String threads, String... more) {
        String[] base = {
            "--memory",
            "2Gi",
            "--threads",
            threads,
            "--partitions",
            "24",
            "--replicas",
            "3",
            "--stores",
            "kv=2,window=1"
        };
        return with(base, more);
    }

    private static String[] with(String[] base, String... more) {
        String[] args = Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, args, base.length, more.length);
        return args;
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--memory abc --partitions 4|--memory",
                "--memory 1Gi --threads four --partitions 4|--threads",
                "--memory 1Gi --partitions 4 --stores kv=x|--stores",
                "--memory 1Gi --partitions 4 --stores disk=2|--stores",
                "--memory 1Gi --partitions 4 --output yaml|--output",
                "--memory 1Gi --partitions 4 --tasks-per-pod 2|mutually exclusive",
                "--partitions 4|--memory",
                "--memory 1Gi --threads 0 --partitions 4|threads must be at least 1",
                "--memory 1Gi --partitions 4 --rocksdb-fraction 2|rocksDbFraction"
            })
    void malformedInputExitsWithOneAndNamesTheFlag(String args, String named) {
        Run run = plan(args.split(" "));
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains(named);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void wellFormedInputThatDoesNotFitExitsWithTwoAndTheEngineMessage() throws Exception {
        Run run = plan("--memory", "256Mi", "--threads", "8", "--partitions", "8", "--stores", "kv=40");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("does not fit", "the JVM alone needs", "raise memory to at least");
        Run json = plan("--memory", "256Mi", "--threads", "8", "--partitions", "8", "--stores", "kv=40", "-o", "json");
        assertThat(json.exitCode()).isEqualTo(2);
        JsonNode doc = JSON.readTree(json.out());
        assertThat(doc.get("errors").get(0).get("code").asText()).isEqualTo("JvmOverheadExceedsMemory");
        assertThat(doc.get("minimumMemoryBytes").asLong()).isGreaterThan(256L << 20);
    }

    /** A grid of 240 inputs through the command: every planned JSON sums to its memory at every level. */
    @Test
    void gridOfInputsGivesJsonWhosePartsSumToTheMemory() throws Exception {
        List<String> failures = new ArrayList<>();
        int planned = 0;
        int total = 0;
        for (String memory : new String[] {"512Mi", "1G", "1536Mi", "2Gi", "6Gi", "32Gi"}) {
            for (String threads : new String[] {"1", "2", "4", "8", "16"}) {
                for (String stores : new String[] {"kv=0", "kv=1", "kv=2,window=1", "kv=3,window=2,session=1"}) {
                    for (String partitions : new String[] {"6", "48"}) {
                        total++;
                        Run run = plan(
                                "--memory",
                                memory,
                                "--threads",
                                threads,
                                "--partitions",
                                partitions,
                                "--replicas",
                                "2",
                                "--stores",
                                stores,
                                "-o",
                                "json");
                        if (run.exitCode() == 2) {
                            assertThat(JSON.readTree(run.out()).get("errors")).isNotEmpty();
                            continue;
                        }
                        if (run.exitCode() != 0) {
                            failures.add(String.join(" ", memory, threads, stores, partitions) + ": " + run.err());
                            continue;
                        }
                        assertPartsSum(JSON.readTree(run.out()));
                        planned++;
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
        assertThat(total).isGreaterThanOrEqualTo(200);
        assertThat(planned).as("most of the grid fits").isGreaterThan(total * 3 / 4);
    }

    private static void assertPartsSum(JsonNode doc) {
        long memory = doc.get("memoryBytes").asLong();
        assertThat(sum(doc.get("parts"))).isEqualTo(memory);
        doc.get("parts").forEach(PlanCommandTest::assertNestedSum);
    }

    private static void assertNestedSum(JsonNode part) {
        JsonNode children = part.get("parts");
        if (children != null && !children.isEmpty()) {
            assertThat(sum(children))
                    .as(part.get("name").asText())
                    .isEqualTo(part.get("bytes").asLong());
            children.forEach(PlanCommandTest::assertNestedSum);
        }
    }

    private static long sum(JsonNode parts) {
        long sum = 0;
        for (JsonNode part : parts) {
            sum += part.get("bytes").asLong();
        }
        return sum;
    }

    private static JsonNode findPart(JsonNode parts, String name) {
        for (JsonNode part : parts) {
            if (part.get("name").asText().equals(name)) {
                return part;
            }
        }
        throw new AssertionError("no part " + name);
    }
}
