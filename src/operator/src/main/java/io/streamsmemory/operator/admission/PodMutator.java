package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookSettings.AGENT_JAR;
import static io.streamsmemory.operator.admission.WebhookSettings.AGENT_VOLUME;
import static io.streamsmemory.operator.admission.WebhookSettings.ALLOCATION_VOLUME;
import static io.streamsmemory.operator.admission.WebhookSettings.INIT_CONTAINER;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.operator.reconcile.WorkloadAnnotations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides what to change in a pod of an opted-in workload and writes it as JSON Patch operations on the
 * pod exactly as the API server sent it (no model round trip, so fields this code does not know survive).
 *
 * <p>Only the target container changes; the pod gains one init container, two volumes and annotations.
 * {@code JAVA_TOOL_OPTIONS} is created, or appended to when it is a literal; a flag the user already set
 * in it wins over the allocation's (a heap setting of the user's, -Xmx or a RAM percentage, keeps both
 * -Xms and -Xmx out). {@code MALLOC_ARENA_MAX} and {@code STREAMS_MEMORY_ALLOCATION} are added unless
 * the user set them. The pod is left as it is, with a reason, when: it was injected already;
 * {@code JAVA_TOOL_OPTIONS} comes from {@code valueFrom}; the container's memory limit is below the
 * allocation's memory (the heap would not fit); or one of the names or paths it would add is taken.
 */
public final class PodMutator {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    static final String JAVA_TOOL_OPTIONS = "JAVA_TOOL_OPTIONS";
    static final String MALLOC_ARENA_MAX = "MALLOC_ARENA_MAX";
    static final String STREAMS_MEMORY_ALLOCATION = "STREAMS_MEMORY_ALLOCATION";
    /** Flags that set the heap size: when the user sets one, the allocation's -Xms/-Xmx stay out. */
    private static final Set<String> HEAP_FLAGS = Set.of("-Xmx", "-Xms", "-XX:MaxHeapSize", "-XX:InitialHeapSize",
            "-XX:MaxRAMPercentage", "-XX:InitialRAMPercentage", "-XX:MinRAMPercentage", "-XX:MaxRAM",
            "-XX:MaxRAMFraction", "-XX:InitialRAMFraction", "-XX:MinRAMFraction");

    /** What happens to a pod. */
    public sealed interface Outcome permits Unchanged, Skipped, Patched {
    }

    /** Not ours to touch, or already injected. */
    public record Unchanged(String reason) implements Outcome {
    }

    /** Ours, but left as it is; the reason goes into an Event, a warning and an annotation. */
    public record Skipped(String reason, ArrayNode patch) implements Outcome {
    }

    /** Injected. */
    public record Patched(ArrayNode patch, String container, List<String> warnings) implements Outcome {
    }

    private final WebhookSettings settings;

    public PodMutator(WebhookSettings settings) {
        this.settings = settings;
    }

