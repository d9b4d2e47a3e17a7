package io.streamsmemory.agent.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamsmemory.agent.allocation.AllocationLoaderFuzzAccess;
import io.streamsmemory.agent.allocation.AllocationLoaderFuzzAccess.Outcome;
import io.streamsmemory.engine.fuzz.CpuBudget;
import io.streamsmemory.engine.fuzz.HostileJson;
import io.streamsmemory.engine.json.AllocationJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzz target: the allocation document, read by the agent in every opted-in pod ({@code AllocationLoader} /
 * {@code AgentAllocation}) and by the engine's {@code AllocationJson.read} (the operator's reader of published
 * ConfigMaps and the webhook's). A ConfigMap can be edited by hand, so any text may arrive. The agent must answer
 * with an allocation or its one-sentence "inert" problem, never throw; the engine's reader with a document or an
 * IllegalArgumentException; both quickly.
 */
class AllocationDocumentFuzzTest {
    /** A try's CPU time at most: {@link CpuBudget}, the thread's own, not the wall clock's. */
    private static final Duration PER_DOCUMENT = Duration.ofSeconds(1);

    private static final JsonNode SEED = HostileJson.seed("allocation-document", "valid-allocation.json");
    private static Path file;

    @BeforeContainer
    static void createFile() throws IOException {
        file = Files.createTempFile("allocation", ".json");
    }

    @AfterContainer
    static void deleteFile() throws IOException {
        Files.deleteIfExists(file);
    }

    @Example
    void theCorpusIsReadOrRefused() {
        HostileJson.corpusBytes("allocation-document").forEach(AllocationDocumentFuzzTest::readOrRefuse);
    }

    @Example
    void theSeedIsAnAllocation() {
        assertThat(agent(SEED.toString()).allocation()).isNotNull();
        assertThat(engine(SEED.toString())).isTrue();
    }

    @Property
    void mutatedDocuments(@ForAll("mutated") String text) {
        agent(text);
        engine(text);
    }

    @Property(tries = 50) // each try writes and reads a file
    void mutatedFilesCutShortOrNotUtf8(@ForAll("damaged") byte[] bytes) {
        readOrRefuse(bytes);
    }

    @Property
    void anyJson(@ForAll("json") JsonNode document) {
        agent(document.toString());
        engine(document.toString());
    }

    @Provide
    Arbitrary<String> mutated() {
        return HostileJson.mutatedFrom(SEED);
    }

    @Provide
    Arbitrary<byte[]> damaged() {
        return HostileJson.damagedFrom(SEED, 3000);
    }

    @Provide
    Arbitrary<JsonNode> json() {
        return HostileJson.values(4);
    }

    private static void readOrRefuse(byte[] bytes) {
        try {
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Outcome outcome = CpuBudget.within(PER_DOCUMENT, () -> AllocationLoaderFuzzAccess.read(file));
        assertOneOf(outcome);
        engine(new String(bytes, StandardCharsets.UTF_8));
    }

    private static Outcome agent(String text) {
        Outcome outcome = CpuBudget.within(PER_DOCUMENT, () -> AllocationLoaderFuzzAccess.parse(text));
        assertOneOf(outcome);
        return outcome;
    }

    private static void assertOneOf(Outcome outcome) {
        assertThat(outcome.allocation() == null).isNotEqualTo(outcome.problem() == null);
        if (outcome.problem() != null) {
            assertThat(outcome.problem()).startsWith("the allocation file");
        }
    }

    /** True when the engine read a document, false when it refused it with an IllegalArgumentException. */
    private static boolean engine(String text) {
        try {
            assertThat(CpuBudget.within(PER_DOCUMENT, () -> AllocationJson.read(text)))
                    .isNotNull();
            return true;
        } catch (IllegalArgumentException refused) {
            return false;
        }
    }
}
