package io.streamsmemory.operator.faults;

import io.streamsmemory.controlplane.LocalControlPlane;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Faults of the control plane's own processes, by the pid files its script keeps ({@code state/pids/<name>.pid}):
 * a restarted kube-apiserver (every watch and connection dropped, the same flags and data after), and a frozen
 * etcd (SIGSTOP, then SIGCONT: requests hang, as with a stalled disk or a partition).
 */
final class ControlPlaneFaults {
    private final LocalControlPlane controlPlane;

    ControlPlaneFaults(LocalControlPlane controlPlane) {
        this.controlPlane = controlPlane;
    }

    /** Stops kube-apiserver and starts it again with the same command line; returns once it is ready. */
    void restartApiServer() throws Exception {
        Path pidFile = pidFile("apiserver");
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        List<String> command = commandLine(pid);
        ProcessHandle old = ProcessHandle.of(pid).orElseThrow();
        old.destroy();
        try {
            old.onExit().get(30, TimeUnit.SECONDS);
        } catch (TimeoutException stillDraining) {
            // With a controller-manager's and kubelet's watches open its graceful stop can outlast us: kill it.
            old.destroyForcibly();
            old.onExit().get(30, TimeUnit.SECONDS);
        }
        Path log = controlPlane.stateDir().resolve("logs").resolve("apiserver-restarted.log");
        Files.createDirectories(log.getParent());
        Process restarted = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        // The control plane's teardown stops what the pid file names.
        Files.writeString(pidFile, Long.toString(restarted.pid()));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if ("ok".equals(controlPlane.kubectl("get", "--raw", "/readyz").trim())) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // connection refused while it starts
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("kube-apiserver not ready 60 s after its restart; see " + log);
    }

    /** Freezes etcd for {@code duration}. */
    void freezeEtcd(Duration duration) throws Exception {
        long pid = Long.parseLong(Files.readString(pidFile("etcd")).trim());
        signal(pid, "STOP");
        try {
            Thread.sleep(duration.toMillis());
        } finally {
            signal(pid, "CONT");
        }
    }

    private Path pidFile(String component) {
        return controlPlane.stateDir().resolve("pids").resolve(component + ".pid");
    }

    private static List<String> commandLine(long pid) throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        List<String> args = new ArrayList<>();
        for (String arg : new String(raw, StandardCharsets.UTF_8).split("\0")) {
            args.add(arg);
        }
        return args;
    }

    private static void signal(long pid, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
        }
    }
}