    public Outcome mutate(JsonNode pod, InjectionTarget target) {
        JsonNode annotations = pod.path("metadata").path("annotations");
        if (annotations.has(WorkloadAnnotations.ALLOCATION_HASH) || annotations.has(WorkloadAnnotations.INJECTION_SKIPPED)
                || hasNamed(pod.path("spec").path("initContainers"), INIT_CONTAINER)) {
            return new Unchanged("already injected");
        }
        JsonNode containers = pod.path("spec").path("containers");
        if (!containers.isArray() || containers.isEmpty()) {
            return new Unchanged("no containers");
        }
        int index = 0;
        if (target.containerName() != null) {
            for (int i = 0; i < containers.size(); i++) {
                if (target.containerName().equals(containers.get(i).path("name").asText())) {
                    index = i;
                    break;
                }
            }
        }
        JsonNode container = containers.get(index);
        String name = container.path("name").asText();
        PublishedAllocation allocation = target.allocation();

        JsonNode env = container.path("env");
        int javaToolOptions = indexOfNamed(env, JAVA_TOOL_OPTIONS);
        if (javaToolOptions >= 0 && env.get(javaToolOptions).has("valueFrom")) {
            return skipped(pod, String.format("container %s takes %s from valueFrom, so the operator cannot add the "
                    + "agent and the JVM flags of allocation %s to it; make it a literal value (the operator appends to "
                    + "it) or add them yourself", name, JAVA_TOOL_OPTIONS, allocation.hash()));
        }
        Long limit = memoryLimit(container);
        if (limit != null && limit < allocation.memoryBytes()) {
            return skipped(pod, String.format("container %s has a memory limit of %s, below the %s allocation %s "
                            + "divides; its heap would not fit, so nothing was injected (the operator re-splits for the "
                            + "workload's limit: restart the pod once the allocation follows)", name,
                    ByteSize.format(limit), ByteSize.format(allocation.memoryBytes()), allocation.hash()));
        }
        Long heap = maxHeap(allocation.jvmOptions());
        if (limit != null && heap != null && heap >= limit) {
            return skipped(pod, String.format("the allocation's heap (%s) would not fit container %s's memory limit "
                    + "(%s); nothing was injected", ByteSize.format(heap), name, ByteSize.format(limit)));
        }
        String conflict = conflict(pod, container);
        if (conflict != null) {
            return skipped(pod, conflict + "; nothing was injected");
        }

        List<String> warnings = new ArrayList<>();
        ArrayNode patch = JSON.arrayNode();
        String containerPath = "/spec/containers/" + index;
        append(patch, pod.path("spec").path("initContainers"), "/spec/initContainers", initContainer());
        append(patch, pod.path("spec").path("volumes"), "/spec/volumes", agentVolume());
        append(patch, pod.path("spec").path("volumes"), "/spec/volumes", allocationVolume(target.configMapName()));
        append(patch, container.path("volumeMounts"), containerPath + "/volumeMounts",
                mount(AGENT_VOLUME, settings.agentMountPath));
        append(patch, container.path("volumeMounts"), containerPath + "/volumeMounts",
                mount(ALLOCATION_VOLUME, settings.allocationMountPath));

        List<ObjectNode> newEnv = new ArrayList<>();
        if (javaToolOptions >= 0) {
            String user = env.get(javaToolOptions).path("value").asText("");
            String value = javaToolOptions(user, allocation.jvmOptions(), warnings);
            patch.add(op(env.get(javaToolOptions).has("value") ? "replace" : "add",
                    containerPath + "/env/" + javaToolOptions + "/value", JSON.textNode(value)));
        } else {
            newEnv.add(envVar(JAVA_TOOL_OPTIONS, javaToolOptions("", allocation.jvmOptions(), warnings)));
        }
        if (indexOfNamed(env, STREAMS_MEMORY_ALLOCATION) < 0) {
            newEnv.add(envVar(STREAMS_MEMORY_ALLOCATION, settings.allocationFileInPod()));
        }
        if (indexOfNamed(env, MALLOC_ARENA_MAX) < 0 && settings.mallocArenaMax != null
                && !settings.mallocArenaMax.isBlank()) {
            newEnv.add(envVar(MALLOC_ARENA_MAX, settings.mallocArenaMax));
        }
        for (ObjectNode variable : newEnv) {
            append(patch, env, containerPath + "/env", variable);
        }

        Map<String, String> added = new LinkedHashMap<>();
        added.put(WorkloadAnnotations.ALLOCATION_HASH, allocation.hash());
        if (allocation.restartHash() != null) {
            added.put(WorkloadAnnotations.APPLIED_RESTART_HASH, allocation.restartHash());
        }
        added.put(WorkloadAnnotations.INJECTED_CONTAINER, name);
        annotate(patch, pod, added);
        return new Patched(patch, name, warnings);
    }

