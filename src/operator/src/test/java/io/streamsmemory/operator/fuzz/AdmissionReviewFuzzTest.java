package io.streamsmemory.operator.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamsmemory.engine.fuzz.CpuBudget;
import io.streamsmemory.engine.fuzz.HostileJson;
import io.streamsmemory.operator.admission.AdmissionFuzzAccess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Fuzz target: the webhook's {@code PodAdmission.review}, which reads whatever reaches its HTTPS port. For any body
 * it must answer within a second with a parseable AdmissionReview that allows the pod (fail-open), never throw.
 * The seed is a review of a pod of the index's opted-in Deployment, so mutations reach the pod-handling code.
 */
class AdmissionReviewFuzzTest {
    /** A try's CPU time at most: {@link CpuBudget}, the thread's own, not the wall clock's. */
    private static final Duration PER_REVIEW = Duration.ofSeconds(1);

    private static final JsonNode SEED = HostileJson.seed("admission-review", "valid-review.json");
    private final AdmissionFuzzAccess webhook = new AdmissionFuzzAccess();

    @Example
    void theCorpusIsAnsweredAllowed() {
        HostileJson.corpusBytes("admission-review").forEach(this::assertAllowed);
    }

    @Example
    void theSeedIsInjectedSoMutationsReachThePodCode() throws IOException {
        JsonNode response = assertAllowed(SEED.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(response.path("response").path("patch").asText()).isNotEmpty();
    }

    @Property
    void mutatedReviews(@ForAll("mutated") String review) {
        assertAllowed(review.getBytes(StandardCharsets.UTF_8));
    }

    @Property
    void mutatedReviewsCutShortOrNotUtf8(@ForAll("damaged") byte[] body) {
        assertAllowed(body);
    }

    @Property
    void anyJson(@ForAll("json") JsonNode body) {
        assertAllowed(body.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Property
    void anyBytes(@ForAll @Size(max = 2000) byte[] body) {
        assertAllowed(body);
    }

    @Property(tries = 20) // each try parses tens of thousands of nesting levels
    void deepNesting(@ForAll @IntRange(min = 900, max = 20_000) int depth, @ForAll boolean arrays) {
        String review = "{\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"},\"object\":"
                + HostileJson.nested(depth, arrays) + "}}";
        assertAllowed(review.getBytes(StandardCharsets.UTF_8));
    }

    @Provide
    Arbitrary<String> mutated() {
        return HostileJson.mutatedFrom(SEED);
    }

    @Provide
    Arbitrary<byte[]> damaged() {
        return HostileJson.damagedFrom(SEED, 4000);
    }

    @Provide
    Arbitrary<JsonNode> json() {
        return Arbitraries.oneOf(HostileJson.values(4), HostileJson.values(3).map(AdmissionReviewFuzzTest::asRequest));
    }

    /** A value as the request, or as the pod of a CREATE request, so more than the first lookup is reached. */
    private static JsonNode asRequest(JsonNode value) {
        JsonNode review = SEED.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) review.path("request")).set("object", value);
        return review;
    }

    /** Answered in time, with a parseable review allowing the pod, whose patch (if any) is a JSON array. */
    private JsonNode assertAllowed(byte[] body) {
        byte[] answer = CpuBudget.within(PER_REVIEW, () -> webhook.review(body));
        JsonNode review = HostileJson.tree(new String(answer, StandardCharsets.UTF_8));
        assertThat(review.path("kind").asText()).isEqualTo("AdmissionReview");
        assertThat(review.path("response").path("allowed").isBoolean()).isTrue();
        assertThat(review.path("response").path("allowed").asBoolean()).isTrue();
        String patch = review.path("response").path("patch").asText("");
        if (!patch.isEmpty()) {
            assertThat(HostileJson.tree(new String(Base64.getDecoder().decode(patch), StandardCharsets.UTF_8))
                            .isArray())
                    .isTrue();
        }
        return review;
    }
}
