package io.streamsmemory.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.streamsmemory.operator.admission.InjectionDecision.Decision;
import io.streamsmemory.operator.admission.InjectionDecision.Inject;
import io.streamsmemory.operator.admission.InjectionDecision.Leave;
import io.streamsmemory.operator.admission.InjectionDecision.Skip;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Deciding, patching and merging JVM options, without an API server (WebhookDoNoHarmTest has them on one). */
class PodInjectionTest {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final List<String> FLAGS = List.of(
            "-XX:ReservedCodeCacheSize=128m",
            "-XX:MaxMetaspaceSize=97m",
            "-Xss1m",
            "-XX:MaxDirectMemorySize=100504k",
            "-Djdk.nio.maxCachedBufferSize=262144",
            "-Xms999272k",
            "-Xmx999272k");
    static final PublishedAllocation ALLOCATION = new PublishedAllocation("h1", "r1", 2L << 30, 999272L << 10, FLAGS);
    final WebhookSettings settings = new WebhookSettings();
    final InjectionDecision decider = new InjectionDecision(settings);

    private static JsonNode pod(String containersJson) throws Exception {
        return MAPPER.readTree(
                "{\"metadata\":{\"labels\":{\"app\":\"a\"}},\"spec\":{\"containers\":[" + containersJson + "]}}");
    }

    private static InjectionTarget target(String container) {
        return new InjectionTarget(
                new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("w")
                        .endMetadata()
                        .build(),
                container,
                "w-streams-memory",
                ALLOCATION);
    }

    /** The ConfigMaps of the pod's namespace an envFrom may name. */
    final Map<String, ConfigMap> configMaps = new HashMap<>();

    private Decision decide(JsonNode pod) {
        return decider.decide(pod, target("app"), List.of(), configMaps::get);
    }

    @Test
    void aPodWithoutListsGetsThemCreatedAndTheUsersMallocArenaMaxWins() throws Exception {
        JsonNode pod = pod("{\"name\":\"app\",\"env\":[{\"name\":\"MALLOC_ARENA_MAX\",\"value\":\"4\"}]}");
        Decision decision = decide(pod);
        assertThat(decision).isInstanceOf(Inject.class);
        String patch = new PodPatch(settings)
                .inject(pod, (Inject) decision, target("app"), new ArrayList<>())
                .toString();
        assertThat(patch)
                .contains(
                        "{\"op\":\"add\",\"path\":\"/spec/initContainers\",\"value\":[{\"name\":\"streams-memory-agent\"")
                .contains("\"path\":\"/spec/volumes\",\"value\":[{\"name\":\"streams-memory-agent\"")
                .contains("\"path\":\"/spec/volumes/-\",\"value\":{\"name\":\"streams-memory-allocation\"")
                .contains("\"path\":\"/metadata/annotations\",\"value\":{\"streamsmemory.io/allocation-hash\":\"h1\"")
                .doesNotContain("\"MALLOC_ARENA_MAX\",\"value\":\"2\"")
                .doesNotContain("imagePullSecrets");
        assertThat(patch)
                .contains(
                        "{\"op\":\"add\",\"path\":\"/spec/containers/0/env/-\",\"value\":{\"name\":\"JAVA_TOOL_OPTIONS\","
                                + "\"value\":\"-javaagent:/streams-memory-agent/streams-memory-agent.jar "
                                + String.join(" ", FLAGS) + "\"}}");
    }

    @Test
    void theMemoryReportPortIsSetUnlessTheUserSetsItOrAContainerDeclaresIt() throws Exception {
        JsonNode plain = pod("{\"name\":\"app\"}");
        assertThat(patch(plain))
                .contains("{\"name\":\"STREAMS_MEMORY_REPORT_PORT\",\"value\":\"9471\"}")
                .contains(
                        "{\"op\":\"add\",\"path\":\"/metadata/labels/streamsmemory.io~1injected\",\"value\":\"true\"}");
        JsonNode usersOwn =
                pod("{\"name\":\"app\",\"env\":[{\"name\":\"STREAMS_MEMORY_REPORT_PORT\",\"value\":\"1234\"}]}");
        assertThat(patch(usersOwn)).doesNotContain("9471");
        JsonNode taken = pod("{\"name\":\"metrics\",\"ports\":[{\"containerPort\":9471}]},{\"name\":\"app\"}");
        assertThat(patch(taken)).doesNotContain("STREAMS_MEMORY_REPORT_PORT");
        settings.reportPort(null);
        assertThat(patch(plain)).doesNotContain("STREAMS_MEMORY_REPORT_PORT");
    }

