package io.streamsmemory.plan;

import static io.streamsmemory.engine.ByteSize.format;

import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.DefaultsBaseline;
import io.streamsmemory.engine.Part;
import io.streamsmemory.engine.ReplicaRange;
import io.streamsmemory.engine.Topology;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Renders an allocation as the table {@code plan} prints: part, bytes, config, reason. */
final class PlanTable {
    private static final String ROW = "%-34s %14s %11s  %s%n";
    private static final String REASON = "%-34s   %s%n";

    private PlanTable() {}

    static String render(Allocation allocation) {
        StringBuilder out = new StringBuilder();
        Topology t = allocation.topology();
        int instances = allocation.facts().instancesPerPod();
        String threads = instances == 1
                ? allocation.facts().streamThreads() + " stream threads"
                : instances + " KafkaStreams instances x " + allocation.facts().streamThreads() + " stream threads";
        out.append(String.format(
                Locale.ROOT,
                "Memory plan for one pod of %s: %s, %d active + %d standby "
                        + "tasks, %d RocksDB instances (allocation %s)%n",
                format(allocation.memoryBytes()),
                threads,
                t.activeTasksPerPod(),
                t.standbyTasksPerPod(),
                t.rocksDbInstances(),
                allocation.hash()));
        plannedRange(out, allocation);
        out.append(System.lineSeparator());
        out.append(String.format(Locale.ROOT, ROW, "PART", "BYTES", "SIZE", "CONFIG"));
        out.append(String.format(Locale.ROOT, REASON, "", "# REASON"));
        for (Part part : allocation.parts()) {
            row(out, part, 0);
        }
        out.append(String.format(
                Locale.ROOT,
                ROW,
                "total",
                allocation.memoryBytes(),
                format(allocation.memoryBytes()),
                "# the parts above sum to the pod memory"));

        out.append(System.lineSeparator())
                .append("JAVA_TOOL_OPTIONS: ")
                .append(String.join(" ", allocation.jvmOptions()))
                .append(System.lineSeparator());

        DefaultsBaseline defaults = allocation.baseline();
        double ratio = defaults.totalBytes() / (double) allocation.memoryBytes();
        out.append(System.lineSeparator())
                .append(String.format(
                        Locale.ROOT,
                        "Kafka's defaults for the same topology: up to %s, %.1fx the pod's %s%s%n",
                        format(defaults.totalBytes()),
                        ratio,
                        format(allocation.memoryBytes()),
                        ratio > 1 ? " -> the pod can be OOM-killed" : ""));
        if (defaults.heapNeedBytes() > defaults.heapBytes()) {
            out.append(String.format(
                    Locale.ROOT,
                    "  and the default heap (%s) is smaller than the %s Kafka's client "
                            + "buffers and caches want in it%n",
                    format(defaults.heapBytes()),
                    format(defaults.heapNeedBytes())));
        }
        for (Part part : defaults.parts()) {
            out.append(String.format(Locale.ROOT, ROW, "  " + part.name(), part.bytes(), format(part.bytes()), ""));
            out.append(String.format(Locale.ROOT, REASON, "", "# " + part.reason()));
        }
        return out.toString();
    }

    /** With a replica range: the counts the RocksDB settings hold for and, when busier, the pod they are sized for. */
    private static void plannedRange(StringBuilder out, Allocation allocation) {
        ReplicaRange range = allocation.facts().replicaRange();
        if (range == null) {
            return;
        }
        Topology now = allocation.topology();
        Topology planned = allocation.plannedTopology();
        out.append(String.format(
                Locale.ROOT,
                "RocksDB settings and JVM flags hold for %d to %d replicas (the range "
                        + "[%d, %d] with one pod of the fewest restarting)",
                Math.max(1, range.min() - 1),
                range.max(),
                range.min(),
                range.max()));
        if (planned.rocksDbInstances() != now.rocksDbInstances()) {
            out.append(String.format(
                    Locale.ROOT,
                    ": sized for %d RocksDB instances per pod (%d active + %d standby " + "tasks), %d now",
                    planned.rocksDbInstances(),
                    planned.activeTasksPerPod(),
                    planned.standbyTasksPerPod(),
                    now.rocksDbInstances()));
        }
        if (!range.contains(allocation.facts().replicas())) {
            out.append(String.format(
                    Locale.ROOT,
                    "; %d replicas is outside the range",
                    allocation.facts().replicas()));
        }
        out.append(System.lineSeparator());
    }

    private static void row(StringBuilder out, Part part, int depth) {
        String config =
                part.config().entrySet().stream().map(PlanTable::setting).collect(Collectors.joining(" "));
        out.append(String.format(
                Locale.ROOT, ROW, "  ".repeat(depth) + part.name(), part.bytes(), format(part.bytes()), config));
        out.append(String.format(Locale.ROOT, REASON, "", "# " + part.reason()));
        for (Part child : part.parts()) {
            row(out, child, depth + 1);
        }
    }

    private static String setting(Map.Entry<String, String> entry) {
        String key = entry.getKey();
        // JVM flags read as flags (-Xmx512m, -Xss1m); everything else as key=value.
        boolean glued = key.equals("-Xmx") || key.equals("-Xms") || key.equals("-Xss");
        return glued ? key + entry.getValue() : key + "=" + entry.getValue();
    }
}