    /** The user's literal value first, then the agent and the allocation's flags the user did not set. */
    String javaToolOptions(String user, List<String> allocationFlags, List<String> warnings) {
        List<String> userTokens = user.isBlank() ? List.of() : List.of(user.trim().split("\\s+"));
        Set<String> userKeys = new LinkedHashSet<>();
        userTokens.forEach(t -> userKeys.add(flagKey(t)));
        boolean userHeap = userKeys.stream().anyMatch(HEAP_FLAGS::contains);
        List<String> injected = new ArrayList<>();
        injected.add("-javaagent:" + settings.agentJarInPod());
        for (String flag : allocationFlags) {
            String key = flagKey(flag);
            boolean heapFlag = key.equals("-Xmx") || key.equals("-Xms");
            if (userKeys.contains(key) || (heapFlag && userHeap)) {
                warnings.add(String.format("%s keeps the user's setting instead of the allocation's %s",
                        JAVA_TOOL_OPTIONS, flag));
                continue;
            }
            injected.add(flag);
        }
        String ours = String.join(" ", injected);
        return user.isBlank() ? ours : user.trim() + " " + ours;
    }

    /** "-Xmx1g" -> "-Xmx", "-XX:MaxMetaspaceSize=97m" -> "-XX:MaxMetaspaceSize", "-XX:+UseG1GC" -> "-XX:UseG1GC", "-Da=b" -> "-Da". */
    static String flagKey(String token) {
        for (String prefix : List.of("-Xmx", "-Xms", "-Xss", "-Xmn")) {
            if (token.startsWith(prefix)) {
                return prefix;
            }
        }
        if (token.startsWith("-XX:")) {
            String rest = token.substring(4);
            if (rest.startsWith("+") || rest.startsWith("-")) {
                rest = rest.substring(1);
            }
            int eq = rest.indexOf('=');
            return "-XX:" + (eq < 0 ? rest : rest.substring(0, eq));
        }
        if (token.startsWith("-D")) {
            int eq = token.indexOf('=');
            return eq < 0 ? token : token.substring(0, eq);
        }
        return token;
    }

    static Long maxHeap(List<String> flags) {
        for (String flag : flags) {
            if (flag.startsWith("-Xmx")) {
                return parseJvmSize(flag.substring(4));
            }
        }
        return null;
    }