    private String patch(JsonNode pod) {
        Decision decision = decide(pod);
        assertThat(decision).isInstanceOf(Inject.class);
        return new PodPatch(settings)
                .inject(pod, (Inject) decision, target("app"), new ArrayList<>())
                .toString();
    }

    @Test
    void theUsersHeapSettingKeepsTheAllocationsHeapOut() {
        List<String> warnings = new ArrayList<>();
        String value =
                JavaToolOptions.merge("-XX:MaxRAMPercentage=70 -Xss2m", settings.agentJarInPod(), FLAGS, warnings);
        assertThat(value)
                .startsWith("-XX:MaxRAMPercentage=70 -Xss2m -javaagent:")
                .doesNotContain("-Xmx")
                .doesNotContain("-Xms")
                .doesNotContain("-Xss1m")
                .contains("-XX:MaxMetaspaceSize=97m");
        assertThat(warnings).hasSize(3);
    }

    @Test
    void aMemoryLimitBelowTheAllocationInjectsNothing() throws Exception {
        Decision decision = decide(pod("{\"name\":\"app\",\"resources\":{\"limits\":{\"memory\":\"1Gi\"}}}"));
        assertThat(decision)
                .isInstanceOfSatisfying(Skip.class, s -> assertThat(s.reason()).contains("memory limit of 1 GiB"));
        assertThat(PodPatch.skip(pod("{\"name\":\"app\"}"), "why").toString())
                .contains("streamsmemory.io/injection-skipped")
                .doesNotContain("initContainers");
    }

    @Test
    void anInjectedPodIsLeftAlone() throws Exception {
        JsonNode pod = MAPPER.readTree("{\"metadata\":{\"annotations\":{\"streamsmemory.io/allocation-hash\":\"h0\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"app\"}]}}");
        assertThat(decide(pod)).isInstanceOf(Leave.class);
    }

    @Test
    void anEphemeralContainerNamedLikeTheInitContainerInjectsNothing() throws Exception {
        // The API server refuses ephemeral containers on CREATE today; the webhook does not rely on that.
        JsonNode pod = MAPPER.readTree("{\"spec\":{\"containers\":[{\"name\":\"app\"}],"
                + "\"ephemeralContainers\":[{\"name\":\"streams-memory-agent\"}]}}");
        assertThat(decide(pod))
                .isInstanceOfSatisfying(Skip.class, s -> assertThat(s.reason()).contains("(in ephemeralContainers)"));
    }

    @Test
    void aTargetNotInThePodInjectsNothingInsteadOfTakingTheFirstContainer() throws Exception {
        JsonNode pod = pod("{\"name\":\"istio-proxy\"},{\"name\":\"app\"}");
        assertThat(decider.decide(pod, target("streams"), List.of(), configMaps::get))
                .isInstanceOf(Skip.class);
        assertThat(decider.decide(pod, target(null), List.of(), configMaps::get))
                .isInstanceOf(Skip.class);
        assertThat(decider.decide(pod, target("app"), List.of(), configMaps::get))
                .isEqualTo(new Inject(1, "app", -1));
    }

