package io.streamsmemory.operator.bench;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.streamsmemory.controlplane.ControlPlaneOptions;
import io.streamsmemory.controlplane.LocalControlPlane;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.ApiServerRequests;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.PackagedOperator;
import io.streamsmemory.operator.api.Rollout;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code make bench-scale}: the packaged operator, started with the heap deploy/operator.yaml gives it (its memory
 * limit and {@code -XX:MaxRAMPercentage} turned into {@code -Xmx}, as the JVM does in the container), against a
 * local kube-apiserver holding N annotated workloads (4 in 5 Deployments, 1 in 5 StatefulSets, 0 replicas) under one
 * policy ({@code rollout: Manual}) and M Deployments that do not opt in. It measures the time to publish every
 * allocation, to re-split every workload after a policy edit, and to re-split one workload after its own scale;
 * the operator's RSS idle and at peak; and the API requests per workload of the re-split, from the
 * kube-apiserver's own {@code apiserver_request_total} minus the benchmark's own requests. Arguments: N (1000),
 * M (5000).
 */
public final class ScaleBenchmark {
    private static final String NS = "scale";
    private static final String BYSTANDERS = "bystanders";
    private static final Duration WAIT = Duration.ofMinutes(15);

    /** How long the benchmark waits after the operator turns ready before it creates the policy. */
    private static final Duration STARTUP_SETTLE = Duration.ofSeconds(20);
    /** Two rounds of the observer's default 30 s, over which the idle operator's CPU is measured. */
    private static final Duration IDLE_WINDOW = Duration.ofSeconds(60);
    /** USER_HZ, the unit of /proc/[pid]/stat's times (100 on Linux x86-64). */
    private static final int CLOCK_TICKS_PER_SECOND = 100;

