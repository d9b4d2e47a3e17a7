package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Function;
import org.junit.jupiter.api.TestInfo;

/**
 * Creates pods through the real API server (and so through the real webhook) and measures, for the issue's
 * do-no-harm accounting, whether each was accepted and how many of the user's own settings the admitted pod
 * lost (it waits until each accepted pod runs): containers, init containers, volumes, env and envFrom entries, and JAVA_TOOL_OPTIONS tokens in force
 * (env over envFrom, the last of a name winning), each missing or changed counting one. A test calls
 * {@link #write} after its assertions, which writes {@code target/do-no-harm/<class>.<method>.tsv}.
 */
public final class DoNoHarm {
    static final Path DIRECTORY = Path.of("target/do-no-harm");
    static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

    /**
     * One pod: as submitted, as admitted (null when the API server refused it), why it was refused, whether it
     * then ran (kwok's node runs what the scheduler binds to it), and the settings it lost.
     */
    public record Admission(
            Pod submitted, Pod admitted, KubernetesClientException refusal, boolean ran, int settingsLost) {
        public boolean started() {
            return admitted != null && ran;
        }
    }

    private final KubernetesClient client;
    private final List<Admission> admissions = new ArrayList<>();
    private final boolean realNode;
    /** Settings the application made inside its image (a framework's properties), seen lost in what it runs on. */
    private int applicationSettingsLost;

    DoNoHarm(KubernetesClient client) {
        this(client, false);
    }

    private DoNoHarm(KubernetesClient client, boolean realNode) {
        this.client = client;
        this.realNode = realNode;
    }

    /** For pods on a real node (containerd, kubelet, runc): the summary counts them as real pods. */
    public static DoNoHarm onRealNode(KubernetesClient client) {
        return new DoNoHarm(client, true);
    }

    /**
     * Records a pod a controller created from {@code template} (a Deployment's pod template, as the user wrote it),
     * once the test has seen it run or fail: the settings lost are counted against the template.
     */
    public Admission record(PodSpec template, Pod admitted, boolean ran) {
        Pod submitted = new Pod();
        submitted.setMetadata(admitted.getMetadata());
        submitted.setSpec(template);
        Admission admission = new Admission(submitted, admitted, null, ran, settingsLost(submitted, admitted));
        admissions.add(admission);
        return admission;
    }

    /**
     * Records one setting the application made where no pod spec shows it (a framework's properties file in its
     * image), as kept or lost in what the application runs on (Kafka's own log of its configuration).
     */
    public void recordApplicationSetting(boolean kept) {
        applicationSettingsLost += kept ? 0 : 1;
    }

    /** Creates {@code pod}; a refusal is recorded (not thrown) so the test can assert on it. */
    Admission admit(Pod pod) {
        Admission admission;
        try {
            Pod admitted = client.resource(pod).create();
            admission = new Admission(pod, admitted, null, ran(admitted), settingsLost(pod, admitted));
        } catch (KubernetesClientException refused) {
            admission = new Admission(pod, null, refused, false, settingsLost(pod, null));
        }
        admissions.add(admission);
        return admission;
    }

    private boolean ran(Pod admitted) {
        try {
            client.pods()
                    .resource(admitted)
                    .waitUntilCondition(
                            p -> p != null
                                    && p.getStatus() != null
                                    && "Running".equals(p.getStatus().getPhase()),
                            RUN_TIMEOUT.toSeconds(),
                            TimeUnit.SECONDS);
            return true;
        } catch (KubernetesClientException notRunning) {
            return false;
        }
    }

    /**
     * Writes the test's line: {@code case<N>, test name, started=<all accepted>, settings_lost=<sum>,
     * real_pods=<pods recorded on a real node>}.
     */
    public void write(int caseNumber, TestInfo test) {
        write(
                caseNumber,
                test.getTestClass().orElseThrow(),
                test.getTestMethod().orElseThrow().getName());
    }

