package io.streamsmemory.operator.realnode;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.controlplane.ControlPlaneBinaries;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/** Waits and reads on real pods of the local node: what a person would do with kubectl get, logs and describe. */
final class RealPods {
    static final Path KAFKA_BROKER = Path.of("../../examples/local/kafka-broker.yaml");
    static final Path EXAMPLE_APP = Path.of("../../examples/kafka-streams-app.yaml");
    /** The container of examples/kafka-streams-app.yaml. */
    static final String APP_CONTAINER = "streams";

    private RealPods() {}

    /** examples/local/kafka-broker.yaml in {@code namespace}, once Ready; returns its {@code <pod IP>:9092}. */
    static String startBroker(KubernetesClient client, String namespace, Duration timeout) throws IOException {
        Deployment broker;
        try (InputStream in = Files.newInputStream(KAFKA_BROKER)) {
            broker = fromRegistry(client.apps().deployments().load(in).item());
        }
        broker.getMetadata().setNamespace(namespace);
        client.resource(broker).create();
        String app = broker.getSpec().getSelector().getMatchLabels().get("app");
        await().atMost(timeout)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> ready(client, namespace, app).isPresent());
        return ready(client, namespace, app).orElseThrow().getStatus().getPodIP() + ":9092";
    }

    /** The Deployment with its images as published to the control plane's registry, where the kubelet pulls them. */
    static Deployment fromRegistry(Deployment deployment) {
        var spec = deployment.getSpec().getTemplate().getSpec();
        spec.getContainers().forEach(c -> c.setImage(OperatorChart.fromRegistry(c.getImage())));
        spec.getInitContainers().forEach(c -> c.setImage(OperatorChart.fromRegistry(c.getImage())));
        return deployment;
    }

    /**
     * examples/kafka-streams-app.yaml as Deployment {@code name} (labels {@code app=<name>}) in {@code namespace}, one
     * replica, not opted in (no policy annotation), with exactly {@code env} and a memory request and limit of
     * {@code memory}. Not created.
     */
    static Deployment exampleApp(String namespace, String name, Map<String, String> env, String memory)
            throws IOException {
        Deployment app;
        try (InputStream in = Files.newInputStream(EXAMPLE_APP)) {
            app = fromRegistry(Serialization.unmarshal(in, Deployment.class));
        }
        app.getMetadata().setName(name);
        app.getMetadata().setNamespace(namespace);
        app.getMetadata().getAnnotations().clear();
        app.getSpec().setReplicas(1);
        app.getSpec().getSelector().setMatchLabels(new HashMap<>(Map.of("app", name)));
        app.getSpec().getTemplate().getMetadata().setLabels(new HashMap<>(Map.of("app", name)));
        Container streams =
                app.getSpec().getTemplate().getSpec().getContainers().get(0);
        streams.setEnv(env.entrySet().stream()
                .map(e -> new EnvVar(e.getKey(), e.getValue(), null))
                .collect(Collectors.toCollection(ArrayList::new)));
        streams.getResources().getLimits().put("memory", new Quantity(memory));
        streams.getResources().getRequests().put("memory", new Quantity(memory));
        return app;
    }

    /**
     * A framework's example application image ({@code example-spring-boot}, {@code example-quarkus}), which make
     * images saved and listed in examples.txt, pushed to the control plane's registry with crane as a user's build
     * pushes an application's image; returns the reference the kubelet pulls.
     */
    static String pushFrameworkImage(String name) throws IOException, InterruptedException {
        Path list = ControlPlaneBinaries.imagesDir().resolve("examples.txt");
        String[] built = Files.readAllLines(list).stream()
                .map(line -> line.split(" "))
                .filter(fields -> fields[0].contains("/streams-memory-" + name + ":"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + name + " image in " + list + " (make images)"));
        String reference = OperatorChart.fromRegistry(built[0]);
        Process push = new ProcessBuilder(
                        ControlPlaneBinaries.crane().toString(), "push", "--insecure", built[1], reference)
                .redirectErrorStream(true)
                .start();
        String output = new String(push.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (push.waitFor() != 0) {
            throw new IllegalStateException("crane push " + built[1] + " " + reference + ":\n" + output);
        }
        return reference;
    }

    /**
     * A pod of the example image running {@code mainClass} of it once (restartPolicy Never), with the example's
     * security settings and {@code env}. Not created.
     */
    static Pod exampleProgram(String namespace, String name, String mainClass, Map<String, String> env)
            throws IOException {
        Deployment app = exampleApp(namespace, name, env, "512Mi");
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .addToLabels("app", name)
                .endMetadata()
                .withSpec(app.getSpec().getTemplate().getSpec())
                .build();
        pod.getSpec().setRestartPolicy("Never");
        pod.getSpec().getContainers().get(0).getResources().getRequests().put("cpu", new Quantity("50m"));
        pod.getSpec().getContainers().get(0).setCommand(List.of("java", "-cp", "/app/*:/app/lib/*", mainClass));
        return pod;
    }

    /** Fixtures' policy shape (two key-value stores and a window store per task) with this memory, threads, partitions. */
    static StreamsMemoryPolicy policy(String namespace, String name, String memory, int threads, int partitions) {
        StreamsMemoryPolicy policy = Fixtures.policy(namespace, name, memory);
        policy.getSpec().getStreams().setThreads(threads);
        policy.getSpec().getStreams().setPartitions(partitions);
        return policy;
    }

    /** The policy's status row for the workload, null until the operator wrote one. */
    static WorkloadAllocationStatus statusRow(
            KubernetesClient client, String namespace, String policy, String workload) {
        StreamsMemoryPolicy p = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(namespace)
                .withName(policy)
                .get();
        if (p == null || p.getStatus() == null || p.getStatus().getWorkloads() == null) {
            return null;
        }
        return p.getStatus().getWorkloads().stream()
                .filter(w -> workload.equals(w.getName()))
                .findFirst()
                .orElse(null);
    }

    /**
     * Creates {@code app}, opted in to {@code policy}, at 0 replicas, waits until the operator published its
     * allocation, then scales it to {@code replicas}: every pod it starts is injected (the webhook injects only a
     * published allocation; without the wait the first pods run without the agent until the operator rolls them).
     */
    static void createInjected(KubernetesClient client, Deployment app, String policy, int replicas, Duration timeout) {
        createOptedIn(client, app, policy);
        scaleOncePublished(client, app, replicas, timeout);
    }

    /** The first half of {@link #createInjected}: {@code app} created opted in to {@code policy}, at 0 replicas. */
    static void createOptedIn(KubernetesClient client, Deployment app, String policy) {
        app.getMetadata().getAnnotations().put(MetadataKeys.POLICY, policy);
        app.getSpec().setReplicas(0);
        client.resource(app).create();
    }

    /** The second half of {@link #createInjected}: once its allocation is published, {@code app} scaled up. */
    static void scaleOncePublished(KubernetesClient client, Deployment app, int replicas, Duration timeout) {
        String namespace = app.getMetadata().getNamespace();
        String name = app.getMetadata().getName();
        await().atMost(timeout)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> client.configMaps()
                                .inNamespace(namespace)
                                .withName(AllocationConfigMap.configMapName("Deployment", name))
                                .get()
                        != null);
        client.apps().deployments().inNamespace(namespace).withName(name).scale(replicas);
    }

    /** Until the pod ends; fails when it ends other than Succeeded (with its log). */
    static void awaitSucceeded(KubernetesClient client, Pod pod, Duration timeout) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        await().atMost(timeout).pollInterval(Duration.ofSeconds(2)).until(() -> {
            Pod now = client.pods().inNamespace(namespace).withName(name).get();
            String phase = now == null || now.getStatus() == null
                    ? null
                    : now.getStatus().getPhase();
            if ("Failed".equals(phase)) {
                throw new AssertionError("pod " + name + " failed:\n" + logOf(client, now, APP_CONTAINER));
            }
            return "Succeeded".equals(phase);
        });
    }

    /**
     * The first injected pod (it carries the allocation's hash) labelled {@code app=<app>} whose containers all run,
     * once one does. Pods created before the operator published the allocation run without the agent until the
     * operator rolls them (the webhook injects only a published allocation): this waits through that.
     */
    static Pod awaitRunning(KubernetesClient client, String namespace, String app, Duration timeout) {
        try {
            await().atMost(timeout)
                    .pollInterval(Duration.ofSeconds(1))
                    .failFast(
                            "a container of app=" + app + " keeps failing", () -> crashLooping(client, namespace, app))
                    .until(() -> running(client, namespace, app).isPresent());
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "no injected pod of app=" + app + " running within " + timeout + "; its pods: "
                            + describe(pods(client, namespace, app)),
                    e);
        }
        return running(client, namespace, app).orElseThrow();
    }

    /** Per pod: its phase, container states and the operator's annotations (why it was not injected, if it says). */
    private static String describe(List<Pod> pods) {
        return pods.stream()
                .map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase() + " containers="
                        + p.getStatus().getContainerStatuses().stream()
                                .map(s -> s.getName() + ":" + s.getState())
                                .toList()
                        + " annotations="
                        + Optional.ofNullable(p.getMetadata().getAnnotations()).orElse(Map.of()).entrySet().stream()
                                .filter(a -> a.getKey().startsWith("streamsmemory.io/"))
                                .toList())
                .collect(Collectors.joining("; ", "[", "]"));
    }

    /** Until the operator's webhook configuration selects {@code namespace} (it adds namespaces that hold a policy). */
    static void awaitWebhookSelects(KubernetesClient client, String name, String namespace, Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofSeconds(1)).until(() -> {
            MutatingWebhookConfiguration c = client.admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(name)
                    .get();
            return c != null
                    && c.getWebhooks().stream()
                            .allMatch(w -> w.getNamespaceSelector().getMatchExpressions().stream()
                                    .anyMatch(r -> r.getOperator().equals("In")
                                            && r.getValues().contains(namespace)));
        });
    }

    /** How the pod's (first) init container ended: {@code Completed} for the agent's copy. */
    static String initContainerReason(Pod pod) {
        List<ContainerStatus> init = pod.getStatus().getInitContainerStatuses();
        if (init == null || init.isEmpty() || init.get(0).getState().getTerminated() == null) {
            return "not terminated: " + init;
        }
        return init.get(0).getState().getTerminated().getReason();
    }

    /** The container's log once it holds {@code text} (kubelet's, through the API server); fails with the log. */
    static String awaitLog(KubernetesClient client, Pod pod, String container, String text, Duration timeout) {
        await().atMost(timeout)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> logOf(client, pod, container).contains(text));
        return logOf(client, pod, container);
    }

    /**
     * Returns once the first line of the container's log holding {@code text} is {@code age} old by kubelet's own
     * timestamp (at once when it already is): what a fixed sleep after that line checked ("still running 20 s past its
     * start"), without sleeping again through time the class already spent on other cases.
     */
    static void awaitLineAged(KubernetesClient client, Pod pod, String container, String text, Duration age)
            throws InterruptedException {
        String line = client.pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .inContainer(container)
                .usingTimestamps()
                .getLog()
                .lines()
                .filter(l -> l.contains(text))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "no line with '" + text + "' in " + pod.getMetadata().getName()));
        Instant due = Instant.parse(line.substring(0, line.indexOf(' '))).plus(age);
        long millis = Duration.between(Instant.now(), due).toMillis();
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    /** The container's log so far (kubelet's, through the API server). */
    static String logOf(KubernetesClient client, Pod pod, String container) {
        return client.pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .inContainer(container)
                .getLog();
    }

    private static Optional<Pod> ready(KubernetesClient client, String namespace, String app) {
        return pods(client, namespace, app).stream()
                .filter(p -> p.getStatus().getConditions().stream()
                        .anyMatch(c ->
                                c.getType().equals("Ready") && c.getStatus().equals("True")))
                .findFirst();
    }

    private static Optional<Pod> running(KubernetesClient client, String namespace, String app) {
        return pods(client, namespace, app).stream()
                .filter(p -> p.getMetadata().getAnnotations().containsKey(MetadataKeys.ALLOCATION_HASH))
                .filter(p -> "Running".equals(p.getStatus().getPhase()))
                .filter(p -> p.getStatus().getContainerStatuses().stream()
                        .allMatch(s -> s.getState().getRunning() != null))
                .findFirst();
    }

    private static boolean crashLooping(KubernetesClient client, String namespace, String app) {
        return pods(client, namespace, app).stream()
                .flatMap(p -> p.getStatus().getContainerStatuses().stream())
                .anyMatch(s -> s.getRestartCount() != null && s.getRestartCount() >= 2);
    }

    private static List<Pod> pods(KubernetesClient client, String namespace, String app) {
        return client.pods().inNamespace(namespace).withLabel("app", app).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }
}
