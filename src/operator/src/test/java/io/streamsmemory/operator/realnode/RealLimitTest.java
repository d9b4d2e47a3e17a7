package io.streamsmemory.operator.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The promise under the kernel's limit, on real pods: the same Kafka Streams application with the same memory limit,
 * side by side on the real node, once on Kafka's defaults (not opted in) and once under a policy of that memory.
 * The application keeps its RocksDB stores busy (8 partitions, two key-value stores and a window store per task,
 * the record cache at 0) on a fixed input produced by a pod before both start: 400,000 orders of 1 KiB over 200,000
 * customers, so each key is first new (the memtables fill) and then updated (its block is read back into the block
 * cache). On Kafka's defaults each store's memtables grow to 16 MiB before a flush and its block cache to 50 MiB, on
 * top of a JVM sized by its own defaults: the kernel kills the container (kubelet reports {@code OOMKilled}). Under
 * the policy every memtable and cached block is charged to one bounded cache and the heap is planned: the pod never
 * restarts, kubelet's peak working set stays below the limit, and all input is processed (committed).
 *
 * <p>Choices the first runs forced: with 32 partitions, Kafka's default buffers overflowed the JVM's default heap
 * (25% of the container) in 40 s, an {@code OutOfMemoryError} rather than a kernel kill; and a JVM option in the
 * user's JAVA_TOOL_OPTIONS that sizes the heap ({@code -XX:MaxRAMPercentage}) keeps the webhook from adding the planned
 * heap (the user's setting wins, and the agent warns), so neither Deployment carries one. Prints the {@code real-limit:} line and keeps it in target/real-node/real-limit.txt.
 *
 * <p>Then the kill no plan can prevent: the same application under the same policy, leaking native memory that no
 * JVM flag or Kafka setting bounds, on an empty input (the orders processed are deleted). The kernel kills it, and the operator shows it as users would look for it:
 * {@code observed.oomKills} from kubelet's container status, {@code MemoryPressure} with the figures, and the
 * {@code unexplained} figure growing before the kill as the dashboard's alert expression reads it.
 */
@OnTheRealNode
@Order(1) // its place in the real-node lane (junit-platform.properties)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealLimitTest extends ChartOnTheRealNode {
    static final String NAMESPACE = "limit";
    static final String MEMORY = "512Mi";
    static final int PARTITIONS = 8;
    static final int ORDERS = 400_000;
    /** Each key twice: the second order of a key reads its first back from disk. */
    static final int KEYS = 200_000;

    static final int ORDER_BYTES = 1024;
    /**
     * Fast enough that the kernel kills the leaking pod within a minute of its start (it processes nothing: at 240 it
     * took 89 s), slow enough for the operator to sample its growth (every 5 s) several times before.
     */
    static final int LEAK_MIB_PER_MINUTE = 480;

    static final Duration POD_START = Duration.ofMinutes(3);
    /** Long enough for a slow machine: the loop ends as soon as the kill is seen and all input is processed. */
    static final Duration RUN = Duration.ofMinutes(15);

    static final Path OUT = OperatorChart.OUT;

    @BeforeAll
    static void startABrokerWithTheInput() throws IOException {
        startBroker(NAMESPACE, POD_START);
        Pod input = client.resource(RealPods.exampleProgram(
                        NAMESPACE,
                        "fixed-orders",
                        "io.streamsmemory.examples.FixedOrders",
                        Map.of(
                                "BOOTSTRAP_SERVERS", bootstrapServers,
                                "INPUT_PARTITIONS", Integer.toString(PARTITIONS),
                                "ORDERS_TOTAL", Integer.toString(ORDERS),
                                "KEYS", Integer.toString(KEYS),
                                "ORDER_BYTES", Integer.toString(ORDER_BYTES))))
                .create();
        RealPods.awaitSucceeded(client, input, Duration.ofMinutes(5));
    }

    @Test
    @Order(1)
    void kafkasDefaultsAreOomKilledAndTheSamePodUnderAPolicyOfTheSameMemoryIsNot() throws Exception {
        client.resource(RealPods.policy(NAMESPACE, "orders", MEMORY, 1, PARTITIONS))
                .create();
        RealPods.awaitWebhookSelects(client, OperatorChart.RELEASE, NAMESPACE, POD_START);

        client.resource(app("defaults")).create();
        RealPods.createInjected(client, app("bounded"), "orders", 1, POD_START);
        Instant start = Instant.now();

        long limit = Quantity.getAmountInBytes(new Quantity(MEMORY)).longValueExact();
        long boundedPeak = 0;
        Optional<ContainerStateTerminated> defaultsKill = Optional.empty();
        ConsumerProgress.Progress processed = new ConsumerProgress.Progress(0, -1);
        CommittedRate boundedRate = new CommittedRate();
        CommittedRate defaultsRate = new CommittedRate();
        try (ConsumerProgress progress = new ConsumerProgress(bootstrapServers)) {
            while (Duration.between(start, Instant.now()).compareTo(RUN) < 0) {
                Thread.sleep(5_000);
                if (defaultsKill.isEmpty()) {
                    progress.sampled("defaults", "orders").ifPresent(p -> defaultsRate.sample(p, start));
                    defaultsKill = oomKill("defaults");
                    // One kill proves it; its restarts would only take CPU from the pod still working.
                    defaultsKill.ifPresent(kill -> client.apps()
                            .deployments()
                            .inNamespace(NAMESPACE)
                            .withName("defaults")
                            .scale(0));
                }
                Optional<Pod> boundedPod = pods("bounded").stream().findFirst();
                if (boundedPod.isPresent()) {
                    boundedPeak = Math.max(
                            boundedPeak,
                            KubeletStats.workingSetBytes(
                                            client,
                                            NAMESPACE,
                                            boundedPod.get().getMetadata().getName(),
                                            RealPods.APP_CONTAINER)
                                    .orElse(0));
                }
                Optional<ConsumerProgress.Progress> sample = progress.sampled("bounded", "orders");
                if (sample.isPresent()) {
                    processed = sample.get();
                    boundedRate.sample(processed, start);
                }
                if (defaultsKill.isPresent() && processed.lag() == 0 && processed.records() == ORDERS) {
                    break;
                }
            }
        }
        int boundedRestarts = restarts("bounded");
        printAndKeep(
                "real-limit: limit=%d without_policy=%s with_policy_restarts=%d with_policy_peak_ratio=%.3f records=%d "
                        + "with_policy_rps=%.0f without_policy_rps=%.0f",
                limit,
                defaultsKill.map(k -> "OOMKilled after " + secondsRun(k) + " s").orElse("survived"),
                boundedRestarts,
                (double) boundedPeak / limit,
                processed.lag() == 0 ? processed.records() : processed.records() - processed.lag(),
                boundedRate.perSecond(),
                defaultsRate.perSecond());
        Files.writeString(
                OUT.resolve("real-limit-pods.txt"),
                controlPlane.kubectl("get", "pods", "-n", NAMESPACE, "-o", "wide") + "\n"
                        + controlPlane.kubectl("get", "smp", "-n", NAMESPACE, "-o", "wide") + "\n"
                        + controlPlane.kubectl("describe", "pods", "-n", NAMESPACE, "-l", "app in (defaults,bounded)"));

        assertThat(defaultsKill)
                .as("Kafka's defaults were not OOM-killed within %s: the load is too light to prove anything", RUN)
                .isPresent();
        assertThat(boundedRestarts).as("restarts of the pod under the policy").isZero();
        assertThat(pods("bounded"))
                .as("the pod under the policy runs with the agent")
                .allMatch(p -> p.getMetadata().getAnnotations().containsKey(MetadataKeys.ALLOCATION_HASH));
        assertThat(boundedPeak)
                .as("kubelet's peak working set of the pod under the policy")
                .isBetween(1L, limit - 1);
        assertThat(processed)
                .as("all input processed under the policy")
                .isEqualTo(new ConsumerProgress.Progress(ORDERS, 0));
    }

    @Test
    @Order(2)
    void aPodLeakingNativeMemoryUnderAnHonestPolicyIsKilledAndTheOperatorShowsTheKillThePressureAndTheGrowth()
            throws Exception {
        client.apps().deployments().inNamespace(NAMESPACE).withName("bounded").scale(0);
        // The orders processed, deleted: the leaking pod starts on an empty input, so what grows is its leak, and it
        // leaves the node's CPU to the classes beside it (processing the 400,000 orders again took a core until the
        // kill and after each restart).
        try (ConsumerProgress input = new ConsumerProgress(bootstrapServers)) {
            input.deleteRecords("orders");
        }
        Deployment leaky = app("leaky");
        leaky.getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getEnv()
                .add(new EnvVar("NATIVE_LEAK_MIB_PER_MINUTE", Integer.toString(LEAK_MIB_PER_MINUTE), null));
        RealPods.createInjected(client, leaky, "orders", 1, POD_START);

        // The alert's input, read where Prometheus would scrape it, every 5 s until kubelet reports the kill.
        List<Long> unexplained = new ArrayList<>();
        long podMemory = 0;
        Instant deadline = Instant.now().plus(Duration.ofMinutes(6));
        while (oomKill("leaky").isEmpty() && Instant.now().isBefore(deadline)) {
            OperatorMetrics metrics = OperatorMetrics.scrape(client);
            metrics.value("streamsmemory_observed_bytes", NAMESPACE, "leaky", "unexplained")
                    .ifPresent(unexplained::add);
            podMemory = metrics.value("streamsmemory_pod_memory_bytes", NAMESPACE, "leaky", null)
                    .orElse(podMemory);
            Thread.sleep(5_000);
        }
        // The operator's next rounds: the kill in the workload's row.
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> {
                    WorkloadAllocationStatus r = RealPods.statusRow(client, NAMESPACE, "orders", "leaky");
                    return r != null
                            && r.getObserved() != null
                            && r.getObserved().getOomKills() != null
                            && r.getObserved().getOomKills() > 0;
                });
        WorkloadAllocationStatus row = RealPods.statusRow(client, NAMESPACE, "orders", "leaky");
        Optional<ContainerStateTerminated> kill = oomKill("leaky");
        StreamsMemoryPolicy policy = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(NAMESPACE)
                .withName("orders")
                .get();
        Condition pressure = policy.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals("MemoryPressure"))
                .findFirst()
                .orElseThrow();
        // deriv(...[window]) > 0 and unexplained > 0.1 * pod memory: the expression of StreamsMemoryUnexplainedGrowing
        // in deploy/monitoring/prometheusrule.yaml, over the samples read before the kill (its "for: 1h" aside).
        double slope = OperatorMetrics.deriv(unexplained, 5);
        long last = unexplained.isEmpty() ? 0 : unexplained.get(unexplained.size() - 1);
        printAndKeep(
                "real-oom: leak=%d MiB/min killed=%s observed_oom_kills=%s unexplained_before_kill=%d MiB (%.2f of the pod)"
                        + " unexplained_slope=%.1f MiB/min samples=%d pressure=\"%s\"",
                LEAK_MIB_PER_MINUTE,
                kill.map(k -> "after " + secondsRun(k) + " s").orElse("no"),
                row.getObserved().getOomKills(),
                last >> 20,
                podMemory == 0 ? 0.0 : (double) last / podMemory,
                slope * 60 / (1 << 20),
                unexplained.size(),
                pressure.getMessage());

        assertThat(kill).as("the kernel killed the leaking pod").isPresent();
        assertThat(row.getObserved().getOomKills()).as("observed.oomKills").isPositive();
        assertThat(pressure.getStatus()).isEqualTo("True");
        assertThat(pressure.getMessage()).contains("OOM kill(s) of its pods").contains("peak");
        assertThat(unexplained).as("unexplained samples before the kill").hasSizeGreaterThanOrEqualTo(3);
        assertThat(slope).as("deriv(unexplained) > 0").isPositive();
        assertThat(last).as("unexplained > 0.1 * pod memory").isGreaterThan(podMemory / 10);
    }

    /** The line {@code format} makes, printed and kept in target/real-node/ as its name before the colon, .txt. */
    private static void printAndKeep(String format, Object... args) throws IOException {
        String line = String.format(Locale.ROOT, format, args);
        System.out.println(line);
        Files.writeString(OUT.resolve(line.substring(0, line.indexOf(':')) + ".txt"), line + "\n");
    }

    /** The example application as {@code name} (also its application.id) at {@link #MEMORY}, not opted in yet. */
    static Deployment app(String name) throws IOException {
        return RealPods.exampleApp(
                NAMESPACE,
                name,
                Map.of(
                        "BOOTSTRAP_SERVERS",
                        bootstrapServers,
                        "APPLICATION_ID",
                        name,
                        "STREAM_THREADS",
                        "1",
                        "INPUT_PARTITIONS",
                        Integer.toString(PARTITIONS),
                        "PRODUCE_PER_SECOND",
                        "0",
                        "RECORD_CACHE_BYTES",
                        "0"),
                MEMORY);
    }

    static List<Pod> pods(String app) {
        return client.pods().inNamespace(NAMESPACE).withLabel("app", app).list().getItems();
    }

    /** The first OOM kill kubelet recorded for the app's container, if any. */
    static Optional<ContainerStateTerminated> oomKill(String app) {
        return pods(app).stream()
                .flatMap(p -> p.getStatus().getContainerStatuses().stream())
                .flatMap(s -> java.util.stream.Stream.of(s.getLastState(), s.getState()))
                .filter(s -> s != null && s.getTerminated() != null)
                .map(s -> s.getTerminated())
                .filter(t -> "OOMKilled".equals(t.getReason()))
                .findFirst();
    }

    static int restarts(String app) {
        return pods(app).stream()
                .flatMap(p -> p.getStatus().getContainerStatuses().stream())
                .mapToInt(ContainerStatus::getRestartCount)
                .sum();
    }

    /** How long the killed container ran. */
    static long secondsRun(ContainerStateTerminated killed) {
        return Duration.between(Instant.parse(killed.getStartedAt()), Instant.parse(killed.getFinishedAt()))
                .toSeconds();
    }

    /**
     * A pod's rate as the broker sees it: the records its consumer group has committed over the seconds from the
     * Deployments' creation to the sample at which that count last rose. Both pods start together and commit every
     * 30 s (Kafka's default), so the two rates compare like for like; the pod on Kafka's defaults is sampled only
     * until its kill is seen.
     */
    static final class CommittedRate {
        private long records;
        private double seconds;

        void sample(ConsumerProgress.Progress progress, Instant start) {
            long committed = progress.records() - progress.lag();
            if (committed > records) {
                records = committed;
                seconds = Duration.between(start, Instant.now()).toMillis() / 1000.0;
            }
        }

        double perSecond() {
            return seconds > 0 ? records / seconds : 0;
        }
    }
}
