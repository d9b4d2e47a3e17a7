package io.streamsmemory.operator.observe;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what each injected, running pod really uses from its agent's report, every {@link ObserveSettings#interval}:
 * one list of the pods the webhook labelled, then at most {@code concurrency} reads at once, each within the
 * timeout. A pod that does not answer is counted and read again next round, never retried in a loop. Keeps, per
 * workload, the last round's figures and the peak over the window, for the policy's status, and tells the reconciler
 * of a workload only when what a reconcile acts on changed ({@link #onChange}).
 */
public final class MemoryObserver implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryObserver.class);

    private final KubernetesClient client;
    private final ObserveSettings settings;
    private final ReportReader reader;
    private final Clock clock;
    private final AtomicBoolean started = new AtomicBoolean();
    private final Map<String, WorkloadObservation> lastRound = new ConcurrentHashMap<>();
    private final Map<String, PeakWindow> peaks = new ConcurrentHashMap<>();
    private final Map<String, TopologyWindow> topologies = new ConcurrentHashMap<>();
    /** Per pod ({@code namespace/name}): its CPU per record over the settle time, what a tuning step is judged by. */
    private final Map<String, CpuPerRecordWindow> cpuPerRecord = new ConcurrentHashMap<>();

    private final KubeletOomKills oomKills;
    /** The last round's crash loops, by workload: the pods' statuses as they are now. */
    private volatile Map<String, CrashLoop> crashLoops = Map.of();

    /** Per workload, what of its observation the reconciler last heard of ({@link ObservationSignature}). */
    private final Map<String, ObservationSignature> told = new ConcurrentHashMap<>();

    private volatile Consumer<Set<WorkloadRef>> changes = workloads -> {};

    private ScheduledExecutorService rounds;
    private ExecutorService readers;

    public MemoryObserver(KubernetesClient client, ObserveSettings settings) {
        this(client, settings, Clock.systemUTC());
    }

    MemoryObserver(KubernetesClient client, ObserveSettings settings, Clock clock) {
        this.client = client;
        this.settings = settings;
        this.reader = new ReportReader(settings.timeout());
        this.clock = clock;
        this.oomKills = new KubeletOomKills(settings.window());
    }

    public ObserveSettings settings() {
        return settings;
    }

    /**
     * Who hears, after each round, of the workloads whose observation changed in what a reconcile acts on ({@link
     * ObservationSignature}), those seen for the first time and those no longer seen: the reconciler's event source.
     */
    public void onChange(Consumer<Set<WorkloadRef>> listener) {
        this.changes = listener;
    }

    /** Starts the rounds once (the reconciler calls it, so only the leader reads); a no-op when observing is off. */
    public void start() {
        if (!settings.enabled() || !started.compareAndSet(false, true)) {
            return;
        }
        readers = Executors.newFixedThreadPool(settings.concurrency(), daemon("memory-report-reader"));
        rounds = Executors.newSingleThreadScheduledExecutor(daemon("memory-observer"));
        rounds.scheduleWithFixedDelay(this::roundSafely, 0, settings.interval().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The workload's figures from the last round (with the window's peak), if any pod of it was seen. */
    public Optional<WorkloadObservation> observation(String namespace, String kind, String name) {
        String key = key(namespace, kind, name);
        WorkloadObservation last = lastRound.get(key);
        PeakWindow window = peaks.get(key);
        if (last == null) {
            return Optional.empty();
        }
        return Optional.of(window == null ? last : last.withPeak(window.peak(clock.instant())));
    }

    /** The largest topology the workload's pods reported over the window, if any pod reported one. */
    public Optional<ObservedTopology> topology(String namespace, String kind, String name) {
        TopologyWindow window = topologies.get(key(namespace, kind, name));
        return window == null ? Optional.empty() : Optional.ofNullable(window.peak(clock.instant()));
    }

    /** An injected container of the workload that kubelet keeps restarting after its JVM failed, if the last round saw one. */
    public Optional<CrashLoop> crashLoop(String namespace, String kind, String name) {
        return Optional.ofNullable(crashLoops.get(key(namespace, kind, name)));
    }

    private void roundSafely() {
        try {
            round();
        } catch (RuntimeException e) {
            LOG.warn("could not read the pods' memory reports this round: {}", e.toString());
        }
    }

    /** One round: list, read in parallel, fold per workload. */
    void round() {
        List<Pod> pods = client.pods()
                .inAnyNamespace()
                .withLabel(MetadataKeys.INJECTED_LABEL, "true")
                .list()
                .getItems();
        Map<String, String> workloadOfPod = new HashMap<>();
        Instant now = clock.instant();
        Map<String, CrashLoop> looping = new HashMap<>();
        Map<String, Future<AgentReport>> reads = startReads(pods, now, looping, workloadOfPod);
        Map<String, WorkloadObservation> round = new HashMap<>();
        Map<String, List<AgentReport>> reports = new HashMap<>();
        for (Map.Entry<String, Future<AgentReport>> read : reads.entrySet()) {
            String workload = workloadOfPod.get(read.getKey());
            WorkloadObservation sofar = round.getOrDefault(workload, WorkloadObservation.none());
            try {
                AgentReport report = overWindow(
                        read.getKey(), read.getValue().get(settings.timeout().toMillis() * 2, TimeUnit.MILLISECONDS));
                round.put(workload, sofar.with(report));
                reports.computeIfAbsent(workload, k -> new ArrayList<>()).add(report);
                peaks.computeIfAbsent(workload, k -> new PeakWindow(settings.window()))
                        .record(now, report.peakBytes());
            } catch (Exception unanswered) {
                read.getValue().cancel(true);
                LOG.debug("pod {} did not give its memory report: {}", read.getKey(), unanswered.toString());
                round.put(workload, sofar.notAnswering());
            }
        }
        reports.forEach((workload, answered) -> topologies
                .computeIfAbsent(workload, k -> new TopologyWindow(settings.window()))
                .record(now, ObservedTopology.of(answered, settings.settle())));
        oomKills.workloads(now)
                .forEach(workload -> round.compute(
                        workload,
                        (k, seen) -> (seen == null ? WorkloadObservation.none() : seen)
                                .withKubeletOomKills(oomKills.count(workload, now))));
        crashLoops = Map.copyOf(looping);
        lastRound.keySet().retainAll(round.keySet());
        lastRound.putAll(round);
        peaks.keySet().retainAll(round.keySet());
        topologies.keySet().retainAll(round.keySet());
        cpuPerRecord.keySet().retainAll(reads.keySet());
        tellChanges();
    }

    /** Tells {@link #onChange}'s listener which workloads' signatures moved since it last heard of them. */
    private void tellChanges() {
        Set<String> workloads = new HashSet<>(lastRound.keySet());
        workloads.addAll(crashLoops.keySet());
        workloads.addAll(told.keySet());
        Set<WorkloadRef> changed = new HashSet<>();
        for (String key : workloads) {
            WorkloadRef ref = WorkloadRef.of(key);
            ObservationSignature now = ObservationSignature.of(
                    observation(ref.namespace(), ref.kind(), ref.name()),
                    topology(ref.namespace(), ref.kind(), ref.name()),
                    crashLoop(ref.namespace(), ref.kind(), ref.name()),
                    settings.settle());
            boolean seen = lastRound.containsKey(key) || crashLoops.containsKey(key);
            ObservationSignature before = seen ? told.put(key, now) : told.remove(key);
            if (!seen || !now.equals(before)) {
                changed.add(ref);
            }
        }
        if (!changed.isEmpty()) {
            changes.accept(changed);
        }
    }

    /**
     * Starts reading the report of every running injected pod, by pod; notes each pod's OOM kills and crash loop
     * (every pod, running or not: a pod that crash-loops on OOM kills never answers its report) and its workload.
     */
    private Map<String, Future<AgentReport>> startReads(
            List<Pod> pods, Instant now, Map<String, CrashLoop> looping, Map<String, String> workloadOfPod) {
        Map<String, Future<AgentReport>> reads = new HashMap<>();
        for (Pod pod : pods) {
            Optional<String> workload = workloadKey(pod);
            workload.ifPresent(w -> oomKills.record(w, pod, now));
            workload.ifPresent(w -> KubeletCrashLoops.of(pod).ifPresent(loop -> looping.putIfAbsent(w, loop)));
            Optional<Integer> port = reportPort(pod);
            String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
            boolean running = pod.getStatus() != null
                    && "Running".equals(pod.getStatus().getPhase())
                    && pod.getMetadata().getDeletionTimestamp() == null;
            if (workload.isEmpty() || port.isEmpty() || ip == null || !running) {
                continue;
            }
            String podKey =
                    pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
            workloadOfPod.put(podKey, workload.get());
            reads.put(podKey, readers.submit(() -> reader.read(ip, port.get())));
        }
        return reads;
    }

    /** The report with its CPU per record taken over the pod's window, when the window has one. */
    private AgentReport overWindow(String pod, AgentReport report) {
        if (report.progress() == null || report.tuning() == null) {
            return report;
        }
        Double windowed = cpuPerRecord
                .computeIfAbsent(pod, k -> new CpuPerRecordWindow(settings.settle()))
                .add(report.progress());
        return report.withTuning(report.tuning().withCpuNanosPerRecord(windowed));
    }

    /** The workload controlling the pod, as {@code namespace/kind/name}. */
    private static Optional<String> workloadKey(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels() == null
                ? Map.of()
                : pod.getMetadata().getLabels();
        return pod.getMetadata().getOwnerReferences().stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()))
                .findFirst()
                .flatMap((OwnerReference o) ->
                        Workload.controllingWorkload(o.getKind(), o.getName(), labels.get(Workload.POD_TEMPLATE_HASH)))
                .map(w -> key(pod.getMetadata().getNamespace(), w.getKey(), w.getValue()));
    }

    /** The report port the injected container runs with (its STREAMS_MEMORY_REPORT_PORT), if it has one. */
    private static Optional<Integer> reportPort(Pod pod) {
        String injected = pod.getMetadata().getAnnotations() == null
                ? null
                : pod.getMetadata().getAnnotations().get(MetadataKeys.INJECTED_CONTAINER);
        return pod.getSpec().getContainers().stream()
                .filter(c -> c.getName().equals(injected))
                .findFirst()
                .map(Container::getEnv)
                .stream()
                .flatMap(List::stream)
                .filter((EnvVar e) -> MetadataKeys.REPORT_PORT_VARIABLE.equals(e.getName()) && e.getValue() != null)
                .findFirst()
                .flatMap(e -> {
                    try {
                        int port = Integer.parseInt(e.getValue().trim());
                        return port > 0 && port < 65536 ? Optional.of(port) : Optional.empty();
                    } catch (NumberFormatException notAPort) {
                        return Optional.empty();
                    }
                });
    }

    private static String key(String namespace, String kind, String name) {
        return namespace + "/" + kind + "/" + name;
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread thread = new Thread(r, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public void close() {
        if (rounds != null) {
            rounds.shutdownNow();
            readers.shutdownNow();
        }
    }
}
