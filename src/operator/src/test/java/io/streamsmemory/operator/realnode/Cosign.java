package io.streamsmemory.operator.realnode;

import io.streamsmemory.controlplane.ControlPlaneBinaries;
import io.streamsmemory.operator.Helm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The pinned cosign (src/controlplane/bin/build-cosign.sh) with a key pair made for this test run: what make publish
 * signs with ({@link #publishEnvironment}) and what a user verifies with, against the control plane's plain-HTTP
 * registry, with no transparency log. Every command stays on loopback: naming a Rekor key of our own keeps cosign from
 * asking Sigstore's TUF repository for its trusted root, which it otherwise tries even with {@code --offline}.
 */
final class Cosign {
    private final Path binary = ControlPlaneBinaries.cosign();
    private final Path privateKey;
    private final Path publicKey;
    private final String password = UUID.randomUUID().toString();

    /** A new key pair under {@code dir} ({@code cosign.key}, {@code cosign.pub}). */
    Cosign(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve("cosign.key"));
        Files.deleteIfExists(dir.resolve("cosign.pub"));
        privateKey = dir.resolve("cosign.key").toAbsolutePath();
        publicKey = dir.resolve("cosign.pub").toAbsolutePath();
        run(List.of(
                        "generate-key-pair",
                        "--output-key-prefix",
                        dir.resolve("cosign").toAbsolutePath().toString()))
                .orFail("cosign generate-key-pair");
    }

    /** publish.sh's environment for signing with this key, without the transparency log. */
    Map<String, String> publishEnvironment() {
        return Map.of(
                "SIGN_KEY",
                privateKey.toString(),
                "COSIGN_PASSWORD",
                password,
                "TLOG",
                "0",
                "COSIGN",
                binary.toString());
    }

    /** cosign verify of {@code reference} (an image or the chart, by digest) against this run's public key. */
    Helm.Result verify(String reference) {
        return run(verifying("verify", reference));
    }

    /** cosign verify-attestation of the CycloneDX SBOM attached to {@code reference}. */
    Helm.Result verifySbom(String reference) {
        return run(verifying("verify-attestation", "--type", "cyclonedx", reference));
    }

    /** {@code command}, its arguments, then this key, no transparency log and the plain-HTTP registry's flags. */
    private List<String> verifying(String command, String... arguments) {
        List<String> args = new java.util.ArrayList<>(List.of(command));
        args.addAll(List.of(arguments).subList(0, arguments.length - 1));
        args.addAll(List.of(
                "--key",
                publicKey.toString(),
                "--insecure-ignore-tlog=true",
                "--allow-http-registry",
                "--allow-insecure-registry",
                arguments[arguments.length - 1]));
        return args;
    }

    private Helm.Result run(List<String> args) {
        try {
            ProcessBuilder builder = new ProcessBuilder(
                            java.util.stream.Stream.concat(java.util.stream.Stream.of(binary.toString()), args.stream())
                                    .toList())
                    .redirectErrorStream(true);
            builder.environment().put("COSIGN_PASSWORD", password);
            builder.environment().put("SIGSTORE_REKOR_PUBLIC_KEY", publicKey.toString());
            Process process = builder.start();
            byte[] out = process.getInputStream().readAllBytes();
            process.waitFor(2, TimeUnit.MINUTES);
            return new Helm.Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
