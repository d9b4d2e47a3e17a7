package io.streamsmemory.controlplane;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the binaries built by {@code src/controlplane/bin/build.sh} in
 * {@code $STREAMS_MEMORY_CACHE/k8s/<version>-<os>-<arch>/} (the cache root's default is in versions.env)
 * (the layout fabric8 kube-api-test also reads under {@code KUBE_API_TEST_DIR}).
 */
public final class ControlPlaneBinaries {

    public static final String HOW_TO_BUILD =
            "run 'make control-plane-binaries' (or src/controlplane/bin/build.sh) to build them";

    private final Path dir;
    private final String kubernetesVersion;

    private ControlPlaneBinaries(Path dir, String kubernetesVersion) {
        this.dir = dir;
        this.kubernetesVersion = kubernetesVersion;
    }

    /** The pinned Kubernetes version (env K8S_VERSION overrides the one in versions.env). */
    public static String pinnedKubernetesVersion() {
        return pinned("K8S_VERSION");
    }

    /** The environment variable {@code name}, else its default in versions.env (the one the scripts source). */
    public static String pinned(String name) {
        String env = System.getenv(name);
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        return versionsEnvDefault(name);
    }

    /** The cached crane of src/controlplane/bin/build-crane.sh (the registry's server); fails naming that script. */
    public static Path crane() {
        return cachedGoTool("crane", "CRANE_VERSION");
    }

    /** The cached cosign of src/controlplane/bin/build-cosign.sh; fails naming that script. */
    public static Path cosign() {
        return cachedGoTool("cosign", "COSIGN_VERSION");
    }

    /**
     * Waits for {@code marker} (a build script's {@code .complete}) while make test's Go builds still run beside Maven:
     * {@code STREAMS_MEMORY_BUILDS_PENDING} names a file that exists until they end and names the cache root they build
     * into (src/scripts/beside-go-builds.sh). Returns at once when the marker is there or elsewhere, when no builds run,
     * or after 30 minutes; the caller then checks the marker as always and, when it is still missing, fails naming the
     * script.
     */
    public static void awaitBuilt(Path marker) {
        String pending = System.getenv("STREAMS_MEMORY_BUILDS_PENDING");
        if (pending == null || pending.isBlank() || Files.exists(marker) || !marker.startsWith(cacheBuilt(pending))) {
            return;
        }
        Path builds = Path.of(pending);
        long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
        System.err.println("[control-plane-binaries] waiting for " + marker + " (make test's Go builds run beside)");
        try {
            while (!Files.exists(marker) && Files.exists(builds) && System.nanoTime() < deadline) {
                Thread.sleep(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The cache root the pending builds write into: the first line of their file (a marker elsewhere is not awaited). */
    private static Path cacheBuilt(String pending) {
        try {
            return Path.of(Files.readAllLines(Path.of(pending)).get(0).trim());
        } catch (IOException | IndexOutOfBoundsException e) {
            return Path.of(pending); // the builds ended (the file is gone) or it says nothing: wait for none
        }
    }

    /** {@code <cache>/<name>/<version>/<name>} as build-<name>.sh's go_install_tool leaves it, checked complete. */
    public static Path cachedGoTool(String name, String versionVariable) {
        Path dir = cacheRoot().resolve(name).resolve(pinned(versionVariable));
        awaitBuilt(dir.resolve(".complete"));
        if (!Files.isExecutable(dir.resolve(name)) || !Files.isRegularFile(dir.resolve(".complete"))) {
            throw new IllegalStateException("no " + name + " in " + dir + ": build it with src/controlplane/bin/build-"
                    + name + ".sh (make " + name + "; make test does)");
        }
        return dir.resolve(name);
    }

    /**
     * Cache root: env STREAMS_MEMORY_CACHE, system property streams.memory.cache, or the default in versions.env
     * (its {@code $HOME} read as the user's home).
     */
    public static Path cacheRoot() {
        String env = System.getenv("STREAMS_MEMORY_CACHE");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        String prop = System.getProperty("streams.memory.cache");
        if (prop != null && !prop.isBlank()) {
            return Path.of(prop);
        }
        return Path.of(versionsEnvDefault("STREAMS_MEMORY_CACHE").replace("$HOME", System.getProperty("user.home")));
    }

    /** This host's platform as Go names it ({@code linux-amd64}), as common.sh names the cache folder. */
    static String hostPlatform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).replace("mac os x", "darwin");
        String arch = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> System.getProperty("os.arch");
        };
        return os + "-" + arch;
    }

    /** Locates the binaries or throws {@link IllegalStateException} saying how to build them. */
    public static ControlPlaneBinaries locate() {
        String override = System.getenv("CP_BIN_DIR");
        return override != null && !override.isBlank() ? locateIn(Path.of(override)) : locateUnder(cacheRoot());
    }

    /** The binaries under {@code cacheRoot} ({@code k8s/<version>-<os>-<arch>/}), as {@link #locate} finds them. */
    static ControlPlaneBinaries locateUnder(Path cacheRoot) {
        return locateIn(cacheRoot
                .resolve("k8s")
                .resolve(pinnedKubernetesVersion().replaceFirst("^v", "") + "-" + hostPlatform()));
    }

    private static ControlPlaneBinaries locateIn(Path dir) {
        String version = pinnedKubernetesVersion();
        awaitBuilt(dir.resolve(".complete"));
        if (!Files.isRegularFile(dir.resolve(".complete"))) {
            throw new IllegalStateException("Kubernetes " + version + " control-plane binaries not found in " + dir
                    + " (no .complete marker); " + HOW_TO_BUILD);
        }
        for (String b : new String[] {"etcd", "kube-apiserver", "kubectl"}) {
            if (!Files.isExecutable(dir.resolve(b))) {
                throw new IllegalStateException("missing " + dir.resolve(b) + "; " + HOW_TO_BUILD);
            }
        }
        return new ControlPlaneBinaries(dir, version);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Where build-node.sh caches containerd, its shim, ctr and kubelet for a real node:
     * {@code $STREAMS_MEMORY_CACHE/node/<containerd version>-<k8s version>-<os>-<arch>/}, as common.sh names it.
     */
    public static Path nodeDir() {
        return cacheRoot()
                .resolve("node")
                .resolve(pinned("CONTAINERD_VERSION").replaceFirst("^v", "") + "-"
                        + pinnedKubernetesVersion().replaceFirst("^v", "") + "-" + hostPlatform());
    }

    /** The images of the last {@code make images} (images.txt and the tarballs a real node imports). */
    public static Path imagesDir() {
        return cacheRoot().resolve("images").resolve("current");
    }

    public String kubernetesVersion() {
        return kubernetesVersion;
    }

    public boolean has(String binary) {
        return Files.isExecutable(dir.resolve(binary));
    }

    static String versionsEnvDefault(String name) {
        try (InputStream in = ControlPlaneBinaries.class.getResourceAsStream("versions.env")) {
            if (in == null) {
                throw new IllegalStateException("versions.env missing from the classpath");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Matcher m =
                    Pattern.compile(name + "=\"\\$\\{" + name + ":-([^}]+)}\"").matcher(text);
            if (!m.find()) {
                throw new IllegalStateException("no default for " + name + " in versions.env");
            }
            return m.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