    /** The line of {@link #write(int, TestInfo)}, for a test named here. */
    public void write(int caseNumber, Class<?> testClass, String method) {
        boolean started = !admissions.isEmpty() && admissions.stream().allMatch(Admission::started);
        int lost = admissions.stream().mapToInt(Admission::settingsLost).sum() + applicationSettingsLost;
        String name = testClass.getSimpleName() + "." + method;
        String line = String.format(
                "case%d\t%s\tstarted=%s\tsettings_lost=%d\treal_pods=%d%n",
                caseNumber, name, started, lost, realNode ? admissions.size() : 0);
        try {
            Files.createDirectories(DIRECTORY);
            Files.writeString(DIRECTORY.resolve(name + ".tsv"), line, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int settingsLost(Pod submitted, Pod admitted) {
        PodSpec before = submitted.getSpec();
        PodSpec after = admitted == null ? new PodSpec() : admitted.getSpec();
        int lost = containersLost(before.getContainers(), after.getContainers(), submitted);
        lost += containersLost(before.getInitContainers(), after.getInitContainers(), submitted);
        lost += lost(before.getVolumes(), after.getVolumes(), Volume::getName, DoNoHarm::sameVolume);
        return lost;
    }

    private int containersLost(List<Container> before, List<Container> after, Pod pod) {
        int lost = 0;
        Map<String, Container> admitted = byName(after, Container::getName);
        for (Container container : nonNull(before)) {
            Container now = admitted.get(container.getName());
            if (now == null) {
                lost += 1
                        + nonNull(container.getEnv()).size()
                        + nonNull(container.getEnvFrom()).size();
                continue;
            }
            if (!sameContainer(container, now)) {
                lost++;
            }
            lost += envLost(container, now);
            lost += tokensLost(effectiveEnv(container, pod), effectiveEnv(now, pod));
        }
        return lost;
    }

    /** Entries of env and envFrom missing or changed; only JAVA_TOOL_OPTIONS may grow, after the user's value. */
    private static int envLost(Container before, Container after) {
        int lost = 0;
        List<EnvVar> env = nonNull(after.getEnv());
        List<EnvVar> submitted = nonNull(before.getEnv());
        for (int i = 0; i < submitted.size(); i++) {
            EnvVar was = submitted.get(i);
            EnvVar now = i < env.size() ? env.get(i) : null;
            boolean kept = now != null
                    && was.getName().equals(now.getName())
                    && Objects.equals(was.getValueFrom(), now.getValueFrom())
                    && (Objects.equals(was.getValue(), now.getValue())
                            || ("JAVA_TOOL_OPTIONS".equals(was.getName())
                                    && was.getValue() != null
                                    && now.getValue() != null
                                    && now.getValue().startsWith(was.getValue().trim())));
            lost += kept ? 0 : 1;
        }
        List<EnvFromSource> from = nonNull(after.getEnvFrom());
        for (int i = 0; i < nonNull(before.getEnvFrom()).size(); i++) {
            lost += i < from.size() && before.getEnvFrom().get(i).equals(from.get(i)) ? 0 : 1;
        }
        return lost;
    }

    /**
     * Variables in force before that are gone or changed after; JAVA_TOOL_OPTIONS counts per token lost (the
     * injection may add tokens, never remove the user's).
     */
    private static int tokensLost(Map<String, String> before, Map<String, String> after) {
        int lost = 0;
        for (Map.Entry<String, String> variable : before.entrySet()) {
            String now = after.get(variable.getKey());
            if (!"JAVA_TOOL_OPTIONS".equals(variable.getKey())) {
                lost += Objects.equals(variable.getValue(), now) ? 0 : 1;
                continue;
            }
            List<String> tokens = new ArrayList<>(tokens(now));
            for (String token : tokens(variable.getValue())) {
                lost += tokens.remove(token) ? 0 : 1;
            }
        }
        return lost;
    }

    private static List<String> tokens(String value) {
        return value == null || value.isBlank()
                ? List.of()
                : List.of(value.trim().split("\\s+"));
    }

    /** What the container's process sees: envFrom sources in order, then env (the last of a name wins). */
    private Map<String, String> effectiveEnv(Container container, Pod pod) {
        Map<String, String> env = new LinkedHashMap<>();
        String namespace = pod.getMetadata().getNamespace();
        for (EnvFromSource source : nonNull(container.getEnvFrom())) {
            String prefix = Objects.requireNonNullElse(source.getPrefix(), "");
            if (source.getConfigMapRef() != null) {
                ConfigMap map = client.configMaps()
                        .inNamespace(namespace)
                        .withName(source.getConfigMapRef().getName())
                        .get();
                if (map != null && map.getData() != null) {
                    map.getData().forEach((k, v) -> env.put(prefix + k, v));
                }
            } else if (source.getSecretRef() != null) {
                Secret secret = client.secrets()
                        .inNamespace(namespace)
                        .withName(source.getSecretRef().getName())
                        .get();
                if (secret != null && secret.getData() != null) {
                    secret.getData()
                            .forEach((k, v) -> env.put(
                                    prefix + k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
                }
            }
        }
        for (EnvVar variable : nonNull(container.getEnv())) {
            env.put(
                    variable.getName(),
                    variable.getValueFrom() != null
                            ? "valueFrom:" + variable.getValueFrom()
                            : Objects.requireNonNullElse(variable.getValue(), ""));
        }
        return env;
    }

    /** What the user set is still there: image, command, args, resources, security context, their mounts. */
    private static boolean sameContainer(Container before, Container after) {
        return Objects.equals(before.getImage(), after.getImage())
                && Objects.equals(before.getCommand(), after.getCommand())
                && Objects.equals(before.getArgs(), after.getArgs())
                && keeps(before.getResources(), after.getResources())
                && (before.getSecurityContext() == null
                        || Objects.equals(before.getSecurityContext(), after.getSecurityContext()))
                && nonNull(after.getVolumeMounts()).containsAll(nonNull(before.getVolumeMounts()));
    }

    /** Every request and limit the user set, unchanged (the API server adds requests equal to lone limits). */
    private static boolean keeps(ResourceRequirements before, ResourceRequirements after) {
        if (before == null) {
            return true;
        }
        return after != null
                && containsAll(after.getRequests(), before.getRequests())
                && containsAll(after.getLimits(), before.getLimits());
    }

    private static boolean containsAll(Map<String, Quantity> after, Map<String, Quantity> before) {
        return before == null
                || before.entrySet().stream()
                        .allMatch(e -> after != null
                                && after.containsKey(e.getKey())
                                && Quantity.getAmountInBytes(after.get(e.getKey()))
                                                .compareTo(Quantity.getAmountInBytes(e.getValue()))
                                        == 0);
    }

    private static boolean sameVolume(Volume before, Volume after) {
        return Objects.equals(before.getEmptyDir() != null, after.getEmptyDir() != null)
                && Objects.equals(
                        before.getConfigMap() == null
                                ? null
                                : before.getConfigMap().getName(),
                        after.getConfigMap() == null
                                ? null
                                : after.getConfigMap().getName())
                && Objects.equals(
                        before.getSecret() == null ? null : before.getSecret().getSecretName(),
                        after.getSecret() == null ? null : after.getSecret().getSecretName());
    }

    private static <T> int lost(List<T> before, List<T> after, Function<T, String> name, BiPredicate<T, T> same) {
        Map<String, T> admitted = byName(after, name);
        int lost = 0;
        for (T item : nonNull(before)) {
            T now = admitted.get(name.apply(item));
            lost += now != null && same.test(item, now) ? 0 : 1;
        }
        return lost;
    }

    private static <T> Map<String, T> byName(List<T> items, Function<T, String> name) {
        Map<String, T> result = new LinkedHashMap<>();
        nonNull(items).forEach(item -> result.put(name.apply(item), item));
        return result;
    }

    private static <T> List<T> nonNull(List<T> list) {
        return list == null ? List.of() : list;
    }
}