    @Test
    void anEnvFromConfigMapIsReadSoOnlyOneThatSetsJavaToolOptionsStopsTheInjection() throws Exception {
        String app = "{\"name\":\"app\",\"envFrom\":[{\"configMapRef\":{\"name\":\"app-env\"}}]}";
        configMaps.put(
                "app-env",
                new ConfigMapBuilder()
                        .addToData("BOOTSTRAP_SERVERS", "kafka:9092")
                        .build());
        assertThat(decide(pod(app))).isEqualTo(new Inject(0, "app", -1));
        // A variable the webhook would add that the envFrom sets stays the user's.
        configMaps.put(
                "app-env",
                new ConfigMapBuilder().addToData("MALLOC_ARENA_MAX", "4").build());
        assertThat(decide(pod(app))).isEqualTo(new Inject(0, "app", -1, Set.of("MALLOC_ARENA_MAX")));

        configMaps.put(
                "app-env",
                new ConfigMapBuilder().addToData("JAVA_TOOL_OPTIONS", "-Dx=1").build());
        assertThat(decide(pod(app)))
                .isInstanceOfSatisfying(
                        Skip.class,
                        skip -> assertThat(skip.reason())
                                .contains("may take JAVA_TOOL_OPTIONS from ConfigMap app-env (envFrom)"));
        // The prefix and the key make the name together.
        configMaps.put(
                "tool",
                new ConfigMapBuilder().addToData("TOOL_OPTIONS", "-Dx=1").build());
        assertThat(decide(pod("{\"name\":\"app\",\"envFrom\":[{\"prefix\":\"JAVA_\",\"configMapRef\":{\"name\":"
                        + "\"tool\"}}]}")))
                .isInstanceOf(Skip.class);
        // Missing: only an optional one can be trusted to stay without the variable until the pod starts.
        assertThat(decide(pod("{\"name\":\"app\",\"envFrom\":[{\"configMapRef\":{\"name\":\"later\"}}]}")))
                .isInstanceOfSatisfying(
                        Skip.class, skip -> assertThat(skip.reason()).contains("does not exist yet"));
        assertThat(decide(pod("{\"name\":\"app\",\"envFrom\":[{\"configMapRef\":{\"name\":\"later\","
                        + "\"optional\":true}}]}")))
                .isInstanceOf(Inject.class);
        // A read that fails counts as "may set it".
        Decision unreadable = decider.decide(pod(app), target("app"), List.of(), name -> {
            throw new TimeoutException();
        });
        assertThat(unreadable)
                .isInstanceOfSatisfying(
                        Skip.class, skip -> assertThat(skip.reason()).contains("could not be read (TimeoutException)"));
    }

    @Test
    void javaToolOptionsFromValueFromInAnyEntryOrPossiblyFromEnvFromInjectsNothing() throws Exception {
        String valueFrom =
                "{\"name\":\"JAVA_TOOL_OPTIONS\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":\"c\",\"key\":\"k\"}}}";
        String literal = "{\"name\":\"JAVA_TOOL_OPTIONS\",\"value\":\"-Da=1\"}";
        assertThat(decide(pod("{\"name\":\"app\",\"env\":[" + literal + "," + valueFrom + "]}")))
                .isInstanceOf(Skip.class);
        assertThat(decide(pod("{\"name\":\"app\",\"env\":[" + valueFrom + "," + literal + "]}")))
                .isInstanceOf(Skip.class);
        assertThat(decide(pod("{\"name\":\"app\",\"envFrom\":[{\"configMapRef\":{\"name\":\"c\"}}]}")))
                .isInstanceOf(Skip.class);
        assertThat(decide(
                        pod("{\"name\":\"app\",\"envFrom\":[{\"prefix\":\"JAVA_\",\"secretRef\":{\"name\":\"s\"}}]}")))
                .isInstanceOf(Skip.class);
        // A prefix that cannot make the name, or a literal entry (env wins over envFrom), leaves nothing to lose.
        assertThat(decide(pod(
                        "{\"name\":\"app\",\"envFrom\":[{\"prefix\":\"APP_\",\"configMapRef\":{\"name\":\"c\"}}]}")))
                .isInstanceOf(Inject.class);
        // (ConfigMap c does not exist yet, so it may bring the other two variables: they stay the user's.)
        assertThat(decide(pod("{\"name\":\"app\",\"env\":[" + literal + "," + literal
                        + "],\"envFrom\":[{\"configMapRef\":" + "{\"name\":\"c\"}}]}")))
                .isEqualTo(new Inject(0, "app", 1, Set.of("STREAMS_MEMORY_ALLOCATION", "MALLOC_ARENA_MAX")));
    }

    @Test
    void theInitContainerIsCheckedAgainstTheNamespacesLimitRanges() {
        LimitRange ratio = limitRange("ratio", "maxLimitRequestRatio", "cpu", "2");
        LimitRange min = limitRange("min", "min", "memory", "64Mi");
        assertThat(LimitRangeFit.violation(settings, List.of(ratio)))
                .contains("LimitRange ratio (cpu limit/request 100m/10m");
        assertThat(LimitRangeFit.violation(settings, List.of(min)))
                .contains("LimitRange min (memory request 32Mi below min 64Mi)");
        WebhookSettings fitting = new WebhookSettings().initResources("50m", "50m", "64Mi", "64Mi");
        assertThat(LimitRangeFit.violation(fitting, List.of(ratio, min, limitRange("max", "max", "cpu", "50m"))))
                .isNull();
    }