    /** A JVM size: digits with an optional k/m/g/t suffix (binary units). */
    static Long parseJvmSize(String text) {
        if (text.isEmpty()) {
            return null;
        }
        char unit = Character.toLowerCase(text.charAt(text.length() - 1));
        long multiplier = switch (unit) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1;
        };
        String digits = multiplier == 1 ? text : text.substring(0, text.length() - 1);
        try {
            return Long.parseLong(digits) * multiplier;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Long memoryLimit(JsonNode container) {
        JsonNode limit = container.path("resources").path("limits").path("memory");
        if (limit.isMissingNode() || limit.isNull()) {
            return null;
        }
        return Quantity.getAmountInBytes(new Quantity(limit.asText())).longValue();
    }

    private String conflict(JsonNode pod, JsonNode container) {
        for (String volume : List.of(AGENT_VOLUME, ALLOCATION_VOLUME)) {
            if (hasNamed(pod.path("spec").path("volumes"), volume)) {
                return "the pod already has a volume named " + volume;
            }
        }
        for (JsonNode mount : iterable(container.path("volumeMounts"))) {
            String path = mount.path("mountPath").asText();
            if (path.equals(settings.agentMountPath) || path.equals(settings.allocationMountPath)) {
                return "container " + container.path("name").asText() + " already mounts something at " + path;
            }
        }
        return null;
    }

    private Skipped skipped(JsonNode pod, String reason) {
        ArrayNode patch = JSON.arrayNode();
        annotate(patch, pod, Map.of(WorkloadAnnotations.INJECTION_SKIPPED, truncate(reason)));
        return new Skipped(reason, patch);
    }

    private static String truncate(String text) {
        return text.length() <= 1000 ? text : text.substring(0, 997) + "...";
    }

    ObjectNode initContainer() {
        ObjectNode init = JSON.objectNode();
        init.put("name", INIT_CONTAINER);
        init.put("image", settings.agentImage);
        init.put("imagePullPolicy", "IfNotPresent");
        init.set("command", JSON.arrayNode().add("cp").add(settings.agentJarPath)
                .add(settings.agentMountPath + "/" + AGENT_JAR));
        ObjectNode resources = init.putObject("resources");
        resources.putObject("requests").put("cpu", settings.initCpuRequest).put("memory", settings.initMemory);
        resources.putObject("limits").put("cpu", settings.initCpuLimit).put("memory", settings.initMemory);
        ObjectNode security = init.putObject("securityContext");
        security.put("runAsNonRoot", true);
        if (settings.runAsUser != null) {
            security.put("runAsUser", settings.runAsUser);
        }
        security.put("allowPrivilegeEscalation", false);
        security.put("readOnlyRootFilesystem", true);
        security.putObject("capabilities").set("drop", JSON.arrayNode().add("ALL"));
        security.putObject("seccompProfile").put("type", "RuntimeDefault");
        init.set("volumeMounts", JSON.arrayNode().add(mount(AGENT_VOLUME, settings.agentMountPath, false)));
        return init;
    }

    private ObjectNode agentVolume() {
        ObjectNode volume = JSON.objectNode().put("name", AGENT_VOLUME);
        volume.putObject("emptyDir").put("sizeLimit", settings.volumeSizeLimit);
        return volume;
    }

    private static ObjectNode allocationVolume(String configMapName) {
        ObjectNode volume = JSON.objectNode().put("name", ALLOCATION_VOLUME);
        // Optional: a pod whose ConfigMap is gone (opt-out) still starts; the agent then warns once and runs
        // with the application's own settings. A directory mount (not subPath) follows ConfigMap updates.
        volume.putObject("configMap").put("name", configMapName).put("optional", true);
        return volume;
    }

    private static ObjectNode mount(String name, String path) {
        return mount(name, path, true);
    }

    private static ObjectNode mount(String name, String path, boolean readOnly) {
        ObjectNode mount = JSON.objectNode().put("name", name).put("mountPath", path);
        if (readOnly) {
            mount.put("readOnly", true);
        }
        return mount;
    }

    private static ObjectNode envVar(String name, String value) {
        return JSON.objectNode().put("name", name).put("value", value);
    }

    /** Adds {@code value} to the list at {@code path}, creating the list when the pod has none. */
    private static void append(ArrayNode patch, JsonNode existing, String path, JsonNode value) {
        if (existing.isArray()) {
            patch.add(op("add", path + "/-", value));
        } else if (hasOp(patch, path)) {
            patch.add(op("add", path + "/-", value));
        } else {
            patch.add(op("add", path, JSON.arrayNode().add(value)));
        }
    }

    private static boolean hasOp(ArrayNode patch, String path) {
        for (JsonNode op : patch) {
            if (op.path("path").asText().equals(path)) {
                return true;
            }
        }
        return false;
    }

    private static void annotate(ArrayNode patch, JsonNode pod, Map<String, String> annotations) {
        if (!pod.path("metadata").path("annotations").isObject()) {
            ObjectNode all = JSON.objectNode();
            annotations.forEach(all::put);
            patch.add(op("add", "/metadata/annotations", all));
            return;
        }
        annotations.forEach((key, value) -> patch.add(op("add", "/metadata/annotations/" + escape(key),
                JSON.textNode(value))));
    }

    private static ObjectNode op(String op, String path, JsonNode value) {
        ObjectNode node = JSON.objectNode().put("op", op).put("path", path);
        node.set("value", value);
        return node;
    }

    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static boolean hasNamed(JsonNode list, String name) {
        return indexOfNamed(list, name) >= 0;
    }

    private static int indexOfNamed(JsonNode list, String name) {
        if (!list.isArray()) {
            return -1;
        }
        for (int i = 0; i < list.size(); i++) {
            if (name.equals(list.get(i).path("name").asText())) {
                return i;
            }
        }
        return -1;
    }

    private static Iterable<JsonNode> iterable(JsonNode node) {
        return node.isArray() ? node : List.of();
    }
}
