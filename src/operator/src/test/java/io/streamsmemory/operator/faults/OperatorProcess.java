package io.streamsmemory.operator.faults;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The packaged operator ({@code target/quarkus-app/quarkus-run.jar}) as one pod of deploy/'s Deployment runs it,
 * kept alive the way the kubelet keeps a container alive: when the process exits (killed, or leaving on a lost
 * Lease as {@code LeaseLeaderElection} does on purpose), it is started again after a short back-off. The
 * webhook is off: these faults are about the reconciler (the webhook's own faults are tested in admission/).
 */
final class OperatorProcess implements AutoCloseable {
    private static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");

    private final String identity;
    private final Path kubeconfig;
    private final String leaseNamespace;
    private final Path log;
    private final AtomicInteger starts = new AtomicInteger();
    private volatile Process process;
    private volatile boolean closed;
    private final Thread supervisor;

    OperatorProcess(String identity, Path kubeconfig, String leaseNamespace) throws IOException {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is built by the package phase: run `mvn verify`");
        }
        this.identity = identity;
        this.kubeconfig = kubeconfig;
        this.leaseNamespace = leaseNamespace;
        this.log = Files.createTempFile("operator-" + identity, ".log");
        this.process = start();
        this.supervisor = new Thread(this::supervise, "supervise-" + identity);
        supervisor.setDaemon(true);
        supervisor.start();
    }

    String identity() {
        return identity;
    }

    /** How many times the process was started (1 + restarts). */
    int starts() {
        return starts.get();
    }

    /** kill -9: no shutdown hook, no Lease release, whatever was in flight is lost. */
    void kill9() {
        process.destroyForcibly();
    }

    /** kill -9 and never started again: the node under the leader is gone, its Lease only expires. */
    void killForGood() {
        closed = true;
        supervisor.interrupt();
        process.destroyForcibly();
    }

    Path log() {
        return log;
    }

    private Process start() throws IOException {
        ProcessBuilder builder = new ProcessBuilder("java", "-Xmx256m", "-Dquarkus.http.port=" + freePort(),
                "-Dstreamsmemory.webhook.enabled=false", "-jar", JAR.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("KUBECONFIG", kubeconfig.toString());
        builder.environment().put("POD_NAMESPACE", leaseNamespace);
        builder.environment().put("POD_NAME", identity);
        starts.incrementAndGet();
        return builder.start();
    }

    private void supervise() {
        while (!closed) {
            try {
                process.waitFor();
                if (closed) {
                    return;
                }
                Thread.sleep(1000); // the kubelet's first back-off is 10 s; shorter keeps the suite short
                if (!closed) {
                    process = start();
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                throw new IllegalStateException("could not restart the operator " + identity, e);
            }
        }
    }

    /** Ends the replica for good, with SIGTERM as Kubernetes does (idempotent). */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        supervisor.interrupt();
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
