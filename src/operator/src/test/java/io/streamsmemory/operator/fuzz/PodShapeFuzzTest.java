package io.streamsmemory.operator.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamsmemory.engine.fuzz.CpuBudget;
import io.streamsmemory.engine.fuzz.HostileJson;
import io.streamsmemory.operator.admission.AdmissionFuzzAccess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Fuzz target: the pod-shape logic behind the webhook, {@code InjectionDecision.decide} and {@code PodPatch.inject}
 * (and the skip patch), for a fixed valid target and any pod JSON. Mutating admission runs before the API server
 * validates the pod, so any shape the API server can decode may arrive. Both must decide (inject, skip or leave)
 * and write a patch without throwing, quickly.
 */
class PodShapeFuzzTest {
    /** A try's CPU time at most: {@link CpuBudget}, the thread's own, not the wall clock's. */
    private static final Duration PER_POD = Duration.ofSeconds(1);

    private static final JsonNode SEED = HostileJson.seed("pod-shape", "valid-pod.json");
    private final AdmissionFuzzAccess webhook = new AdmissionFuzzAccess();

    @Example
    void theCorpusIsDecidedAndPatched() {
        for (Path file : HostileJson.corpus("pod-shape")) {
            decideAndPatch(HostileJson.tree(new String(HostileJson.bytes(file), StandardCharsets.UTF_8)));
        }
    }

    @Example
    void theValidPodIsInjected() {
        JsonNode pod = SEED;
        assertThat(decideAndPatch(pod)).startsWith("[{\"op\":\"add\"");
    }

    @Property
    void mutatedPods(@ForAll("mutations") List<HostileJson.Mutation> mutations) {
        decideAndPatch(HostileJson.tree(HostileJson.mutated(SEED, mutations)));
    }

    @Property
    void anyJson(@ForAll("json") JsonNode pod) {
        decideAndPatch(pod);
    }

    @Provide
    Arbitrary<List<HostileJson.Mutation>> mutations() {
        // Without deep nesting: a tree is handed to this code, it never parses text (AdmissionReviewFuzzTest does).
        return HostileJson.mutations()
                .map(list -> list.stream()
                        .filter(m -> m.kind() != HostileJson.Mutation.Kind.NEST_DEEP)
                        .toList());
    }

    @Provide
    Arbitrary<JsonNode> json() {
        return HostileJson.values(5);
    }

    private String decideAndPatch(JsonNode pod) {
        return CpuBudget.within(PER_POD, () -> {
            List<String> warnings = new ArrayList<>();
            String result = webhook.decideAndPatch(pod, warnings);
            assertThat(webhook.skipPatch(pod, "why")).contains("streamsmemory.io");
            return result;
        });
    }
}
