package io.streamsmemory.operator.admission;

import static io.streamsmemory.operator.admission.WebhookSettings.AGENT_VOLUME;
import static io.streamsmemory.operator.admission.WebhookSettings.ALLOCATION_VOLUME;
import static io.streamsmemory.operator.admission.WebhookSettings.INIT_CONTAINER;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.operator.workload.MemoryLimit;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a pod of an opted-in workload is injected, and into which container, or why it is left as
 * it is. It changes nothing; {@link PodPatch} writes what it decided. The pod is skipped (with the reason on
 * the pod and in an Event) rather than changed in any way that could keep it from starting or lose a setting
 * of the user's.
 */
final class InjectionDecision {

    sealed interface Decision permits Leave, Skip, Inject {}

    /** Not ours to touch, or already injected: nothing to say. */
    record Leave(String reason) implements Decision {}

    /** Ours, but left as it is; the reason goes on the pod, into an Event and a warning. */
    record Skip(String reason) implements Decision {}

    /**
     * Inject into the container at {@code containerIndex}; {@code javaToolOptionsIndex} is the index of the
     * literal {@code JAVA_TOOL_OPTIONS} entry in force (the last of its name), or -1 when there is none;
     * {@code setByEnvFrom} the variables the webhook would add that an {@code envFrom} source sets already (the
     * user's value wins).
     */
    record Inject(int containerIndex, String container, int javaToolOptionsIndex, Set<String> setByEnvFrom)
            implements Decision {
        Inject(int containerIndex, String container, int javaToolOptionsIndex) {
            this(containerIndex, container, javaToolOptionsIndex, Set.of());
        }
    }

    private final WebhookSettings settings;

    InjectionDecision(WebhookSettings settings) {
        this.settings = settings;
    }

    Decision decide(
            JsonNode pod,
            InjectionTarget target,
            List<LimitRange> limitRanges,
            EnvFromSources.ConfigMapReader configMaps) {
        configMaps = EnvFromSources.readingEachOnce(configMaps);
        JsonNode annotations = pod.path("metadata").path("annotations");
        if (annotations.has(MetadataKeys.ALLOCATION_HASH) || annotations.has(MetadataKeys.INJECTION_SKIPPED)) {
            return new Leave("already injected");
        }
        JsonNode spec = pod.path("spec");
        String clash = nameClash(spec);
        if (clash != null) {
            return new Skip(clash + "; nothing was injected");
        }
        int index = Json.indexOfNamed(spec.path("containers"), target.containerName());
        if (target.containerName() == null || target.containerName().isBlank() || index < 0) {
            return new Skip(String.format(
                    "the pod has no container named \"%s\", the container the operator chose from "
                            + "the workload's template (annotation %s, else the template's first container); nothing was "
                            + "injected",
                    target.containerName(), MetadataKeys.CONTAINER));
        }
        JsonNode container = spec.path("containers").get(index);
        String problem = containerProblem(container, target.allocation(), configMaps);
        if (problem == null) {
            problem = LimitRangeFit.violation(settings, limitRanges);
        }
        if (problem != null) {
            return new Skip(problem + "; nothing was injected");
        }
        return new Inject(
                index,
                target.containerName(),
                Json.lastIndexOfNamed(container.path("env"), JavaToolOptions.NAME),
                setByEnvFrom(container, configMaps));
    }

    private static Set<String> setByEnvFrom(JsonNode container, EnvFromSources.ConfigMapReader configMaps) {
        Set<String> set = new HashSet<>();
        for (String variable : List.of(PodPatch.STREAMS_MEMORY_ALLOCATION, PodPatch.MALLOC_ARENA_MAX)) {
            if (EnvFromSources.sourceSetting(container, variable, configMaps) != null) {
                set.add(variable);
            }
        }
        return set;
    }

