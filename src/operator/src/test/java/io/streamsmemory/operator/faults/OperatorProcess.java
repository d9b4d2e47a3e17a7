package io.streamsmemory.operator.faults;

import io.streamsmemory.operator.PackagedOperator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One operator replica, the packaged jar as one pod of deploy/'s Deployment runs it, kept alive the way the kubelet
 * keeps a container alive: when the process exits (killed, or leaving on a lost Lease as {@code LeaseLeaderElection}
 * does on purpose), it is started again after a short back-off. The webhook is off unless {@code jvmArgs} turn it
 * on (the scenario that stops the webhook while pods are created).
 */
final class OperatorProcess implements AutoCloseable {
    private final String identity;
    private final Path kubeconfig;
    private final String leaseNamespace;
    private final Path log;
    private final List<String> jvmArgs;
    private final AtomicInteger starts = new AtomicInteger();
    private final Thread supervisor;
    private volatile PackagedOperator operator;
    private volatile boolean closed;
    /** While set, an exited process is not started again (its pod is gone and not yet rescheduled). */
    private volatile boolean heldDown;

    OperatorProcess(String identity, Path kubeconfig, String leaseNamespace, String... jvmArgs) throws IOException {
        this.identity = identity;
        this.jvmArgs = List.of(jvmArgs);
        this.kubeconfig = kubeconfig;
        this.leaseNamespace = leaseNamespace;
        this.log = Files.createTempFile("operator-" + identity, ".log");
        this.operator = start();
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

    /** kill -9: no shutdown hook, no Lease release, whatever was in flight is lost; the supervisor restarts it. */
    void kill9() {
        operator.kill9();
    }

    /** kill -9 and never started again: the node under the leader is gone, its Lease only expires. */
    void killForGood() {
        closed = true;
        supervisor.interrupt();
        operator.kill9();
    }

    /** kill -9, kept down while {@code whileDown} runs, then started again by the supervisor. */
    void downWhile(Callable<?> whileDown) throws Exception {
        heldDown = true;
        try {
            operator.kill9();
            operator.process().waitFor();
            whileDown.call();
        } finally {
            heldDown = false;
        }
    }

    Path log() {
        return log;
    }

    private PackagedOperator start() throws IOException {
        starts.incrementAndGet();
        List<String> args = new ArrayList<>(List.of(
                "-Xmx256m",
                PackagedOperator.C1_ONLY,
                "-Dstreamsmemory.webhook.enabled=false",
                // The scenarios change a policy seconds after the workloads opted in: no rate limit between rollouts.
                "-Dstreamsmemory.rollout.min-interval=PT0S"));
        args.addAll(jvmArgs); // later -D settings win
        return PackagedOperator.start(kubeconfig, leaseNamespace, identity, log, args.toArray(String[]::new));
    }

    private void supervise() {
        while (!closed) {
            try {
                operator.process().waitFor();
                if (closed) {
                    return;
                }
                Thread.sleep(1000); // the kubelet's first back-off is 10 s; shorter keeps the suite short
                while (heldDown && !closed) {
                    Thread.sleep(100);
                }
                if (!closed) {
                    operator = start();
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
        operator.stop();
    }
}
