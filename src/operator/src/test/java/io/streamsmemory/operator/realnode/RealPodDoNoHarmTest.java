package io.streamsmemory.operator.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.admission.DoNoHarm;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The do-no-harm cases that need a kubelet, on real pods of the real node: the webhook's skips (a name it would add,
 * JAVA_TOOL_OPTIONS from envFrom, a LimitRange its init container would break) leave pods that start and keep every
 * setting, and the cases only a real container shows: an application user other than the init container's, a
 * read-only root filesystem, an image with no shell and no cp, a JVM that never builds Kafka Streams, a container
 * kubelet restarts; and the JVM caps no plan can know before the pods report (issue 42): a memory-only policy on a
 * JVM larger than its defaults guess starts uncapped and is capped above what it uses once it reports, and a declared
 * class count far too low, which crash-loops the JVM, has its cap lifted and the pods run; and applications built in
 * Spring Boot and Quarkus, as images of their own (issue 46), bounded from inside their launchers' class loaders.
 * Each case creates its Deployment opted in (at 0 replicas until the allocation is published, then
 * 1), all at once, then checks each pod, scaling a case to 0 once checked; one case produces the orders all read; the
 * cases' lines go to target/do-no-harm/ with their real pods counted.
 */
@OnTheRealNode
@Order(2) // its place in the real-node lane (junit-platform.properties)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealPodDoNoHarmTest extends ChartOnTheRealNode {
    static final String NAMESPACE = "harm";
    static final String LIMITED = "harm-limited";
    static final Duration POD_START = Duration.ofMinutes(4);
    static final String AGENT_LOADED = "[streams-memory-agent] INFO streams-memory-agent ";
    static final String INERT = "[streams-memory-agent] INFO no KafkaStreams instance was built in this JVM";
    /** The frameworks' example applications, each an image of its own: Deployment name = image name's end. */
    static final List<String> FRAMEWORKS = List.of("spring-boot", "quarkus");
    /** The agent's setter, copied into the framework's class loader, set in the StreamsConfig the framework built. */
    static final String SETTER_IN_THE_FRAMEWORKS_LOADER = "set rocksdb.config.setter: unset -> "
            + "org.apache.kafka.streams.state.StreamsMemoryBoundedRocksDBConfigSetter";
    /** The user's own choice in each example's application.properties, as Kafka's consumer logs its configuration. */
    static final String USERS_MAX_POLL_RECORDS = "max.poll.records = 250";

    static final String MEMORY_ONLY = "memory-only";
    /** The one case whose application produces the orders (it runs until the class ends). */
    static final String PRODUCER = "clash";

    static final String TOO_FEW_CLASSES = "too-few-classes";
    static final long MiB = 1L << 20;

    /** Each case's pod template as the user wrote it, by Deployment name. */
    static final Map<String, Deployment> CASES = new LinkedHashMap<>();

    @BeforeAll
    static void startABrokerAndEveryCase() throws IOException, InterruptedException {
        startBroker(NAMESPACE, POD_START);
        Fixtures.namespace(client, LIMITED, Map.of());
        // The init container asks for 32Mi; a LimitRange with a 64Mi minimum per container would refuse its pod.
        client.resource(new LimitRangeBuilder()
                        .withNewMetadata()
                        .withName("at-least-64mi")
                        .withNamespace(LIMITED)
                        .endMetadata()
                        .withNewSpec()
                        .addNewLimit()
                        .withType("Container")
                        .addToMin("memory", new Quantity("64Mi"))
                        .endLimit()
                        .endSpec()
                        .build())
                .create();
        for (String namespace : List.of(NAMESPACE, LIMITED)) {
            client.resource(RealPods.policy(namespace, "orders", "1Gi", 1, 4)).create();
            RealPods.awaitWebhookSelects(client, OperatorChart.RELEASE, namespace, POD_START);
        }
        // Issue 42: a policy stating only the memory, and one declaring far fewer classes than its pods load.
        client.resource(memoryOnly(NAMESPACE, MEMORY_ONLY)).create();
        StreamsMemoryPolicy tooFew = memoryOnly(NAMESPACE, TOO_FEW_CLASSES);
        tooFew.getSpec().setJvm(new JvmSpec());
        tooFew.getSpec().getJvm().setLoadedClasses(2_000);
        client.resource(tooFew).create();
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("jvm-options")
                        .withNamespace(NAMESPACE)
                        .endMetadata()
                        .addToData("JAVA_TOOL_OPTIONS", "-Dorders.tls=on")
                        .build())
                .create();
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("app-env")
                        .withNamespace(NAMESPACE)
                        .endMetadata()
                        .addToData("BOOTSTRAP_SERVERS", bootstrapServers)
                        .build())
                .create();

        start(
                NAMESPACE,
                "clash",
                c -> {},
                spec -> spec.getVolumes()
                        .add(new VolumeBuilder()
                                .withName("streams-memory-allocation")
                                .withNewEmptyDir()
                                .endEmptyDir()
                                .build()));
        start(
                NAMESPACE,
                "options-from-env-from",
                c -> c.getEnvFrom()
                        .add(new EnvFromSourceBuilder()
                                .withNewConfigMapRef("jvm-options", false)
                                .build()),
                spec -> {});
        start(
                NAMESPACE,
                "app-env-from",
                c -> {
                    c.getEnv().removeIf(e -> e.getName().equals("BOOTSTRAP_SERVERS"));
                    c.getEnvFrom()
                            .add(new EnvFromSourceBuilder()
                                    .withNewConfigMapRef("app-env", false)
                                    .build());
                },
                spec -> {});
        start(LIMITED, "limited", c -> {}, spec -> {});
        // Not the init container's 65532, no supplementary group, read-only root: nothing root-owned is readable.
        start(NAMESPACE, "other-user", c -> {}, spec -> {
            PodSecurityContext context = spec.getSecurityContext();
            context.setRunAsUser(12345L);
            context.setRunAsGroup(12345L);
        });
        start(
                NAMESPACE,
                "no-streams",
                c -> {
                    c.setCommand(List.of("java", "-cp", "/app/*:/app/lib/*", "io.streamsmemory.examples.NoStreamsJvm"));
                    c.getEnv().add(new EnvVar("STREAMS_MEMORY_INERT_NOTICE_SECONDS", "10", null));
                },
                spec -> {});
        // A larger application's JVM: 25,000 more classes (~110 MiB of metaspace, past the 97 MiB a plan for 15,000
        // classes caps) and 64 MiB of direct buffers (past the ~40 MiB of direct memory a 1 GiB plan caps).
        start(
                NAMESPACE,
                MEMORY_ONLY,
                MEMORY_ONLY,
                c -> c.getEnv()
                        .addAll(List.of(
                                new EnvVar("EXTRA_CLASSES", "25000", null), new EnvVar("DIRECT_MIB", "64", null))),
                spec -> {});
        // 2,000 declared classes cap the metaspace at 25 MiB: the JVM fails on OutOfMemoryError: Metaspace at start.
        start(
                NAMESPACE,
                TOO_FEW_CLASSES,
                TOO_FEW_CLASSES,
                c -> c.getEnv().add(new EnvVar("EXTRA_CLASSES", "10000", null)),
                spec -> {});
        // Nothing answers on 9999: kubelet kills the container 20 s after it starts, and again after each restart.
        start(
                NAMESPACE,
                "probed",
                c -> c.setLivenessProbe(new ProbeBuilder()
                        .withNewHttpGet()
                        .withPort(new IntOrString(9999))
                        .withPath("/")
                        .endHttpGet()
                        .withInitialDelaySeconds(20)
                        .withPeriodSeconds(5)
                        .withFailureThreshold(1)
                        .build()),
                spec -> {});
        // Issue 46: applications built in a framework, as users ship them (examples/spring-boot-app and
        // examples/quarkus-app, FROM the project's JRE: no shell, user 65532, pushed to the registry), whose launcher
        // loads Kafka Streams and RocksJava in a class loader of its own, and whose settings are in the image's
        // application.properties.
        for (String framework : FRAMEWORKS) {
            String image = RealPods.pushFrameworkImage("example-" + framework);
            start(NAMESPACE, framework, c -> c.setImage(image), spec -> {});
        }
        // Every case created at 0 replicas; each scaled to 1 once the operator published its allocation.
        for (Deployment app : CASES.values()) {
            RealPods.scaleOncePublished(client, app, 1, POD_START);
        }
    }

    @Test
    void podsTheWebhookSkipsStartWithEverySettingAndSayWhy(TestInfo test) {
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod clash = running(harm, NAMESPACE, "clash");
        Pod options = running(harm, NAMESPACE, "options-from-env-from");
        Pod limited = running(harm, LIMITED, "limited");
        assertThat(skipped(clash)).contains("already has a volume named streams-memory-allocation");
        assertThat(skipped(options)).contains("may take JAVA_TOOL_OPTIONS from ConfigMap jvm-options (envFrom)");
        assertThat(skipped(limited)).contains("would break LimitRange at-least-64mi");
        // The user's JVM options, from the envFrom the webhook left alone, are the ones the JVM picked up.
        assertThat(RealPods.awaitLog(client, options, RealPods.APP_CONTAINER, "Picked up JAVA_TOOL_OPTIONS", POD_START))
                .contains("Picked up JAVA_TOOL_OPTIONS: -Dorders.tls=on")
                .doesNotContain("streams-memory-agent");
        harm.write(4, getClass(), test.getTestMethod().orElseThrow().getName());
        done("options-from-env-from");
        done(LIMITED, "limited");
    }

    /** Second and third: the two checks of the app-env-from case, which is then scaled to 0. */
    @Test
    @Order(2)
    void anInjectedPodReadsItsApplicationsSettingsFromEnvFrom(TestInfo test) {
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod pod = running(harm, NAMESPACE, "app-env-from");
        assertThat(pod.getMetadata().getAnnotations()).containsKey(MetadataKeys.ALLOCATION_HASH);
        assertThat(RealPods.awaitLog(client, pod, RealPods.APP_CONTAINER, "RUNNING: application.id", POD_START))
                .contains(AGENT_LOADED);
        harm.write(6, getClass(), test.getTestMethod().orElseThrow().getName());
    }

    @Test
    void theAgentLoadsForAnotherUserThanTheInitContainersWithARootFilesystemItCannotWrite(TestInfo test) {
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod pod = running(harm, NAMESPACE, "other-user");
        assertThat(pod.getSpec().getInitContainers().get(0).getSecurityContext().getRunAsUser())
                .isEqualTo(65532L);
        assertThat(pod.getSpec().getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem())
                .isTrue();
        RealPods.awaitLog(client, pod, RealPods.APP_CONTAINER, AGENT_LOADED, POD_START);
        harm.write(9, getClass(), test.getTestMethod().orElseThrow().getName());
        done("other-user");
    }

    @Test
    @Order(3)
    void injectionWorksInAnImageWithNoShellAndNoCp(TestInfo test) throws IOException {
        // The example image is FROM scratch with a jlink'd JRE: a container asking it for sh or cp cannot start.
        for (String program : List.of("sh", "cp")) {
            Pod probe = RealPods.exampleProgram(NAMESPACE, "image-has-no-" + program, "unused", Map.of());
            probe.getSpec().getContainers().get(0).setCommand(List.of(program, "--help"));
            client.resource(probe).create();
            await().atMost(POD_START)
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> startFailure(probe).isPresent());
            assertThat(startFailure(probe).orElseThrow()).contains("executable file not found");
        }
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod pod = running(harm, NAMESPACE, "app-env-from");
        assertThat(RealPods.initContainerReason(pod)).isEqualTo("Completed");
        RealPods.awaitLog(client, pod, RealPods.APP_CONTAINER, AGENT_LOADED, POD_START);
        harm.write(10, getClass(), test.getTestMethod().orElseThrow().getName());
        done("app-env-from");
    }

    @Test
    void aJvmThatNeverBuildsKafkaStreamsKeepsRunningAndTheAgentSaysSoOnce(TestInfo test) throws InterruptedException {
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod pod = running(harm, NAMESPACE, "no-streams");
        String log = RealPods.awaitLog(client, pod, RealPods.APP_CONTAINER, INERT, POD_START);
        assertThat(log).contains(AGENT_LOADED);
        // Past another grace period: still said once.
        RealPods.awaitLineAged(client, pod, RealPods.APP_CONTAINER, INERT, Duration.ofSeconds(15));
        log = RealPods.logOf(client, pod, RealPods.APP_CONTAINER);
        assertThat(log.lines().filter(l -> l.startsWith(INERT))).hasSize(1);
        assertThat(log).doesNotContain("WARN");
        assertThat(restarts(NAMESPACE, "no-streams")).isZero();
        harm.write(11, getClass(), test.getTestMethod().orElseThrow().getName());
        done("no-streams");
    }

    /**
     * First: kubelet restarts the probed container forever, each time after a longer back-off (10 s, 20, 40, 80,
     * 160...), and the test waits for it to run again; run last, it waited 83 s for a back-off (run W14).
     */
    @Test
    @Order(1)
    void aContainerKubeletRestartsComesBackWithTheAgentAndTheSameAllocation(TestInfo test) {
        // The container kubelet killed must have got as far as its agent's line. Every case's JVM starts at once on
        // the node's two cores, so the first container may be killed 20 s in before its agent printed (CI's stop 59):
        // then the comparison waits for the next kill, which comes after a back-off of 10 s on a quieter node.
        String before = agentLine(await().atMost(POD_START)
                .pollInterval(Duration.ofSeconds(2))
                .ignoreExceptions()
                .until(() -> killedContainerLog(NAMESPACE, "probed"), log -> log.contains(AGENT_LOADED)));
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod pod = running(harm, NAMESPACE, "probed");
        String now = agentLine(RealPods.awaitLog(client, pod, RealPods.APP_CONTAINER, AGENT_LOADED, POD_START));
        assertThat(pod.getStatus().getContainerStatuses().get(0).getLastState().getTerminated())
                .isNotNull();
        // The plan's hash also covers its JVM options, which the operator may learn between the two starts (a
        // metaspace cap from the first report): the restarted agent reads the allocation published now and applies
        // the same Kafka Streams and RocksDB settings.
        assertThat(withoutHash(now))
                .as("the restarted container's agent line (the settings it applied)")
                .isEqualTo(withoutHash(before));
        assertThat(hashOf(now)).isIn(hashOf(before), published("probed").hash());
        harm.write(12, getClass(), test.getTestMethod().orElseThrow().getName());
        done("probed");
    }

    @Test
    void aMemoryOnlyPolicySetsNoCapItCannotKnowUntilThePodsReportThenCapsAboveWhatTheyUse(TestInfo test)
            throws Exception {
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod first = running(harm, NAMESPACE, MEMORY_ONLY);
        // Before any report the plan sets neither cap: this JVM holds more than either default guess.
        assertThat(javaToolOptions(first))
                .contains("-javaagent:")
                .doesNotContain("-XX:MaxMetaspaceSize")
                .doesNotContain("-XX:MaxDirectMemorySize");
        RealPods.awaitLog(client, first, RealPods.APP_CONTAINER, "RUNNING: application.id", POD_START);

        // Once its Kafka Streams runs and reports, the learned plan caps both, above what the JVM holds.
        await().atMost(POD_START)
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> cap(published(MEMORY_ONLY), "-XX:MaxMetaspaceSize=") != null
                        && cap(published(MEMORY_ONLY), "-XX:MaxDirectMemorySize=") != null);
        AllocationDocument learned = published(MEMORY_ONLY);
        JsonNode jvm = agentReport(first).path("jvm");
        long metaspace = Math.max(
                jvm.path("metaspacePeakCommittedBytes").asLong(),
                jvm.path("metaspaceCommittedBytes").asLong());
        long direct = jvm.path("directUsedBytes").asLong();
        assertThat(metaspace).as("the JVM's metaspace, the extra classes in it").isGreaterThan(110 * MiB);
        assertThat(direct).as("the JVM's direct buffers").isGreaterThanOrEqualTo(64 * MiB);
        assertThat(cap(learned, "-XX:MaxMetaspaceSize=")).isGreaterThan(metaspace + metaspace / 5);
        assertThat(cap(learned, "-XX:MaxDirectMemorySize=")).isGreaterThan(direct + direct / 5);
        WorkloadAllocationStatus row = RealPods.statusRow(client, NAMESPACE, MEMORY_ONLY, MEMORY_ONLY);
        assertThat(row.getJvmCapsAwaitingReport()).isNull();
        assertThat(row.getJvmCapsLifted()).isNull();

        // A pod that starts now (a node drained, say) gets the learned caps and runs with them.
        client.pods().resource(first).withGracePeriod(0).delete();
        await().atMost(POD_START)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> runningPod(NAMESPACE, MEMORY_ONLY)
                        .filter(p -> !p.getMetadata()
                                .getUid()
                                .equals(first.getMetadata().getUid()))
                        .isPresent());
        // The plan may have learned more since (the first pod's JVM kept loading): the caps the new pod got are
        // those of the plan published when it was admitted, each still above what the first JVM held.
        Pod capped = running(harm, NAMESPACE, MEMORY_ONLY);
        List<String> cappedOptions = List.of(javaToolOptions(capped).split(" "));
        assertThat(cap(cappedOptions, "-XX:MaxMetaspaceSize=")).isGreaterThan(metaspace + metaspace / 5);
        assertThat(cap(cappedOptions, "-XX:MaxDirectMemorySize=")).isGreaterThan(direct + direct / 5);
        RealPods.awaitLog(client, capped, RealPods.APP_CONTAINER, "RUNNING: application.id", POD_START);
        // Past the start: still running.
        RealPods.awaitLineAged(
                client, capped, RealPods.APP_CONTAINER, "RUNNING: application.id", Duration.ofSeconds(20));
        assertThat(restarts(NAMESPACE, MEMORY_ONLY))
                .as("restarts of any of its pods")
                .isZero();
        harm.write(13, getClass(), test.getTestMethod().orElseThrow().getName());
        done(MEMORY_ONLY);
    }

    @Test
    void aJvmThatHitsADeclaredCapHasItLiftedAtOnceAndRuns(TestInfo test) throws InterruptedException {
        awaitOrShow(() -> !Fixtures.events(client, NAMESPACE, TOO_FEW_CLASSES, "JvmCapLifted")
                .isEmpty());
        assertThat(Fixtures.events(client, NAMESPACE, TOO_FEW_CLASSES, "JvmCapLifted")
                        .get(0)
                        .getMessage())
                .contains("OutOfMemoryError: Metaspace", "lifting -XX:MaxMetaspaceSize");
        // The row and the policy's Degraded condition name the cap; the workload rolls at once, without waiting for
        // the rate limit (its pods then report, and the direct memory cap they teach waits for it, as any change).
        awaitOrShow(() -> {
            WorkloadAllocationStatus row = RealPods.statusRow(client, NAMESPACE, TOO_FEW_CLASSES, TOO_FEW_CLASSES);
            return row != null
                    && row.getJvmCapsLifted() != null
                    && !Fixtures.events(client, NAMESPACE, TOO_FEW_CLASSES, "RollingRestart").stream()
                            .filter(e -> e.getMessage().contains("stamped restart hash"))
                            .filter(e -> !e.getMessage().contains("the workload opted in"))
                            .toList()
                            .isEmpty();
        });
        assertThat(RealPods.statusRow(client, NAMESPACE, TOO_FEW_CLASSES, TOO_FEW_CLASSES)
                        .getJvmCapsLifted())
                .containsExactly("-XX:MaxMetaspaceSize");
        StreamsMemoryPolicy policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NAMESPACE)
                .withName(TOO_FEW_CLASSES)
                .get();
        assertThat(policy.getStatus().getConditions())
                .anySatisfy(
                        c -> assertThat(c.getType() + " " + c.getStatus() + " " + c.getReason() + " " + c.getMessage())
                                .startsWith("Degraded True JvmCapLifted")
                                .contains("-XX:MaxMetaspaceSize"));

        // The pods then run, without the cap.
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod pod = running(harm, NAMESPACE, TOO_FEW_CLASSES);
        assertThat(javaToolOptions(pod)).contains("-javaagent:").doesNotContain("-XX:MaxMetaspaceSize");
        RealPods.awaitLog(client, pod, RealPods.APP_CONTAINER, "RUNNING: application.id", POD_START);
        RealPods.awaitLineAged(client, pod, RealPods.APP_CONTAINER, "RUNNING: application.id", Duration.ofSeconds(20));
        Pod now = client.pods().resource(pod).get();
        assertThat(now.getStatus().getContainerStatuses())
                .allSatisfy(s -> assertThat(s.getRestartCount()).isZero());
        harm.write(14, getClass(), test.getTestMethod().orElseThrow().getName());
        done(TOO_FEW_CLASSES);
    }

    @Test
    void aSpringBootImageIsInjectedBoundedAndReportsAndKeepsItsOwnSettings(TestInfo test) throws Exception {
        boundedInsideItsFramework("spring-boot", 15, test);
    }

    @Test
    void aQuarkusImageIsInjectedBoundedAndReportsAndKeepsItsOwnSettings(TestInfo test) throws Exception {
        boundedInsideItsFramework("quarkus", 16, test);
    }

    /**
     * A framework's application on a real pod: injected, its stores under the plan's shared block cache (through the
     * setter the agent defined in the framework's class loader), processing, its report read by the operator, the
     * setting the user made in the framework's properties kept.
     */
    static void boundedInsideItsFramework(String name, int harmCase, TestInfo test) throws Exception {
        DoNoHarm harm = DoNoHarm.onRealNode(client);
        Pod pod = running(harm, NAMESPACE, name);
        assertThat(pod.getSpec().getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem())
                .isTrue();
        assertThat(RealPods.initContainerReason(pod)).isEqualTo("Completed");
        // The report once the stores are open: the shared block cache the plan sets. (The plan the pod started on
        // may since have learned its JVM caps from this report, a change that waits for the rollout's rate limit; its
        // RocksDB settings are the same.) Until the JVM opened the report's port, the request is refused: ignored.
        await().atMost(POD_START)
                .pollInterval(Duration.ofSeconds(2))
                .ignoreExceptions()
                .until(() -> {
                    Optional<Pod> now = runningPod(NAMESPACE, name);
                    if (now.isEmpty()) {
                        return false;
                    }
                    JsonNode report = agentReport(now.get());
                    return report.at("/streams/rocksDbInstances").asLong() > 0
                            && report.at("/rocksdb/blockCacheCapacityBytes").asLong()
                                    == published(name).rocksdb().blockCacheCapacityBytes();
                });
        Pod reporting = runningPod(NAMESPACE, name).orElseThrow();
        JsonNode report = agentReport(reporting);
        assertThat(report.path("recordCacheSource").asText()).isEqualTo("plan");
        String log = RealPods.logOf(client, reporting, RealPods.APP_CONTAINER);
        assertThat(log)
                .contains(AGENT_LOADED, SETTER_IN_THE_FRAMEWORKS_LOADER)
                .doesNotContain("RocksDB is not bounded by the agent");
        // Kafka's main consumer logged its configuration before the stores opened.
        boolean kept = log.contains(USERS_MAX_POLL_RECORDS);
        harm.recordApplicationSetting(kept);
        // It processes: its consumer group (the application.id: the Deployment's name) commits the orders it read.
        try (ConsumerProgress progress = new ConsumerProgress(bootstrapServers)) {
            await().atMost(POD_START)
                    .pollInterval(Duration.ofSeconds(5))
                    .until(() -> progress.sampled(name, "orders")
                            .map(p -> p.records() - p.lag() > 0)
                            .orElse(false));
        }
        // The operator read the report: the workload's row shows it.
        await().atMost(POD_START).pollInterval(Duration.ofSeconds(2)).until(() -> {
            WorkloadAllocationStatus row = RealPods.statusRow(client, NAMESPACE, "orders", name);
            return row != null
                    && row.getObserved() != null
                    && row.getObserved().getPodsReporting() != null
                    && row.getObserved().getPodsReporting() >= 1
                    && row.getObserved().getRocksDbInstances() != null
                    && row.getObserved().getRocksDbInstances() > 0;
        });
        harm.write(
                harmCase,
                RealPodDoNoHarmTest.class,
                test.getTestMethod().orElseThrow().getName());
        assertThat(kept)
                .as("the user's %s from the image's application.properties", USERS_MAX_POLL_RECORDS)
                .isTrue();
        done(name);
    }

    /** A case checked: its Deployment scaled to 0, leaving the node's CPU to the cases still running. */
    static void done(String name) {
        done(NAMESPACE, name);
    }

    static void done(String namespace, String name) {
        client.apps().deployments().inNamespace(namespace).withName(name).scale(0);
    }

    /**
     * Awaits the too-few-classes case's condition; when it does not come, prints what its pods, its Deployment, its
     * policy and the namespace's Events said, to tell a loop never seen from a lift never made or never rolled.
     */
    static void awaitOrShow(java.util.concurrent.Callable<Boolean> condition) {
        try {
            await().atMost(POD_START).pollInterval(Duration.ofSeconds(2)).until(condition);
        } catch (RuntimeException notSeen) {
            System.out.println(
                    controlPlane.kubectl("get", "pods", "-n", NAMESPACE, "-l", "app=" + TOO_FEW_CLASSES, "-o", "yaml"));
            System.out.println(
                    controlPlane.kubectl("get", "deployment", "-n", NAMESPACE, TOO_FEW_CLASSES, "-o", "yaml"));
            System.out.println(controlPlane.kubectl("get", "smp", "-n", NAMESPACE, TOO_FEW_CLASSES, "-o", "yaml"));
            System.out.println(controlPlane.kubectl("get", "events", "-n", NAMESPACE));
            throw notSeen;
        }
    }

    static StreamsMemoryPolicy memoryOnly(String namespace, String name) {
        StreamsMemoryPolicy policy = new StreamsMemoryPolicy();
        policy.getMetadata().setName(name);
        policy.getMetadata().setNamespace(namespace);
        policy.setSpec(new StreamsMemoryPolicySpec());
        policy.getSpec().setMemory("1Gi");
        return policy;
    }

    /** The allocation the operator published for the Deployment, null before it did. */
    static AllocationDocument published(String deployment) {
        ConfigMap configMap = client.configMaps()
                .inNamespace(NAMESPACE)
                .withName(AllocationConfigMap.configMapName("Deployment", deployment))
                .get();
        return configMap == null ? null : AllocationConfigMap.document(configMap);
    }

    /** A size flag of the published JVM options ("-XX:MaxMetaspaceSize=250m"), in bytes; null when absent. */
    static Long cap(AllocationDocument document, String prefix) {
        return document == null ? null : cap(document.jvmOptions(), prefix);
    }

    /** A size flag among JVM options, in bytes; null when absent. */
    static Long cap(List<String> jvmOptions, String prefix) {
        return jvmOptions.stream()
                .filter(o -> o.startsWith(prefix))
                .findFirst()
                .map(o -> ByteSize.parseJvmSize(o.substring(prefix.length())))
                .orElse(null);
    }

    static String javaToolOptions(Pod pod) {
        return pod.getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
                .map(EnvVar::getValue)
                .findFirst()
                .orElse("");
    }

    /** The agent's memory report, read at the pod's IP on the node's bridge. */
    static JsonNode agentReport(Pod pod) throws IOException, InterruptedException {
        String port = pod.getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals(MetadataKeys.REPORT_PORT_VARIABLE))
                .map(EnvVar::getValue)
                .findFirst()
                .orElseThrow();
        Pod now = client.pods().resource(pod).get();
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(
                                        URI.create("http://" + now.getStatus().getPodIP() + ":" + port + "/report"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return new ObjectMapper().readTree(response.body());
    }

    /**
     * Creates the case's Deployment from examples/kafka-streams-app.yaml (1 GiB, one thread, four partitions, the
     * local broker), changed by {@code container} and {@code spec}, opted in, at 0 replicas (the class scales every
     * case up once its allocation is published: one wait for all instead of one per case).
     */
    static void start(
            String namespace,
            String name,
            Consumer<Container> container,
            Consumer<io.fabric8.kubernetes.api.model.PodSpec> spec)
            throws IOException {
        start(namespace, name, "orders", container, spec);
    }

    static void start(
            String namespace,
            String name,
            String policy,
            Consumer<Container> container,
            Consumer<io.fabric8.kubernetes.api.model.PodSpec> spec)
            throws IOException {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("BOOTSTRAP_SERVERS", bootstrapServers);
        env.put("APPLICATION_ID", name);
        env.put("STREAM_THREADS", "1");
        env.put("INPUT_PARTITIONS", "4");
        // One producer for the orders every case reads (clash's, which runs through the class); the rest only read:
        // eleven applications each producing would process eleven times the orders on the node's two cores.
        if (!name.equals(PRODUCER)) {
            env.put("PRODUCE_PER_SECOND", "0");
        }
        // C1 only, as the agent's and the observer's test JVMs run: eleven JVMs compiling with C2 at once on the node's
        // two cores slow every class beside them. A user's JDK_JAVA_OPTIONS, which the pod must keep (a setting lost
        // counts as harm). RealLimitTest's pods keep the default JIT: their rates are compared.
        env.put("JDK_JAVA_OPTIONS", "-XX:TieredStopAtLevel=1");
        Deployment app = RealPods.exampleApp(namespace, name, env, "1Gi");
        Container streams =
                app.getSpec().getTemplate().getSpec().getContainers().get(0);
        streams.setEnvFrom(new ArrayList<>());
        // Eleven pods on a 2-CPU node: the example's 250m each would leave some unscheduled.
        streams.getResources().getRequests().put("cpu", new Quantity("50m"));
        container.accept(streams);
        spec.accept(app.getSpec().getTemplate().getSpec());
        CASES.put(name, new DeploymentBuilder(app).build());
        RealPods.createOptedIn(client, app, policy);
    }

    /** The case's pod once all its containers run, recorded against the template the user wrote. */
    static Pod running(DoNoHarm harm, String namespace, String name) {
        Optional<Pod> pod = Optional.empty();
        try {
            await().atMost(POD_START)
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> runningPod(namespace, name).isPresent());
            pod = runningPod(namespace, name);
        } finally {
            Pod seen = pod.orElseGet(
                    () -> client.pods().inNamespace(namespace).withLabel("app", name).list().getItems().stream()
                            .findFirst()
                            .orElseThrow());
            harm.record(CASES.get(name).getSpec().getTemplate().getSpec(), seen, pod.isPresent());
        }
        return pod.orElseThrow();
    }

    /**
     * A running pod of the Deployment's current template: one of the rollout the opt-in starts, not a pod of the
     * template before it, which that rollout deletes while a test reads its log (seen once on a loaded machine).
     */
    static Optional<Pod> runningPod(String namespace, String name) {
        Deployment deployment = client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(name)
                .get();
        String restartHash = deployment == null
                ? null
                : restartHash(deployment.getSpec().getTemplate().getMetadata());
        return client.pods().inNamespace(namespace).withLabel("app", name).list().getItems().stream()
                .filter(p -> Objects.equals(restartHash(p.getMetadata()), restartHash))
                .filter(p -> "Running".equals(p.getStatus().getPhase()))
                .filter(p -> p.getStatus().getContainerStatuses().stream()
                        .allMatch(s -> s.getState().getRunning() != null))
                .findFirst();
    }

    private static String restartHash(ObjectMeta metadata) {
        return metadata == null || metadata.getAnnotations() == null
                ? null
                : metadata.getAnnotations().get(MetadataKeys.RESTART_HASH);
    }

    static int restarts(String namespace, String name) {
        return client.pods().inNamespace(namespace).withLabel("app", name).list().getItems().stream()
                .flatMap(p -> p.getStatus().getContainerStatuses().stream())
                .mapToInt(ContainerStatus::getRestartCount)
                .sum();
    }

    /** The log of the pod's last container kubelet killed, empty until it restarted one. */
    static String killedContainerLog(String namespace, String name) {
        return client.pods().inNamespace(namespace).withLabel("app", name).list().getItems().stream()
                .filter(p -> p.getStatus().getContainerStatuses().stream().anyMatch(s -> s.getRestartCount() > 0))
                .findFirst()
                .map(p -> client.pods()
                        .resource(p)
                        .inContainer(RealPods.APP_CONTAINER)
                        .terminated()
                        .getLog())
                .orElse("");
    }

    static String skipped(Pod pod) {
        assertThat(pod.getMetadata().getAnnotations()).doesNotContainKey(MetadataKeys.ALLOCATION_HASH);
        assertThat(pod.getSpec().getInitContainers()).isNullOrEmpty();
        return pod.getMetadata().getAnnotations().get(MetadataKeys.INJECTION_SKIPPED);
    }

    /** Why the pod's container could not start (kubelet's waiting or terminated message), once it says. */
    static Optional<String> startFailure(Pod probe) {
        Pod pod = client.pods().resource(probe).get();
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getContainerStatuses().stream()
                .map(s -> s.getState().getTerminated() != null
                        ? s.getState().getTerminated().getMessage()
                        : s.getState().getWaiting() == null
                                ? null
                                : s.getState().getWaiting().getMessage())
                .filter(m -> m != null && !m.isBlank())
                .findFirst();
    }

    /** The agent's line about the allocation it loaded. */
    private static final Pattern ALLOCATION_HASH_IN_LINE = Pattern.compile("allocation ([0-9a-f]{16}) from");

    /** The agent line with the allocation's hash taken out. */
    static String withoutHash(String agentLine) {
        return ALLOCATION_HASH_IN_LINE.matcher(agentLine).replaceFirst("allocation from");
    }

    static String hashOf(String agentLine) {
        Matcher matcher = ALLOCATION_HASH_IN_LINE.matcher(agentLine);
        return matcher.find() ? matcher.group(1) : "no hash in: " + agentLine;
    }

    static String agentLine(String log) {
        return log.lines().filter(l -> l.startsWith(AGENT_LOADED)).findFirst().orElse("no agent line in:\n" + log);
    }
}
