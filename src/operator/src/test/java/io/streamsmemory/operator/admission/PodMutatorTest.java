package io.streamsmemory.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.streamsmemory.operator.admission.PodMutator.Outcome;
import io.streamsmemory.operator.admission.PodMutator.Patched;
import io.streamsmemory.operator.admission.PodMutator.Skipped;
import io.streamsmemory.operator.admission.PodMutator.Unchanged;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The mutation rules and the certificate renewal rules, without an API server. */
class PodMutatorTest {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final List<String> FLAGS = List.of("-XX:ReservedCodeCacheSize=128m", "-XX:MaxMetaspaceSize=97m", "-Xss1m",
            "-XX:MaxDirectMemorySize=100504k", "-Djdk.nio.maxCachedBufferSize=262144", "-Xms999272k", "-Xmx999272k");
    static final PublishedAllocation ALLOCATION = new PublishedAllocation("h1", "r1", 2L << 30, FLAGS);
    final PodMutator mutator = new PodMutator(new WebhookSettings());

    private static JsonNode pod(String containerJson) throws Exception {
        return MAPPER.readTree("{\"metadata\":{\"labels\":{\"app\":\"a\"}},\"spec\":{\"containers\":[" + containerJson + "]}}");
    }

    private Outcome mutate(JsonNode pod) {
        return mutator.mutate(pod, new InjectionTarget(new ConfigMapBuilder().withNewMetadata().withName("w").endMetadata()
                .build(), null, "w-streams-memory", ALLOCATION));
    }

    @Test
    void aPodWithoutListsGetsThemCreatedAndTheUsersMallocArenaMaxWins() throws Exception {
        Outcome outcome = mutate(pod("{\"name\":\"app\",\"env\":[{\"name\":\"MALLOC_ARENA_MAX\",\"value\":\"4\"}]}"));
        assertThat(outcome).isInstanceOf(Patched.class);
        String patch = ((Patched) outcome).patch().toString();
        assertThat(patch).contains("{\"op\":\"add\",\"path\":\"/spec/initContainers\",\"value\":[{\"name\":\"streams-memory-agent\"")
                .contains("\"path\":\"/spec/volumes\",\"value\":[{\"name\":\"streams-memory-agent\"")
                .contains("\"path\":\"/spec/volumes/-\",\"value\":{\"name\":\"streams-memory-allocation\"")
                .contains("\"path\":\"/metadata/annotations\",\"value\":{\"streamsmemory.io/allocation-hash\":\"h1\"")
                .doesNotContain("\"MALLOC_ARENA_MAX\",\"value\":\"2\"");
        assertThat(patch).contains("{\"op\":\"add\",\"path\":\"/spec/containers/0/env/-\",\"value\":{\"name\":\"JAVA_TOOL_OPTIONS\","
                + "\"value\":\"-javaagent:/streams-memory-agent/streams-memory-agent.jar " + String.join(" ", FLAGS) + "\"}}");
    }

    @Test
    void theUsersHeapSettingKeepsTheAllocationsHeapOut() {
        List<String> warnings = new ArrayList<>();
        String value = mutator.javaToolOptions("-XX:MaxRAMPercentage=70 -Xss2m", FLAGS, warnings);
        assertThat(value).startsWith("-XX:MaxRAMPercentage=70 -Xss2m -javaagent:").doesNotContain("-Xmx").doesNotContain("-Xms")
                .doesNotContain("-Xss1m").contains("-XX:MaxMetaspaceSize=97m");
        assertThat(warnings).hasSize(3);
    }

    @Test
    void aMemoryLimitBelowTheAllocationInjectsNothing() throws Exception {
        Outcome outcome = mutate(pod("{\"name\":\"app\",\"resources\":{\"limits\":{\"memory\":\"1Gi\"}}}"));
        assertThat(outcome).isInstanceOf(Skipped.class);
        assertThat(((Skipped) outcome).reason()).contains("memory limit of 1 GiB");
        assertThat(((Skipped) outcome).patch().toString()).contains("streamsmemory.io/injection-skipped")
                .doesNotContain("initContainers");
    }

    @Test
    void anInjectedPodIsLeftAlone() throws Exception {
        JsonNode pod = MAPPER.readTree("{\"metadata\":{\"annotations\":{\"streamsmemory.io/allocation-hash\":\"h0\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"app\"}]}}");
        assertThat(mutate(pod)).isInstanceOf(Unchanged.class);
    }

    @Test
    void aBrokenReviewIsAnsweredAllowed() throws Exception {
        PodAdmission admission = new PodAdmission(null, mutator, null);
        String review = "{\"request\":{\"uid\":\"u1\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"},\"object\":{}}}";
        JsonNode answer = MAPPER.readTree(admission.review(review.getBytes(StandardCharsets.UTF_8)));
        assertThat(answer.path("response").path("uid").asText()).isEqualTo("u1");
        assertThat(answer.path("response").path("allowed").asBoolean()).isTrue();
        assertThat(answer.path("response").has("patch")).isFalse();
        assertThat(admission.errors.sum()).isEqualTo(1);
    }

    @Test
    void aNewCaGoesIntoTheBundleBeforeTheServingCertificateMovesToIt() {
        WebhookSettings settings = new WebhookSettings().caValidity(Duration.ofDays(10), Duration.ofDays(3))
                .certificateValidity(Duration.ofDays(20), Duration.ofDays(1));
        CertificateManager manager = new CertificateManager(null, settings, Clock.systemUTC());
        Instant start = Instant.parse("2030-01-01T00:00:00Z");
        CertificateManager.State first = manager.renew(null, start, null);
        assertThat(manager.renew(first, start.plus(Duration.ofDays(1)), null)).isSameAs(first);

        // Eight days on, the CA is due: a new one, the old one kept in the bundle, the serving cert kept for now.
        Instant later = start.plus(Duration.ofDays(8));
        CertificateManager.State rotated = manager.renew(first, later, configurationTrusting(first));
        assertThat(rotated.ca().cert()).isNotEqualTo(first.ca().cert());
        assertThat(rotated.previousCas()).containsExactly(first.ca().cert());
        assertThat(rotated.serving()).isEqualTo(first.serving());
        // Once the API server's configuration holds the new CA, the serving certificate moves to it.
        CertificateManager.State moved = manager.renew(rotated, later, configurationTrusting(rotated));
        assertThat(Certificates.signedBy(moved.serving().cert(), rotated.ca().cert())).isTrue();
        // The old CA leaves the bundle when it expires.
        assertThat(manager.renew(moved, start.plus(Duration.ofDays(11)), configurationTrusting(moved)).previousCas()).isEmpty();
    }

    @Test
    void whatTheSecretHoldsReadsBackTheSame() {
        CertificateManager manager = new CertificateManager(null, new WebhookSettings(), Clock.systemUTC());
        CertificateManager.State state = manager.renew(null, Instant.now(), null);
        CertificateManager.State read = manager.parse(new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withData(CertificateManager.secretData(state)).build());
        assertThat(read).isNotNull();
        assertThat(read.ca().cert()).isEqualTo(state.ca().cert());
        assertThat(read.serving().cert()).isEqualTo(state.serving().cert());
        assertThat(manager.renew(read, Instant.now(), null)).isSameAs(read);
    }

    private static MutatingWebhookConfiguration configurationTrusting(CertificateManager.State state) {
        return new MutatingWebhookConfigurationBuilder().addNewWebhook().withName("w").withNewClientConfig()
                .withCaBundle(Base64.getEncoder().encodeToString(state.bundlePem().getBytes(StandardCharsets.UTF_8)))
                .endClientConfig().endWebhook().build();
    }
}
