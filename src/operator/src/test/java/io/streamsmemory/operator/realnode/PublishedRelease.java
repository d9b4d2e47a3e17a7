package io.streamsmemory.operator.realnode;

import io.streamsmemory.operator.Helm;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * One version of the operator as {@code make publish} pushes it to the control plane's registry: the six images and
 * the chart (an OCI artifact), with the digests its script printed ({@code <name> <reference>@<digest>} per line).
 *
 * @param registry {@code 127.0.0.1:<port>/streams-memory}, plain HTTP
 * @param digests by name ({@code operator}, {@code agent}, ..., and {@code chart})
 */
record PublishedRelease(String registry, String version, Map<String, String> digests, String output) {
    static final Path PUBLISH = Path.of("../scripts/publish.sh");

    /** src/scripts/publish.sh of {@code chart} at {@code version} to {@code registry}; fails with its output. */
    static PublishedRelease publish(Helm helm, String registry, String version, Path chart) {
        String output = helm.script(Map.of("CHART", chart.toAbsolutePath().toString()), PUBLISH, registry, version)
                .orFail("publish.sh " + registry + " " + version)
                .output();
        Map<String, String> digests = new TreeMap<>();
        for (String line : output.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length == 2 && fields[1].contains("@sha256:")) {
                digests.put(fields[0], fields[1].substring(fields[1].indexOf('@') + 1));
            }
        }
        if (digests.size() != 7) {
            throw new AssertionError(
                    "publish.sh printed " + digests.keySet() + ", not six images and the chart:\n" + output);
        }
        return new PublishedRelease(registry, version, digests, output);
    }

    /** What helm installs: {@code oci://<registry>/charts/streams-memory-operator}. */
    String chartReference() {
        return "oci://" + registry + "/charts/streams-memory-operator";
    }

    String digest(String name) {
        return digests.get(name);
    }
}
