package io.streamsmemory.controlplane;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real, throw-away Kubernetes control plane (etcd + kube-apiserver, optionally
 * kube-controller-manager, kube-scheduler and kwok) on loopback ports, started with the same
 * script and flags as {@code src/controlplane/bin/up.sh}. Authorization is Node,RBAC; the
 * admission webhooks are on; ServiceAccount tokens are signed, so {@link #clientAs} gets
 * real RBAC decisions.
 *
 * <p>Use {@link EnableLocalControlPlane} in JUnit 5 tests, or {@link #start} directly and
 * {@link #close} when done.
 */
public final class LocalControlPlane implements AutoCloseable {

    private final ControlPlaneBinaries binaries;
    private final ControlPlaneOptions options;
    private final Path workDir;
    private final Path stateDir;
    private final Path script;
    private final int apiServerPort;
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final Thread shutdownHook;
    private KubernetesClient adminClient;
    private volatile boolean closed;

    private LocalControlPlane(
            ControlPlaneBinaries binaries, ControlPlaneOptions options, Path workDir, int apiServerPort) {
        this.binaries = binaries;
        this.options = options;
        this.workDir = workDir;
        this.stateDir = workDir.resolve("state");
        this.script = workDir.resolve("cluster.sh");
        this.apiServerPort = apiServerPort;
        this.shutdownHook = new Thread(this::stopProcesses, "local-control-plane-shutdown");
    }

    /** Starts a fresh control plane; throws IllegalStateException with the reason if it cannot. */
    public static LocalControlPlane start(ControlPlaneOptions options) {
        ControlPlaneBinaries binaries = ControlPlaneBinaries.locate();
        Path work;
        try {
            work = Files.createTempDirectory(
                    "streams-memory-cp-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            for (String script : List.of("cluster.sh", "node.sh")) {
                try (InputStream in = LocalControlPlane.class.getResourceAsStream(script)) {
                    if (in == null) {
                        throw new IllegalStateException(script + " missing from the classpath");
                    }
                    Files.copy(in, work.resolve(script));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] ports = freePorts(7);
        LocalControlPlane cp = new LocalControlPlane(binaries, options, work, ports[0]);
        Runtime.getRuntime().addShutdownHook(cp.shutdownHook);
        long t0 = System.nanoTime();
        Map<String, String> env = new HashMap<>(Map.of(
                "CP_APISERVER_PORT", Integer.toString(ports[0]),
                "CP_ETCD_PORT", Integer.toString(ports[1]),
                "CP_ETCD_PEER_PORT", Integer.toString(ports[2]),
                "CP_KWOK_PORT", Integer.toString(ports[3]),
                "CP_KUBELET_PORT", Integer.toString(ports[4]),
                "CP_KUBELET_HEALTHZ_PORT", Integer.toString(ports[5]),
                "CP_COMPONENTS", options.components(),
                "CP_START_TIMEOUT", Long.toString(options.startTimeout().toSeconds()),
                "CP_WATCH_PID", Long.toString(ProcessHandle.current().pid()),
                "CP_KEEP_LOGS_ON_FAILURE", "0"));
        if (options.realNode()) {
            ControlPlaneBinaries.awaitBuilt(ControlPlaneBinaries.nodeDir().resolve(".complete"));
        }
        if (!options.nodeImages().isEmpty()) {
            env.put("CP_NODE_IMAGES", String.join(" ", options.nodeImages()));
        }
        if (options.registry()) {
            env.put("CP_REGISTRY_PORT", Integer.toString(ports[6]));
            env.put("CP_CRANE_BIN", ControlPlaneBinaries.crane().toString());
        }
        try {
            cp.run("up", options.startTimeout().toSeconds() + 30, env);
        } catch (RuntimeException e) {
            cp.close();
            throw e;
        }
        System.err.printf(
                "[local-control-plane] Kubernetes %s (%s) ready at %s in %d ms%n",
                binaries.kubernetesVersion(),
                options.components(),
                cp.apiServerUrl(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        return cp;
    }

    /** Whether a real node runs (a kubelet and containerd), as opposed to kwok's fake node or none. */
    public boolean hasRealNode() {
        return "real".equals(readIfPresent(stateDir.resolve("node-kind")));
    }

    /** {@code 127.0.0.1:<port>} of the control plane's registry ({@link ControlPlaneOptions#registry}). */
    public String registryAddress() {
        String address = readIfPresent(stateDir.resolve("registry-address"));
        if (address.isEmpty()) {
            throw new IllegalStateException("no registry runs in this control plane");
        }
        return address;
    }

    /** The real node's address on its pod bridge: pods reach the API server and each other there. */
    public String nodeAddress() {
        String address = readIfPresent(stateDir.resolve("node-ip"));
        if (address.isEmpty()) {
            throw new IllegalStateException("no real node runs in this control plane");
        }
        return address;
    }

    /** {@code https://127.0.0.1:<port>} */
    public String apiServerUrl() {
        return "https://127.0.0.1:" + apiServerPort;
    }

    public int apiServerPort() {
        return apiServerPort;
    }

    public String kubernetesVersion() {
        return binaries.kubernetesVersion();
    }

    public ControlPlaneBinaries binaries() {
        return binaries;
    }

    public ControlPlaneOptions options() {
        return options;
    }

    /** Admin kubeconfig file (user in group system:masters). */
    public Path kubeconfigPath() {
        return stateDir.resolve("kubeconfig");
    }

    public Path stateDir() {
        return stateDir;
    }

    /** PEM of the local CA: it signed the API server's serving cert and every cert from {@link #issueCertificate}. */
    public String caCertPem() {
        return read(stateDir.resolve("pki/ca.crt"));
    }

    /** The CA as a base64 {@code caBundle} for webhook configurations and APIService objects. */
    public String caBundle() {
        return Base64.getEncoder().encodeToString(caCertPem().getBytes(StandardCharsets.US_ASCII));
    }

    /** A client with cluster-admin rights (system:masters). Closed with the control plane. */
    public synchronized KubernetesClient adminClient() {
        if (adminClient == null) {
            adminClient = track(new KubernetesClientBuilder()
                    .withConfig(Config.fromKubeconfig(read(kubeconfigPath())))
                    .build());
        }
        return adminClient;
    }

    /**
     * A client that authenticates as ServiceAccount {@code namespace/name} with a token from the
     * TokenRequest API, so RBAC applies exactly as to a pod running as that account. Creates the
     * ServiceAccount if missing (the namespace must exist). Closed with the control plane.
     */
    public KubernetesClient clientAs(String namespace, String serviceAccount) {
        String token = serviceAccountToken(namespace, serviceAccount);
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(apiServerUrl())
                .withCaCertData(caBundle())
                .withOauthToken(token)
                .withNamespace(namespace)
                .build();
        return track(new KubernetesClientBuilder().withConfig(config).build());
    }

    /** A one-hour token for ServiceAccount {@code namespace/name} (created if missing). */
    public String serviceAccountToken(String namespace, String serviceAccount) {
        KubernetesClient admin = adminClient();
        if (admin.serviceAccounts()
                        .inNamespace(namespace)
                        .withName(serviceAccount)
                        .get()
                == null) {
            admin.serviceAccounts()
                    .inNamespace(namespace)
                    .resource(new ServiceAccountBuilder()
                            .withNewMetadata()
                            .withName(serviceAccount)
                            .endMetadata()
                            .build())
                    .create();
        }
        TokenRequest request = new TokenRequestBuilder()
                .withNewSpec()
                .withExpirationSeconds(3600L)
                .endSpec()
                .build();
        TokenRequest issued = admin.serviceAccounts()
                .inNamespace(namespace)
                .withName(serviceAccount)
                .tokenRequest(request);
        return issued.getStatus().getToken();
    }

    /** Admin client that impersonates {@code user} with {@code groups} (for RBAC checks on plain users). */
    public KubernetesClient clientImpersonating(String user, String... groups) {
        Config config = Config.fromKubeconfig(read(kubeconfigPath()));
        config.setImpersonateUsername(user);
        config.setImpersonateGroups(groups);
        return track(new KubernetesClientBuilder().withConfig(config).build());
    }

    /**
     * Issues a certificate signed by the cluster CA, e.g. the serving cert of a webhook that the
     * API server reaches at {@code https://127.0.0.1:<port>} (register it with {@link #caBundle()}).
     *
     * @param commonName subject CN
     * @param subjectAltNames entries like {@code IP:127.0.0.1} or {@code DNS:localhost}
     */
    public IssuedCertificate issueCertificate(String commonName, String... subjectAltNames) {
        try {
            Path dir = Files.createTempDirectory(workDir, "cert-");
            Path key = dir.resolve("tls.key");
            Path csr = dir.resolve("tls.csr");
            Path crt = dir.resolve("tls.crt");
            Path ext = dir.resolve("ext.cnf");
            Path p12 = dir.resolve("tls.p12");
            Files.writeString(
                    ext,
                    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                            + "extendedKeyUsage=serverAuth,clientAuth\n"
                            + (subjectAltNames.length > 0
                                    ? "subjectAltName=" + String.join(",", subjectAltNames) + "\n"
                                    : ""));
            Path pki = stateDir.resolve("pki");
            exec(List.of(
                    "openssl",
                    "req",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-keyout",
                    key.toString(),
                    "-out",
                    csr.toString(),
                    "-subj",
                    "/CN=" + commonName));
            exec(List.of(
                    "openssl",
                    "x509",
                    "-req",
                    "-in",
                    csr.toString(),
                    "-CA",
                    pki.resolve("ca.crt").toString(),
                    "-CAkey",
                    pki.resolve("ca.key").toString(),
                    "-CAcreateserial",
                    "-CAserial",
                    dir.resolve("ca.srl").toString(),
                    "-days",
                    "30",
                    "-out",
                    crt.toString(),
                    "-extfile",
                    ext.toString()));
            exec(List.of(
                    "openssl",
                    "pkcs12",
                    "-export",
                    "-in",
                    crt.toString(),
                    "-inkey",
                    key.toString(),
                    "-out",
                    p12.toString(),
                    "-passout",
                    "pass:" + IssuedCertificate.PKCS12_PASSWORD,
                    "-name",
                    "tls"));
            return new IssuedCertificate(read(crt), read(key), crt, key, p12);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the cached {@code kubectl} against this control plane; returns its stdout+stderr. */
    public String kubectl(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(binaries.dir().resolve("kubectl").toString());
        cmd.add("--kubeconfig=" + kubeconfigPath());
        cmd.addAll(List.of(args));
        return exec(cmd);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (this) {
            for (KubernetesClient c : clients) {
                try {
                    c.close();
                } catch (RuntimeException ignored) {
                    // best effort
                }
            }
            clients.clear();
        }
        stopProcesses();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException ignored) {
            // JVM is shutting down
        }
        deleteRecursively(workDir);
    }

    private void stopProcesses() {
        try {
            run("down", 120, Map.of());
        } catch (RuntimeException e) {
            System.err.println("[local-control-plane] stopping failed: " + e.getMessage());
        }
    }

    private synchronized KubernetesClient track(KubernetesClient client) {
        clients.add(client);
        return client;
    }

    private void run(String command, long timeoutSeconds, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), command).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.environment().put("CP_STATE_DIR", stateDir.toString());
        pb.environment().put("CP_BIN_DIR", binaries.dir().toString());
        pb.environment()
                .putIfAbsent("CP_NODE_BIN_DIR", ControlPlaneBinaries.nodeDir().toString());
        pb.environment()
                .putIfAbsent("CP_IMAGES_DIR", ControlPlaneBinaries.imagesDir().toString());
        try {
            Path log = workDir.resolve(command + ".out");
            pb.redirectOutput(log.toFile());
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "cluster.sh " + command + " timed out after " + timeoutSeconds + "s:\n" + read(log));
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        "local control plane '" + command + "' failed (exit " + p.exitValue() + "):\n" + read(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String exec(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static int[] freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // ignore
                }
            }
        }
    }

    private static String readIfPresent(Path p) {
        return Files.isRegularFile(p) ? read(p).trim() : "";
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