    public static void main(String[] args) throws Exception {
        run(args);
        // The clients' thread pools are not daemons: without this the JVM stayed up after its summary, for ever.
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        int workloads = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int bystanders = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        try (LocalControlPlane controlPlane = LocalControlPlane.start(ControlPlaneOptions.apiServerOnly())) {
            KubernetesClient client = controlPlane.adminClient();
            DeployedJvm heap = DeployedJvm.fromDeployManifest(client);
            System.out.printf(
                    "bench-scale: %d workloads, %d bystanders; the operator runs with %s and %s (deploy/: "
                            + "%d MiB limit)%n",
                    workloads, bystanders, heap.jvmOptions(), heap.env(), heap.limitMiB());
            Fixtures.installCrd(client);
            for (String ns : List.of(NS, BYSTANDERS, "streams-memory-system")) {
                Fixtures.namespace(client, ns);
            }
            long created = System.nanoTime();
            create(client, workloads, bystanders);
            System.out.printf("created %d objects in %.1f s%n", workloads + bystanders, seconds(created));

            Path log = Files.createTempFile("operator-scale", ".log");
            // The webhook on, as deploy/ runs it: its caches of the cluster's workloads count in the RSS.
            int webhookPort = PackagedOperator.freePort();
            Fixtures.installWebhookConfiguration(client, webhookPort);
            List<String> jvm = new ArrayList<>(heap.jvmOptions());
            jvm.addAll(List.of(
                    "-Dstreamsmemory.webhook.port=" + webhookPort, "-Dstreamsmemory.webhook.extra-sans=IP:127.0.0.1"));
            try (PackagedOperator operator = PackagedOperator.start(
                            controlPlane.kubeconfigPath(),
                            "streams-memory-system",
                            "operator-0",
                            log,
                            heap.env(),
                            jvm.toArray(String[]::new));
                    RssSampler rss = new RssSampler(operator.process().pid());
                    Published published = new Published(client)) {
                long ready = System.nanoTime() + WAIT.toNanos();
                while (!readyAt(operator)) {
                    if (System.nanoTime() > ready) {
                        throw new IllegalStateException("the operator never turned ready; see " + log);
                    }
                    Thread.sleep(200);
                }
                // Settled first: the workloads name a policy that does not exist yet, and the operator's start tells
                // each of them so after a grace of 5 s (PolicyNotFound, one Event per workload). Those 1,000 POSTs
                // would otherwise fall into the publish's time, or not, depending on how soon it turned ready.
                Thread.sleep(STARTUP_SETTLE.toMillis());
                long start = System.nanoTime();
                StreamsMemoryPolicy policy = Fixtures.policy(NS, "orders", "2Gi");
                policy.getSpec().setRollout(Rollout.Manual);
                client.resource(policy).create();
                published.await(workloads, 4);
                double publishSeconds = seconds(start);
                Thread.sleep(5000);
                long idle = rss.current();
                long liveHeap = liveHeapBytes(operator.process().pid());

                Map<String, Double> before = quiet(client); // the publish's last Events posted
                long benchRequestsBefore = published.requests();
                start = System.nanoTime();
                client.resources(StreamsMemoryPolicy.class)
                        .inNamespace(NS)
                        .withName("orders")
                        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"streams\":{\"threads\":2}}}");
                published.await(workloads, 2);
                double resplitSeconds = seconds(start);
                Map<String, Double> made = grown(before, quiet(client)); // the status patch and the last Events
                made.remove("GET "); // the benchmark's readings of /metrics
                // The Lease is renewed every few seconds whatever the operator does: not requests of the re-split.
                made.keySet().removeIf(key -> key.endsWith(" leases"));
                double operatorRequests =
                        made.values().stream().mapToDouble(Double::doubleValue).sum()
                                - 1 /* our patch */
                                - (published.requests() - benchRequestsBefore);
                System.out.printf(
                        "API requests during the re-split, by verb and resource (the benchmark's own "
                                + "patch included, the Lease's renewals not): %s%n",
                        made);

                String one = name(0);
                start = System.nanoTime();
                client.apps().deployments().inNamespace(NS).withName(one).scale(3);
                published.awaitReplicas(one, 3);
                long singleMillis = (System.nanoTime() - start) / 1_000_000;

                // Nothing changes from here on: what the operator spends is its periodic work at this many workloads.
                double idleCores = cpuSeconds(operator.process().pid(), IDLE_WINDOW) / IDLE_WINDOW.toSeconds();

                System.out.printf(
                        "publish %.1f s, re-split %.1f s, single re-split %d ms, RSS idle %d MiB peak %d MiB"
                                + " (limit %d MiB), %.0f API requests for the re-split%n",
                        publishSeconds,
                        resplitSeconds,
                        singleMillis,
                        idle >> 20,
                        rss.peak() >> 20,
                        heap.limitMiB(),
                        operatorRequests);
                System.out.printf(
                        "summary: workloads=%d bystanders=%d publish_s=%.1f resplit_s=%.1f "
                                + "single_resplit_ms=%d idle_rss_mib=%d peak_rss_mib=%d live_heap_mib=%d limit_mib=%d "
                                + "requests_per_workload=%.2f idle_cpu_cores=%.2f%n",
                        workloads,
                        bystanders,
                        publishSeconds,
                        resplitSeconds,
                        singleMillis,
                        idle >> 20,
                        rss.peak() >> 20,
                        liveHeap >> 20,
                        heap.limitMiB(),
                        operatorRequests / workloads,
                        idleCores);
            }
        }
    }

    /** CPU seconds (user and system) the process spends over {@code window}, from /proc/[pid]/stat. */
    private static double cpuSeconds(long pid, Duration window) throws Exception {
        long before = cpuTicks(pid);
        Thread.sleep(window.toMillis());
        return (cpuTicks(pid) - before) / (double) CLOCK_TICKS_PER_SECOND;
    }

    private static long cpuTicks(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // Fields after the command (which may hold spaces) start after its closing parenthesis; utime is the 14th.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /**
     * The operator's live heap once everything is published: {@code jcmd GC.class_histogram} runs a full GC first,
     * and its last line totals the bytes of every live object (the caches of workloads and ConfigMaps most of it).
     */
    private static long liveHeapBytes(long pid) throws Exception {
        Process jcmd = new ProcessBuilder("jcmd", Long.toString(pid), "GC.class_histogram")
                .redirectErrorStream(true)
                .start();
        List<String> lines =
                new String(jcmd.getInputStream().readAllBytes()).lines().toList();
        jcmd.waitFor();
        String total = lines.stream()
                .filter(l -> l.startsWith("Total"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no histogram from jcmd: " + lines));
        String[] fields = total.trim().split("\\s+");
        return Long.parseLong(fields[2]);
    }

    /** N workloads (every fifth a StatefulSet) and M bystander Deployments, created 8 at a time. */
    private static void create(KubernetesClient client, int workloads, int bystanders) throws Exception {
        var pool = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < workloads; i++) {
            int index = i;
            done.add(pool.submit(() -> client.resource(workload(index)).create()));
        }
        for (int i = 0; i < bystanders; i++) {
            int index = i;
            done.add(pool.submit(
                    () -> client.resource(Fixtures.deployment(BYSTANDERS, "bystander-" + index, null, 0, "2Gi"))
                            .create()));
        }
        for (var future : done) {
            future.get();
        }
        pool.shutdown();
    }

    private static HasMetadata workload(int index) {
        Deployment deployment = Fixtures.deployment(NS, name(index), "orders", 0, "2Gi");
        if (index % 5 != 4) {
            return deployment;
        }
        return Fixtures.statefulSetLike(deployment);
    }

    private static String name(int index) {
        return String.format("app-%04d", index);
    }

    private static boolean readyAt(PackagedOperator operator) {
        try {
            return operator.get("/q/health/ready").statusCode() == 200;
        } catch (Exception notYet) {
            return false;
        }
    }

    private static Map<String, Double> requests(KubernetesClient client) {
        return ApiServerRequests.byVerbAndResource(client);
    }

    /**
     * The requests once the operator has stopped making them (its Events are posted after the reconcile, one at a
     * time): two readings 2 s apart that differ only by the reading itself; at most a minute.
     */
    private static Map<String, Double> quiet(KubernetesClient client) throws InterruptedException {
        Map<String, Double> last = requests(client);
        for (int i = 0; i < 30; i++) {
            Thread.sleep(2000);
            Map<String, Double> now = requests(client);
            Map<String, Double> grown = grown(last, now);
            grown.remove("GET "); // the /metrics reading
            if (grown.isEmpty()) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** What grew between two readings of {@link #requests}, by verb and resource. */
    private static Map<String, Double> grown(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Double> grown = new TreeMap<>();
        after.forEach((key, value) -> {
            double delta = value - before.getOrDefault(key, 0.0);
            if (delta > 0) {
                grown.put(key, delta);
            }
        });
        return grown;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /**
     * The published allocations, from one watch of the managed ConfigMaps (so the benchmark's own requests stay a
     * handful): for each workload, the stream threads and replicas of its allocation.
     */
    private static final class Published implements AutoCloseable {
        private final Map<String, int[]> byWorkload = new ConcurrentHashMap<>();
        private final AtomicLong requests = new AtomicLong(1);
        private final Watch watch;

        Published(KubernetesClient client) {
            watch = client.configMaps()
                    .inNamespace(NS)
                    .withLabel(MetadataKeys.MANAGED_BY_LABEL, MetadataKeys.MANAGED_BY)
                    .watch(new Watcher<>() {
                        @Override
                        public void eventReceived(Action action, ConfigMap configMap) {
                            String data = configMap.getData() == null
                                    ? null
                                    : configMap.getData().get(MetadataKeys.ALLOCATION_KEY);
                            if (data != null && action != Action.DELETED) {
                                var inputs = AllocationJson.read(data).inputs();
                                byWorkload.put(
                                        configMap.getMetadata().getAnnotations().get(MetadataKeys.WORKLOAD),
                                        new int[] {inputs.streamThreads(), inputs.replicas()});
                            }
                        }

                        @Override
                        public void onClose(WatcherException cause) {}
                    });
        }

        long requests() {
            return requests.get();
        }

        void await(int workloads, int threads) throws InterruptedException {
            until(
                    () -> byWorkload.values().stream()
                                    .filter(v -> v[0] == threads)
                                    .count()
                            >= workloads,
                    workloads + " workloads on " + threads + " threads");
        }

        void awaitReplicas(String workload, int replicas) throws InterruptedException {
            until(() -> byWorkload.getOrDefault(workload, new int[2])[1] == replicas, workload + " at " + replicas);
        }

        private static void until(BooleanSupplier done, String what) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!done.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("not within " + WAIT + ": " + what);
                }
                Thread.sleep(5);
            }
        }

        @Override
        public void close() {
            watch.close();
        }
    }

    /** The operator's resident memory, sampled every 100 ms from /proc. */
    private static final class RssSampler implements AutoCloseable {
        private final long pid;
        private final AtomicLong peak = new AtomicLong();
        private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();

        RssSampler(long pid) {
            this.pid = pid;
            sampler.scheduleAtFixedRate(
                    () -> peak.accumulateAndGet(current(), Math::max), 0, 100, TimeUnit.MILLISECONDS);
        }

        long current() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                    }
                }
            } catch (Exception gone) {
                // the process ended
            }
            return 0;
        }

        long peak() {
            return peak.get();
        }

        @Override
        public void close() {
            sampler.shutdownNow();
        }
    }

    /**
     * How deploy/operator.yaml runs the operator's JVM: its {@code JAVA_TOOL_OPTIONS} with {@code -XX:MaxRAMPercentage}
     * of the memory limit turned into {@code -Xmx} (as the JVM computes it in the container; the other flags as they
     * are), and the container's other literal environment variables that shape native memory (MALLOC_*).
     */
    record DeployedJvm(long limitBytes, List<String> jvmOptions, Map<String, String> env) {
        private static final Pattern PERCENT = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)");

        static DeployedJvm fromDeployManifest(KubernetesClient client) {
            Deployment operator = (Deployment) Fixtures.deployFile(client, "operator.yaml").stream()
                    .filter(Deployment.class::isInstance)
                    .findFirst()
                    .orElseThrow();
            var container =
                    operator.getSpec().getTemplate().getSpec().getContainers().get(0);
            long limit = Quantity.getAmountInBytes(
                            container.getResources().getLimits().get("memory"))
                    .longValue();
            String toolOptions = container.getEnv().stream()
                    .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
                    .map(EnvVar::getValue)
                    .findFirst()
                    .orElse("");
            List<String> options = new ArrayList<>();
            for (String option : toolOptions.trim().split("\\s+")) {
                Matcher percent = PERCENT.matcher(option);
                if (percent.matches()) {
                    options.add("-Xmx" + (long) (limit * Double.parseDouble(percent.group(1)) / 100) / (1 << 20) + "m");
                } else if (!option.isEmpty()) {
                    options.add(option);
                }
            }
            Map<String, String> env = new TreeMap<>();
            container.getEnv().stream()
                    .filter(e -> e.getName().startsWith("MALLOC_") && e.getValue() != null)
                    .forEach(e -> env.put(e.getName(), e.getValue()));
            return new DeployedJvm(limit, options, env);
        }

        long limitMiB() {
            return limitBytes >> 20;
        }
    }
}
