package io.streamsmemory.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A real node (containerd, kubelet, runc, the images of make images) runs a real pod with a real memory limit and
 * leaves nothing behind: after a clean stop, and after a crash that the next start cleans. "Nothing" is what the
 * real-node notes list: processes, mounts, network namespaces, the bridge, the pods' cgroups and the three host paths
 * kubelet cannot be told to move.
 * <p>It runs beside this module's other classes (junit-platform.properties): its nodes are its own, and nothing else
 * here starts a real node or touches the bridge, the kubepods cgroups or kubelet's host paths it checks. The operator
 * module's tests wait for this module, so its minute is on make test's longest path only once.
 */
@Tag("control-plane")
@Execution(ExecutionMode.CONCURRENT)
class RealNodeLifecycleTest {
    static final String BRIDGE = "smo0";
    static final Duration POD_START = Duration.ofSeconds(120);

    /**
     * Two node starts, not three: the node that starts after the crash is the one whose pod runs under its limit and
     * whose clean stop is checked, so every claim of the class comment is checked by one node fewer.
     */
    @Test
    void theNextStartCleansWhatACrashedNodeLeftItsPodRunsUnderItsLimitAndACleanStopLeavesNothing() throws Exception {
        Path crashedState;
        Path state;
        try (LocalControlPlane crashed = startWithRealNode()) {
            crashedState = crashed.stateDir();
            runPause(crashed.adminClient(), "orphan");
            // A crash: kubelet and containerd die at once, the pod's shim and process, mounts and bridge stay.
            for (String component : List.of("kubelet", "containerd")) {
                long pid = Long.parseLong(Files.readString(crashedState.resolve("pids/" + component + ".pid"))
                        .trim());
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            Thread.sleep(500);
            assertThat(leftovers(crashedState)).isNotEmpty();

            try (LocalControlPlane next = startWithRealNode()) {
                state = next.stateDir();
                // The machine-wide parts (bridge, cgroups, kubelet's socket) are the next node's now.
                assertThat(leftoversUnder(crashedState))
                        .as("what the crashed node left, after the next start")
                        .isEmpty();
                Pod pod = runPause(next.adminClient(), "after-crash");
                assertThat(pod.getStatus().getPodIP())
                        .startsWith(next.nodeAddress()
                                .substring(0, next.nodeAddress().lastIndexOf('.')));
                // The kernel holds the pod to its limit: the container's memory cgroup says 64 MiB.
                assertThat(memoryLimitsUnderKubepods()).contains(64L * 1024 * 1024);
                assertThat(leftovers(state)).isNotEmpty(); // the check sees a running node, so it can see what is left
            }
            // The clean stop of the next node.
            assertThat(leftovers(state)).isEmpty();
        }
        assertThat(leftovers(crashedState)).isEmpty();
    }

    static LocalControlPlane startWithRealNode() {
        LocalControlPlane cp = LocalControlPlane.start(ControlPlaneOptions.apiServerOnly()
                .withRealNode(true)
                .withNodeImages("pause") // all this class runs; the others would take ~9 s per start
                .withStartTimeout(Duration.ofSeconds(180)));
        if (!cp.hasRealNode()) {
            cp.close();
            String why = "no real node here (the control plane's log says why)";
            if ("1".equals(System.getenv("STREAMS_MEMORY_REQUIRE_REAL_NODE"))) {
                throw new IllegalStateException(why + " and STREAMS_MEMORY_REQUIRE_REAL_NODE=1");
            }
            Assumptions.abort(why);
        }
        return cp;
    }

    /** A pod of the node's own pause image (it is there on every real node) with a 64 MiB limit, once Running. */
    static Pod runPause(KubernetesClient client, String name) throws InterruptedException {
        String image = client.nodes().list().getItems().get(0).getStatus().getImages().stream()
                .flatMap(i -> i.getNames().stream())
                .filter(n -> n.contains("streams-memory-pause:"))
                .findFirst()
                .orElseThrow();
        client.pods()
                .inNamespace("default")
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .withAutomountServiceAccountToken(false)
                        .addNewContainer()
                        .withName("pause")
                        .withImage(image)
                        .withImagePullPolicy("Never")
                        .withNewResources()
                        .addToLimits("memory", new Quantity("64Mi"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        await("pod " + name + " Running", () -> {
            Pod p = client.pods().inNamespace("default").withName(name).get();
            return p != null && "Running".equals(p.getStatus().getPhase());
        });
        return client.pods().inNamespace("default").withName(name).get();
    }

    /** What a node under {@code state} left on this machine, one line per thing; empty when nothing. */
    static List<String> leftovers(Path state) throws IOException {
        List<String> left = leftoversUnder(state);
        if (Files.exists(Path.of("/sys/class/net", BRIDGE))) {
            left.add("link " + BRIDGE);
        }
        try (Stream<Path> controllers = Files.list(Path.of("/sys/fs/cgroup"))) {
            controllers
                    .map(c -> c.resolve("kubepods"))
                    .filter(Files::isDirectory)
                    .forEach(c -> left.add("cgroup " + c));
        }
        if (Files.exists(Path.of("/var/lib/kubelet/device-plugins/kubelet.sock"))) {
            left.add("socket /var/lib/kubelet/device-plugins/kubelet.sock");
        }
        return left;
    }

    /** What names the folder of the node under {@code state}: processes, mounts, log links, CNI results. */
    static List<String> leftoversUnder(Path state) throws IOException {
        List<String> left = new ArrayList<>();
        String node = state.resolve("node").toString();
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            all.filter(p -> p.info()
                            .arguments()
                            .map(a -> String.join(" ", a).contains(node))
                            .orElse(false))
                    .forEach(p -> left.add(
                            "process " + p.pid() + " " + p.info().commandLine().orElse("")));
        }
        Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .filter(l -> l.split(" ")[1].startsWith(node))
                .forEach(l -> left.add("mount " + l));
        for (Path dir : List.of(Path.of("/var/log/containers"), Path.of("/var/lib/cni/results"))) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    files.filter(f -> isNodes(f, node)).forEach(f -> left.add("file " + f));
                }
            }
        }
        return left;
    }

    /** A container log link into the node's folder (or dangling), or a CNI result naming the node's network or folder. */
    private static boolean isNodes(Path file, String node) {
        try {
            if (Files.isSymbolicLink(file)) {
                return Files.readSymbolicLink(file).toString().startsWith(node) || !Files.exists(file);
            }
            return file.getFileName().toString().startsWith("streams-memory-pods")
                    || Files.readString(file).contains(node);
        } catch (IOException e) {
            return true;
        }
    }

    /** Every memory.limit_in_bytes under the kubepods cgroup of cgroup v1 (empty elsewhere). */
    static List<Long> memoryLimitsUnderKubepods() throws IOException {
        Path root = Path.of("/sys/fs/cgroup/memory/kubepods");
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> p.getFileName().toString().equals("memory.limit_in_bytes"))
                    .map(p -> {
                        try {
                            return Long.parseLong(Files.readString(p).trim());
                        } catch (IOException e) {
                            return -1L;
                        }
                    })
                    .toList();
        }
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + POD_START.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + POD_START + " waiting for " + what);
            }
            Thread.sleep(500);
        }
    }
}
