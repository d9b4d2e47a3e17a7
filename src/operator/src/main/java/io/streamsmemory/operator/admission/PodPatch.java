package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookSettings.AGENT_JAR;
import static io.streamsmemory.operator.admission.WebhookSettings.AGENT_VOLUME;
import static io.streamsmemory.operator.admission.WebhookSettings.ALLOCATION_VOLUME;
import static io.streamsmemory.operator.admission.WebhookSettings.INIT_CONTAINER;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes what {@link InjectionDecision} decided as JSON Patch operations on the pod exactly as the API server
 * sent it (no model round trip, so fields this code does not know survive). Only adds, except the value of the
 * user's literal {@code JAVA_TOOL_OPTIONS} in force, which keeps the user's value first.
 */
final class PodPatch {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    static final String MALLOC_ARENA_MAX = "MALLOC_ARENA_MAX";
    static final String STREAMS_MEMORY_ALLOCATION = "STREAMS_MEMORY_ALLOCATION";
    static final String STREAMS_MEMORY_REPORT_PORT = WebhookSettings.REPORT_PORT_VARIABLE;

    private final WebhookSettings settings;

    PodPatch(WebhookSettings settings) {
        this.settings = settings;
    }

    /** The injection into the decided container; JVM flags the user's own settings override add warnings. */
    ArrayNode inject(JsonNode pod, InjectionDecision.Inject decision, InjectionTarget target, List<String> warnings) {
        ArrayNode patch = JSON.arrayNode();
        JsonNode spec = pod.path("spec");
        append(patch, spec.path("initContainers"), "/spec/initContainers", new InitContainer(settings).json());
        append(patch, spec.path("volumes"), "/spec/volumes", agentVolume());
        append(patch, spec.path("volumes"), "/spec/volumes", allocationVolume(target.configMapName()));
        for (String secret : settings.imagePullSecrets) {
            if (Json.indexOfNamed(spec.path("imagePullSecrets"), secret) < 0) {
                append(
                        patch,
                        spec.path("imagePullSecrets"),
                        "/spec/imagePullSecrets",
                        JSON.objectNode().put("name", secret));
            }
        }
        JsonNode container = spec.path("containers").get(decision.containerIndex());
        String containerPath = "/spec/containers/" + decision.containerIndex();
        append(
                patch,
                container.path("volumeMounts"),
                containerPath + "/volumeMounts",
                mount(AGENT_VOLUME, settings.agentMountPath, true));
        append(
                patch,
                container.path("volumeMounts"),
                containerPath + "/volumeMounts",
                mount(ALLOCATION_VOLUME, settings.allocationMountPath, true));
        env(patch, container, containerPath, decision, target.allocation(), warnings);
        if (settings.reportPort != null
                && unset(container, decision, STREAMS_MEMORY_REPORT_PORT)
                && !portDeclared(spec, settings.reportPort)) {
            append(
                    patch,
                    container.path("env"),
                    containerPath + "/env",
                    envVar(STREAMS_MEMORY_REPORT_PORT, Integer.toString(settings.reportPort)));
        }
        label(patch, pod, MetadataKeys.INJECTED_LABEL, "true");

        Map<String, String> added = new LinkedHashMap<>();
        added.put(MetadataKeys.ALLOCATION_HASH, target.allocation().hash());
        if (target.allocation().restartHash() != null) {
            added.put(MetadataKeys.APPLIED_RESTART_HASH, target.allocation().restartHash());
        }
        added.put(MetadataKeys.INJECTED_CONTAINER, decision.container());
        annotate(patch, pod, added);
        return patch;
    }

    /** Only the annotation saying why the pod was left as it was. */
    static ArrayNode skip(JsonNode pod, String reason) {
        String text = reason.length() <= 1000 ? reason : reason.substring(0, 997) + "...";
        return annotated(pod, Map.of(MetadataKeys.INJECTION_SKIPPED, text));
    }

    /** The pod with these annotations added (or set), nothing else. */
    static ArrayNode annotated(JsonNode pod, Map<String, String> annotations) {
        ArrayNode patch = JSON.arrayNode();
        annotate(patch, pod, annotations);
        return patch;
    }

