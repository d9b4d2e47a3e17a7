package io.streamsmemory.operator;

import io.streamsmemory.controlplane.ControlPlaneBinaries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The pinned {@code helm} that {@code src/controlplane/bin/build-helm.sh} builds from the Go module proxy into
 * {@code $STREAMS_MEMORY_CACHE/helm/<version>/helm} ({@link ControlPlaneBinaries#cacheRoot}). Helm's own config, cache
 * and data go under target/, never into the user's home.
 */
public final class Helm {
    public static final Path CHART = Path.of("../../deploy/helm/streams-memory-operator");

    /** What one run printed (stdout and stderr together) and how it ended. */
    public record Result(int exitCode, String output) {
        public Result orFail(String what) {
            if (exitCode != 0) {
                throw new AssertionError(what + " exited with " + exitCode + ":\n" + output);
            }
            return this;
        }
    }

    private final Path binary;
    private final Path home;
    private final Path kubeconfig;

    private Helm(Path binary, Path home, Path kubeconfig) {
        this.binary = binary;
        this.home = home;
        this.kubeconfig = kubeconfig;
    }

    /** The cached helm, or an error naming the command that builds it (a missing helm never skips the tests). */
    public static Helm locate(Path home, Path kubeconfig) {
        return new Helm(ControlPlaneBinaries.cachedGoTool("helm", "HELM_VERSION"), home, kubeconfig);
    }

    public Result run(String... args) {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(List.of(args));
        return exec(command);
    }

    /** Runs a script of the repository (make manifests' script) with this helm's environment. */
    Result script(Path script, String... args) {
        return script(Map.of(), script, args);
    }

    /** Runs a script of the repository with this helm's environment and {@code extraEnv}. */
    public Result script(Map<String, String> extraEnv, Path script, String... args) {
        List<String> command = new ArrayList<>();
        command.add(script.toAbsolutePath().toString());
        command.addAll(List.of(args));
        return exec(command, extraEnv);
    }

    private Result exec(List<String> command) {
        return exec(command, Map.of());
    }

    private Result exec(List<String> command, Map<String, String> extraEnv) {
        try {
            Files.createDirectories(home);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            Map<String, String> env = builder.environment();
            env.putAll(extraEnv);
            env.put("HELM_CONFIG_HOME", home.resolve("config").toAbsolutePath().toString());
            env.put("HELM_CACHE_HOME", home.resolve("cache").toAbsolutePath().toString());
            env.put("HELM_DATA_HOME", home.resolve("data").toAbsolutePath().toString());
            if (kubeconfig != null) {
                env.put("KUBECONFIG", kubeconfig.toAbsolutePath().toString());
            }
            Process process = builder.start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError("timed out: " + command);
            }
            return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
