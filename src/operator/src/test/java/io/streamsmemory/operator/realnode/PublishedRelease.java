package io.streamsmemory.operator.realnode;

import io.streamsmemory.operator.Helm;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * One version of the operator as {@code make publish} pushes it to the control plane's registry: the six images and
 * the chart (an OCI artifact), each signed, with the references its script printed ({@code <name> <reference>} per
 * line).
 *
 * @param registry {@code 127.0.0.1:<port>/streams-memory}, plain HTTP
 * @param references by name ({@code operator}, {@code agent}, ..., and {@code chart}): {@code <repository>:<tag>@<digest>}
 */
record PublishedRelease(String registry, String version, Map<String, String> references, String output) {
    static final Path PUBLISH = Path.of("../scripts/publish.sh");

    /**
     * src/scripts/publish.sh of {@code chart} at {@code version} to {@code registry}, signed with {@code cosign}'s key;
     * fails with its output.
     */
    static PublishedRelease publish(Helm helm, String registry, String version, Path chart, Cosign cosign) {
        Map<String, String> env = new TreeMap<>(cosign.publishEnvironment());
        env.put("CHART", chart.toAbsolutePath().toString());
        String output = helm.script(env, PUBLISH, registry, version)
                .orFail("publish.sh " + registry + " " + version)
                .output();
        Map<String, String> references = new TreeMap<>();
        for (String line : output.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length == 2 && fields[1].contains("@sha256:")) {
                references.put(fields[0], fields[1].replaceFirst("^oci://", ""));
            }
        }
        if (references.size() != 7 || !output.contains("signed 7 references; attached 4 SBOMs")) {
            throw new AssertionError(
                    "publish.sh printed " + references.keySet() + ", not six signed images and the chart:\n" + output);
        }
        return new PublishedRelease(registry, version, references, output);
    }

    /** What helm installs: {@code oci://<registry>/charts/streams-memory-operator}. */
    String chartReference() {
        return "oci://" + registry + "/charts/streams-memory-operator";
    }

    String digest(String name) {
        String reference = references.get(name);
        return reference.substring(reference.indexOf('@') + 1);
    }
}