    private void env(
            ArrayNode patch,
            JsonNode container,
            String containerPath,
            InjectionDecision.Inject decision,
            PublishedAllocation allocation,
            List<String> warnings) {
        JsonNode env = container.path("env");
        int javaToolOptions = decision.javaToolOptionsIndex();
        if (javaToolOptions >= 0) {
            JsonNode entry = env.get(javaToolOptions);
            String value = JavaToolOptions.merge(
                    entry.path("value").asText(""), settings.agentJarInPod(), allocation.jvmOptions(), warnings);
            patch.add(op(
                    entry.has("value") ? "replace" : "add",
                    containerPath + "/env/" + javaToolOptions + "/value",
                    JSON.textNode(value)));
        } else {
            append(
                    patch,
                    env,
                    containerPath + "/env",
                    envVar(
                            JavaToolOptions.NAME,
                            JavaToolOptions.merge("", settings.agentJarInPod(), allocation.jvmOptions(), warnings)));
        }
        // Added only when neither env nor an envFrom source sets them already: the user's value wins.
        if (unset(container, decision, STREAMS_MEMORY_ALLOCATION)) {
            append(
                    patch,
                    env,
                    containerPath + "/env",
                    envVar(STREAMS_MEMORY_ALLOCATION, settings.allocationFileInPod()));
        }
        if (settings.mallocArenaMax != null
                && !settings.mallocArenaMax.isBlank()
                && unset(container, decision, MALLOC_ARENA_MAX)) {
            append(patch, env, containerPath + "/env", envVar(MALLOC_ARENA_MAX, settings.mallocArenaMax));
        }
    }

    /** True when a container of the pod declares {@code port}: the report then stays off rather than collide. */
    private static boolean portDeclared(JsonNode spec, int port) {
        for (JsonNode container : spec.path("containers")) {
            for (JsonNode declared : container.path("ports")) {
                if (declared.path("containerPort").asInt(-1) == port) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean unset(JsonNode container, InjectionDecision.Inject decision, String variable) {
        return Json.indexOfNamed(container.path("env"), variable) < 0
                && !decision.setByEnvFrom().contains(variable);
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

    static ObjectNode mount(String name, String path, boolean readOnly) {
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
        boolean created = existing.isArray();
        for (JsonNode earlier : patch) {
            created |= earlier.path("path").asText().equals(path);
        }
        patch.add(
                created
                        ? op("add", path + "/-", value)
                        : op("add", path, JSON.arrayNode().add(value)));
    }

    private static void label(ArrayNode patch, JsonNode pod, String key, String value) {
        if (!pod.path("metadata").path("labels").isObject()) {
            patch.add(op("add", "/metadata/labels", JSON.objectNode().put(key, value)));
        } else {
            patch.add(op("add", "/metadata/labels/" + escape(key), JSON.textNode(value)));
        }
    }

    private static void annotate(ArrayNode patch, JsonNode pod, Map<String, String> annotations) {
        if (!pod.path("metadata").path("annotations").isObject()) {
            ObjectNode all = JSON.objectNode();
            annotations.forEach(all::put);
            patch.add(op("add", "/metadata/annotations", all));
            return;
        }
        annotations.forEach(
                (key, value) -> patch.add(op("add", "/metadata/annotations/" + escape(key), JSON.textNode(value))));
    }

    private static ObjectNode op(String op, String path, JsonNode value) {
        ObjectNode node = JSON.objectNode().put("op", op).put("path", path);
        node.set("value", value);
        return node;
    }

    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    /** The init container copying the agent jar into the shared emptyDir, restricted-PSS compliant. */
    private record InitContainer(WebhookSettings settings) {
        ObjectNode json() {
            ObjectNode init = JSON.objectNode();
            init.put("name", INIT_CONTAINER);
            init.put("image", settings.agentImage);
            init.put("imagePullPolicy", "IfNotPresent");
            init.set(
                    "command",
                    JSON.arrayNode()
                            .add("cp")
                            .add(settings.agentJarPath)
                            .add(settings.agentMountPath + "/" + AGENT_JAR));
            ObjectNode resources = init.putObject("resources");
            putAll(resources, "requests", settings.initCpuRequest, settings.initMemoryRequest);
            putAll(resources, "limits", settings.initCpuLimit, settings.initMemoryLimit);
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

        private static void putAll(ObjectNode resources, String field, String cpu, String memory) {
            if (cpu == null && memory == null) {
                return;
            }
            ObjectNode values = resources.putObject(field);
            if (cpu != null) {
                values.put("cpu", cpu);
            }
            if (memory != null) {
                values.put("memory", memory);
            }
        }
    }
}