    @Test
    void theInitContainerLeavesOutTheResourcesAndUserSettingsSayNone() throws Exception {
        WebhookSettings openShift = new WebhookSettings()
                .runAsUser(null)
                .initResources("10m", null, null, "32Mi")
                .imagePullSecrets(List.of("agent-registry"));
        JsonNode pod = pod("{\"name\":\"app\"}");
        String patch = new PodPatch(openShift)
                .inject(pod, new Inject(0, "app", -1), target("app"), new ArrayList<>())
                .toString();
        assertThat(patch)
                .contains("\"resources\":{\"requests\":{\"cpu\":\"10m\"},\"limits\":{\"memory\":\"32Mi\"}}")
                .doesNotContain("runAsUser")
                .contains("\"runAsNonRoot\":true")
                .contains(
                        "{\"op\":\"add\",\"path\":\"/spec/imagePullSecrets\",\"value\":[{\"name\":\"agent-registry\"}]}");
    }

    @Test
    void anAllocationWithAFlagTheEngineDoesNotEmitIsRefused() {
        String document = "{\"hash\":\"h\",\"memoryBytes\":2147483648,\"jvmOptions\":[%s]}";
        assertThat(PublishedAllocation.parse(String.format(document, "\"-Xmx1g\",\"-Xss1m\""))
                        .heapBytes())
                .isEqualTo(1L << 30);
        for (String bad : List.of(
                "\"-Xmx1g\",\"-XX:OnError=sh -c x\"",
                "\"-Xmx1g\",\"-javaagent:/x.jar\"",
                "\"-Xmx1g -XX:+HeapDumpOnOutOfMemoryError\"",
                "\"-Xmx1g\",\"-Xmx2g\"",
                "\"-Xmx3g\"",
                "\"-Xmx0\"",
                "\"-Xss1m\"",
                "\"-Djdk.nio.maxCachedBufferSize=1k\"")) {
            assertThatThrownBy(() -> PublishedAllocation.parse(String.format(document, bad)))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aBrokenReviewIsAnsweredAllowed() throws Exception {
        PodAdmission admission = new PodAdmission(null, settings, null);
        String review =
                "{\"request\":{\"uid\":\"u1\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"},\"object\":{}}}";
        JsonNode answer = MAPPER.readTree(admission.review(review.getBytes(StandardCharsets.UTF_8)));
        assertThat(answer.path("response").path("uid").asText()).isEqualTo("u1");
        assertThat(answer.path("response").path("allowed").asBoolean()).isTrue();
        assertThat(answer.path("response").has("patch")).isFalse();
        assertThat(admission.errors.sum()).isEqualTo(1);
    }

    /** A pod is make verify-install's check, a ConfigMap the operator's own (WebhookReachCheck). */
    @ParameterizedTest
    @ValueSource(strings = {"Pod", "ConfigMap"})
    void theInstallCheckIsAnsweredOnlyInADryRun(String kind) throws Exception {
        PodAdmission admission = new PodAdmission(WorkloadIndex.over(null), settings, null);
        String object = "{\"metadata\":{\"annotations\":{\"streamsmemory.io/install-check\":\"asked\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"check\"}]}}";
        String review = "{\"request\":{\"uid\":\"u2\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"" + kind + "\"},"
                + "\"namespace\":\"apps\",\"dryRun\":%s,\"object\":" + object + "}}";
        JsonNode dryRun =
                MAPPER.readTree(admission.review(String.format(review, "true").getBytes(StandardCharsets.UTF_8)));
        String patch = new String(
                java.util.Base64.getDecoder()
                        .decode(dryRun.path("response").path("patch").asText()),
                StandardCharsets.UTF_8);
        assertThat(patch)
                .startsWith("[{\"op\":\"add\",\"path\":\"/metadata/annotations/streamsmemory.io~1install-check\","
                        + "\"value\":\"answered by ");
        JsonNode real =
                MAPPER.readTree(admission.review(String.format(review, "false").getBytes(StandardCharsets.UTF_8)));
        assertThat(real.path("response").path("allowed").asBoolean()).isTrue();
        assertThat(real.path("response").has("patch")).isFalse();
        assertThat(admission.errors.sum()).isZero();
    }

    private static LimitRange limitRange(String name, String field, String resource, String value) {
        LimitRangeBuilder builder =
                new LimitRangeBuilder().withNewMetadata().withName(name).endMetadata();
        var item = builder.withNewSpec().addNewLimit().withType("Container");
        switch (field) {
            case "max" -> item.addToMax(resource, new Quantity(value));
            case "min" -> item.addToMin(resource, new Quantity(value));
            default -> item.addToMaxLimitRequestRatio(resource, new Quantity(value));
        }
        return item.endLimit().endSpec().build();
    }
}
