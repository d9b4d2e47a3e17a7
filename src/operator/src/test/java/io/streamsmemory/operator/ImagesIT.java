package io.streamsmemory.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.controlplane.ControlPlaneBinaries;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The images of make images (src/images/build.sh, which make test runs before Maven): each Dockerfile copies files
 * the build made (an IT: it reads target/quarkus-app, which the build makes at process-classes), the images it tags are
 * the chart's default images, and each of them was built and saved for the local node. The real node's tests run them.
 * Tagged {@code images}: make test-quick, which builds no image, leaves it out.
 */
@Tag("images")
class ImagesIT {
    private static final Path REPO = Path.of("../..");
    private static final Pattern COPY = Pattern.compile("^COPY\\s+(?:--\\S+\\s+)*(.+)\\s+\\S+$", Pattern.MULTILINE);

    @Test
    void theOperatorDockerfileCopiesTheFastJarLayout() throws IOException {
        assertCopiesExist(Path.of("Dockerfile"), Path.of("target/quarkus-app"));
    }

    @Test
    void theAgentDockerfileCopiesTheAgentJarAndItsCopyProgram() throws IOException {
        // make images assembles this context: the agent jar and src/agent-image/cp.c compiled static.
        assertCopiesExist(
                REPO.resolve("src/agent-image/Dockerfile"),
                ControlPlaneBinaries.cacheRoot().resolve("images/build/agent"));
    }

    @Test
    void everyImageMakeImagesNamesWasBuiltAndSavedForTheLocalNode() throws Exception {
        List<String> names = run(List.of("make", "-s", "-C", REPO.toString(), "image-names"))
                .lines()
                .toList();
        List<String> built = Files.readAllLines(ControlPlaneBinaries.imagesDir().resolve("images.txt"));
        for (String name : names) {
            assertThat(built)
                    .as("images.txt of make images lists %s with its tarball and image id", name)
                    .anySatisfy(
                            line -> assertThat(line).matches(Pattern.quote(name) + " \\S+\\.tar sha256:[0-9a-f]{64}"));
        }
        for (String line : built) {
            assertThat(Path.of(line.split(" ")[1])).isRegularFile();
        }
    }

    @Test
    void makeImagesTagsTheChartsDefaultImages() throws Exception {
        List<String> tagged = run(List.of("make", "-s", "-C", REPO.toString(), "image-names"))
                .lines()
                .toList();
        Helm helm = Helm.locate(HelmChartTest.OUT.resolve("helm-home"), null);
        String rendered = helm.run("template", "x", Helm.CHART.toString())
                .orFail("helm template")
                .output();
        // The chart's two images come first; the others (base, pause, example application, broker) follow.
        assertThat(tagged).hasSizeGreaterThanOrEqualTo(2);
        assertThat(rendered)
                .contains("image: " + tagged.get(0))
                .contains("name: STREAMSMEMORY_WEBHOOK_AGENT_IMAGE\n              value: \"" + tagged.get(1) + "\"");
    }

    private static void assertCopiesExist(Path dockerfile, Path context) throws IOException {
        Matcher m = COPY.matcher(Files.readString(dockerfile));
        List<String> sources = new ArrayList<>();
        while (m.find()) {
            sources.addAll(List.of(m.group(1).trim().split("\\s+")));
        }
        assertThat(sources).as("COPY sources of %s", dockerfile).isNotEmpty();
        for (String source : sources) {
            assertThat(context.resolve(source))
                    .as("%s copies %s from the build context %s (build it first)", dockerfile, source, context)
                    .exists();
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as("%s: %s", command, out).isZero();
        return out;
    }
}
