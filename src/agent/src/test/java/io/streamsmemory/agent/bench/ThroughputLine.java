package io.streamsmemory.agent.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * {@code make bench-throughput}'s verdict for one budget and shape (issue 64): the plan against what a user would
 * otherwise run in the same pod, every variant rated over the same input range ({@link InputRange}):
 * <pre>
 * throughput: budget=4294967296 shape=default repeats=3 plan_rps=24000 best_hand=hand-docs best_hand_rps=22000
 *     defaults_rps=23000 ceiling_rps=26000 plan_vs_best_hand=1.091 plan_vs_defaults=1.043 plan_vs_ceiling=0.923
 *     spread=1.050 read_bytes_per_record=12 gc_share=0.021 rss_ratio=0.880 kernel=agent:survived/survived/survived,...
 * </pre>
 * Each {@code plan_vs_} ratio is the median of the ratios within each repeat (the variants of a repeat ran one after
 * another, so an hour's drift of the machine falls on both sides); {@code spread} is the plan's fastest repeat over
 * its slowest. A hand-tuned config the kernel killed in any repeat is no config a user keeps: the best of the others
 * wins. A variant not run, or a run that never reached the range, gives NaN: never a ratio that was not measured.
 */
final class ThroughputLine {
    static final String PLAN = "agent";
    static final String DEFAULTS = "kafka-defaults";
    static final String CEILING = "unbounded";
    /** The hand-tuned configs' names start with this. */
    static final String HAND = "hand-";

    /**
     * One run as the lines read it: its rate over the input range, what the kernel did ("survived", "killed@Ns",
     * "no-cgroup"), and its costs over the range: CPU and storage reads per record, the share of the run's wall time
     * in GC pauses, and its peak RSS over the budget.
     */
    record Run(
            double rps,
            String kernel,
            double cpuMicrosPerRecord,
            double readBytesPerRecord,
            double gcShare,
            double rssRatio) {
        boolean killed() {
            return kernel.startsWith("killed");
        }

        /** The seconds before the kill, -1 when not killed. */
        long killedAfterSeconds() {
            return killed() ? Long.parseLong(kernel.replaceAll("\\D", "")) : -1;
        }
    }

    private ThroughputLine() {}

    static String of(long budget, String shape, List<Map<String, Run>> repeats) {
        String bestHand = bestHand(repeats);
        double[] plan = figures(repeats, PLAN, Run::rps);
        return String.format(
                Locale.ROOT,
                "throughput: budget=%d shape=%s repeats=%d plan_rps=%.0f best_hand=%s best_hand_rps=%.0f "
                        + "defaults_rps=%s ceiling_rps=%.0f plan_vs_best_hand=%.3f plan_vs_defaults=%s "
                        + "plan_vs_ceiling=%.3f spread=%.3f read_bytes_per_record=%.0f gc_share=%.3f rss_ratio=%.3f "
                        + "kernel=%s",
                budget,
                shape,
                repeats.size(),
                median(plan),
                bestHand == null ? "none" : bestHand,
                bestHand == null ? Double.NaN : median(figures(repeats, bestHand, Run::rps)),
                defaults(repeats),
                median(figures(repeats, CEILING, Run::rps)),
                bestHand == null ? Double.NaN : median(ratios(repeats, PLAN, bestHand)),
                killedInAny(repeats, DEFAULTS)
                        ? "killed"
                        : String.format(Locale.ROOT, "%.3f", median(ratios(repeats, PLAN, DEFAULTS))),
                median(ratios(repeats, PLAN, CEILING)),
                spread(plan),
                median(figures(repeats, PLAN, Run::readBytesPerRecord)),
                median(figures(repeats, PLAN, Run::gcShare)),
                median(figures(repeats, PLAN, Run::rssRatio)),
                kernel(repeats));
    }

    /**
     * One variant's medians over the repeats, for the table in docs/benchmarks.md:
     * {@code throughput-variant: budget=... shape=... variant=... rps=... spread=... cpu_us_per_record=...
     * read_bytes_per_record=... gc_share=... rss_ratio=... kernel=survived/killed@40s/...}.
     */
    static String variant(long budget, String shape, String variant, List<Map<String, Run>> repeats) {
        double[] rps = figures(repeats, variant, Run::rps);
        return String.format(
                Locale.ROOT,
                "throughput-variant: budget=%d shape=%s variant=%s rps=%.0f spread=%.3f cpu_us_per_record=%.1f "
                        + "read_bytes_per_record=%.0f gc_share=%.3f rss_ratio=%.3f vs_plan=%.3f kernel=%s",
                budget,
                shape,
                variant,
                median(rps),
                spread(rps),
                median(figures(repeats, variant, Run::cpuMicrosPerRecord)),
                median(figures(repeats, variant, Run::readBytesPerRecord)),
                median(figures(repeats, variant, Run::gcShare)),
                median(figures(repeats, variant, Run::rssRatio)),
                median(ratios(repeats, variant, PLAN)),
                String.join("/", kernels(repeats, variant)));
    }

    /** The fastest hand-tuned config (median rate) that the kernel never killed; null when none ran or all died. */
    static String bestHand(List<Map<String, Run>> repeats) {
        return repeats.stream()
                .flatMap(runs -> runs.keySet().stream())
                .filter(name -> name.startsWith(HAND))
                .distinct()
                .filter(name -> !killedInAny(repeats, name))
                .filter(name -> !Double.isNaN(median(figures(repeats, name, Run::rps))))
                .max(Comparator.comparingDouble(name -> median(figures(repeats, name, Run::rps))))
                .orElse(null);
    }

    /** Kafka's defaults at the limit: their median rate, or "killed@Ns" with the median seconds to the kill. */
    private static String defaults(List<Map<String, Run>> repeats) {
        if (!killedInAny(repeats, DEFAULTS)) {
            return String.format(Locale.ROOT, "%.0f", median(figures(repeats, DEFAULTS, Run::rps)));
        }
        double[] after = repeats.stream()
                .map(runs -> runs.get(DEFAULTS))
                .filter(run -> run != null && run.killed())
                .mapToDouble(Run::killedAfterSeconds)
                .toArray();
        return String.format(Locale.ROOT, "killed@%.0fs", median(after));
    }

    private static boolean killedInAny(List<Map<String, Run>> repeats, String variant) {
        return repeats.stream().map(runs -> runs.get(variant)).anyMatch(run -> run != null && run.killed());
    }

    /** {@code a}'s rate over {@code b}'s in the same repeat, for each repeat; NaN where either did not run. */
    private static double[] ratios(List<Map<String, Run>> repeats, String a, String b) {
        return repeats.stream()
                .mapToDouble(runs -> {
                    Run x = runs.get(a);
                    Run y = runs.get(b);
                    return x == null || y == null ? Double.NaN : x.rps() / y.rps();
                })
                .toArray();
    }

    private static double[] figures(List<Map<String, Run>> repeats, String variant, ToDoubleFunction<Run> figure) {
        return repeats.stream()
                .map(runs -> runs.get(variant))
                .mapToDouble(run -> run == null ? Double.NaN : figure.applyAsDouble(run))
                .toArray();
    }

    /** The largest measured value over the smallest; NaN with fewer than one. */
    static double spread(double[] values) {
        double[] measured = Arrays.stream(values).filter(v -> !Double.isNaN(v)).toArray();
        if (measured.length == 0) {
            return Double.NaN;
        }
        return Arrays.stream(measured).max().getAsDouble()
                / Arrays.stream(measured).min().getAsDouble();
    }

    /** The median of the measured values (NaN ignored); NaN when none was measured. */
    static double median(double[] values) {
        double[] measured =
                Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (measured.length == 0) {
            return Double.NaN;
        }
        int middle = measured.length / 2;
        return measured.length % 2 == 1 ? measured[middle] : (measured[middle - 1] + measured[middle]) / 2;
    }

    /** Per variant, what the kernel did in each repeat: "agent:survived/survived,kafka-defaults:killed@51s/...". */
    private static String kernel(List<Map<String, Run>> repeats) {
        List<String> names = repeats.stream()
                .flatMap(runs -> runs.keySet().stream())
                .distinct()
                .sorted()
                .toList();
        List<String> parts = new ArrayList<>();
        for (String name : names) {
            parts.add(name + ":" + String.join("/", kernels(repeats, name)));
        }
        return String.join(",", parts);
    }

    private static List<String> kernels(List<Map<String, Run>> repeats, String variant) {
        return repeats.stream()
                .map(runs -> runs.get(variant))
                .filter(Objects::nonNull)
                .map(Run::kernel)
                .collect(Collectors.toList());
    }
}
