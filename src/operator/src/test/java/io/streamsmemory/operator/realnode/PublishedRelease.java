package io.streamsmemory.operator.realnode;

import io.streamsmemory.controlplane.ControlPlaneBinaries;
import io.streamsmemory.operator.Helm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * One version of the operator as {@code make publish} pushes it to the control plane's registry: the six images and
 * the chart (an OCI artifact), signed or not, with the references its script printed ({@code <name> <reference>} per
 * line).
 *
 * @param registry {@code 127.0.0.1:<port>/streams-memory}, plain HTTP
 * @param references by name ({@code operator}, {@code agent}, ..., and {@code chart}): {@code <repository>:<tag>@<digest>}
 */
record PublishedRelease(String registry, String version, Map<String, String> references, String output) {
    static final Path PUBLISH = Path.of("../scripts/publish.sh");
    static final Path SIGN = Path.of("../scripts/sign.sh");
    static final String SIGNED = "signed 7 references; attached 4 SBOMs";

    /**
     * src/scripts/publish.sh of {@code chart} at {@code version} to {@code registry}, signed with {@code cosign}'s key;
     * fails with its output.
     */
    static PublishedRelease publish(Helm helm, String registry, String version, Path chart, Cosign cosign) {
        return publish(helm, registry, version, chart, cosign.publishEnvironment(), SIGNED);
    }

    /**
     * The same, unsigned: what the real-node classes install before cosign is built ({@link #sign} signs it later,
     * by digest, as a user signs a version pushed earlier).
     */
    static PublishedRelease publishUnsigned(Helm helm, String registry, String version, Path chart) {
        return publish(helm, registry, version, chart, Map.of(), "not signed");
    }

    private static PublishedRelease publish(
            Helm helm, String registry, String version, Path chart, Map<String, String> signing, String says) {
        Map<String, String> env = new TreeMap<>(signing);
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
        if (references.size() != 7 || !output.contains(says)) {
            throw new AssertionError("publish.sh printed " + references.keySet()
                    + ", not six images and the chart, or not '" + says + "':\n" + output);
        }
        return new PublishedRelease(registry, version, references, output);
    }

    /**
     * src/scripts/sign.sh of these references (written to {@code dir}/published-{@code version}.txt), with the SBOMs
     * of make images; fails with its output unless it signed all seven and attached the four images' SBOMs.
     */
    void sign(Helm helm, Cosign cosign, Path dir) throws IOException {
        Path published = dir.resolve("published-" + version + ".txt");
        StringBuilder lines = new StringBuilder();
        references.forEach((name, reference) ->
                lines.append(name).append(' ').append(reference).append('\n'));
        Files.writeString(published, lines);
        Map<String, String> env = new TreeMap<>(cosign.publishEnvironment());
        env.put("SBOMS", ControlPlaneBinaries.imagesDir().toString());
        String output = helm.script(env, SIGN, published.toAbsolutePath().toString())
                .orFail("sign.sh " + published)
                .output();
        if (!output.contains(SIGNED)) {
            throw new AssertionError("sign.sh did not say '" + SIGNED + "':\n" + output);
        }
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