    /** Any container (regular, init, ephemeral) or volume already named like one the webhook adds. */
    private static String nameClash(JsonNode spec) {
        for (String list : List.of("containers", "initContainers", "ephemeralContainers")) {
            if (Json.indexOfNamed(spec.path(list), INIT_CONTAINER) >= 0) {
                return String.format(
                        "the pod already has a container named %s (in %s), the name of the init container "
                                + "the operator adds",
                        INIT_CONTAINER, list);
            }
        }
        for (String volume : List.of(AGENT_VOLUME, ALLOCATION_VOLUME)) {
            if (Json.indexOfNamed(spec.path("volumes"), volume) >= 0) {
                return "the pod already has a volume named " + volume + ", a name the operator adds";
            }
        }
        return null;
    }

    /** Why the target container cannot take the injection as it is, or null. */
    private String containerProblem(
            JsonNode container, PublishedAllocation allocation, EnvFromSources.ConfigMapReader configMaps) {
        String name = container.path("name").asText();
        for (JsonNode mount : Json.iterable(container.path("volumeMounts"))) {
            String path = mount.path("mountPath").asText();
            if (path.equals(settings.agentMountPath) || path.equals(settings.allocationMountPath)) {
                return "container " + name + " already mounts something at " + path;
            }
        }
        String javaToolOptions = javaToolOptionsProblem(container, configMaps);
        if (javaToolOptions != null) {
            return javaToolOptions;
        }
        Long limit = memoryLimit(container);
        if (limit != null && limit < allocation.memoryBytes()) {
            return String.format(
                    "container %s has a memory limit of %s, below the %s allocation %s divides; its heap "
                            + "would not fit (the operator re-splits for the workload's limit: restart the pod once the "
                            + "allocation follows)",
                    name, ByteSize.format(limit), ByteSize.format(allocation.memoryBytes()), allocation.hash());
        }
        if (limit != null && allocation.heapBytes() >= limit) {
            return String.format(
                    "the allocation's heap (%s) would not fit container %s's memory limit (%s)",
                    ByteSize.format(allocation.heapBytes()), name, ByteSize.format(limit));
        }
        return null;
    }

    /**
     * {@code JAVA_TOOL_OPTIONS} the webhook cannot append to without losing the user's value: from
     * {@code valueFrom} (any of its entries: the last one is in force), or from an {@code envFrom} source
     * ({@link EnvFromSources}) with no literal entry overriding it.
     */
    private static String javaToolOptionsProblem(JsonNode container, EnvFromSources.ConfigMapReader configMaps) {
        String name = container.path("name").asText();
        boolean literal = false;
        for (JsonNode variable : Json.iterable(container.path("env"))) {
            if (JavaToolOptions.NAME.equals(variable.path("name").asText())) {
                if (variable.has("valueFrom")) {
                    return String.format(
                            "container %s takes %s from valueFrom, so the operator cannot add the agent "
                                    + "and the JVM flags to it; make it a literal value (the operator appends to it) or add "
                                    + "them yourself",
                            name, JavaToolOptions.NAME);
                }
                literal = true;
            }
        }
        String source = literal ? null : EnvFromSources.sourceSetting(container, JavaToolOptions.NAME, configMaps);
        if (source != null) {
            return String.format(
                    "container %s may take %s from %s; an injected value would replace it, so nothing "
                            + "was added. Set %s in env as a literal (the operator appends to it), or give the envFrom a "
                            + "prefix",
                    name, JavaToolOptions.NAME, source, JavaToolOptions.NAME);
        }
        return null;
    }

    private static Long memoryLimit(JsonNode container) {
        JsonNode limit = container.path("resources").path("limits").path("memory");
        if (limit.isMissingNode() || limit.isNull()) {
            return null;
        }
        // Read without throwing (the pod arrives before the API server validates it; a NumberFormatException here
        // admitted it unannotated), and without wrapping a limit beyond a long. Found by PodShapeFuzzTest.
        return MemoryLimit.bytes(limit.asText()).orElse(null);
    }
}
