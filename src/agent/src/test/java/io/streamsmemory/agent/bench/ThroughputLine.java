package io.streamsmemory.agent.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * {@code make bench-throughput}'s verdict for one budget and shape (issue 43): each variant's steady rate over the
 * unbounded anchor's in the same repeat, the medians over the repeats, and the declared and learned plans' peak RSS
 * over the budget:
 * <pre>
 * throughput: budget=536870912 shape=default unbounded_rps=21000 docs_ratio=0.120 declared_ratio=0.700
 *     learned_ratio=0.500 rss_ratio=0.830 learned_rss_ratio=0.860 kernel=... repeats=3 ...
 * </pre>
 * A variant not run, or a run too short for a steady rate, gives NaN: never a ratio that was not measured.
 */
final class ThroughputLine {
    static final String ANCHOR = "unbounded";
    static final String DOCS = "docs-bounded";
    static final String DECLARED = "agent";
    static final String LEARNED = "learned";

    /**
     * One run as the line reads it: its steady rate (records/s over its last minutes), its rate over the whole run,
     * its peak RSS, and what the kernel and the run's end were.
     */
    record Run(double steadyRps, double wholeRunRps, long peakRss, String kernel, String ending) {}

    private ThroughputLine() {}

    static String of(long budget, String shape, List<Map<String, Run>> repeats) {
        double[] declared = ratios(repeats, DECLARED, Run::steadyRps);
        double[] learned = ratios(repeats, LEARNED, Run::steadyRps);
        return String.format(
                Locale.ROOT,
                "throughput: budget=%d shape=%s unbounded_rps=%.0f docs_ratio=%.3f declared_ratio=%.3f "
                        + "learned_ratio=%.3f rss_ratio=%.3f learned_rss_ratio=%.3f kernel=%s repeats=%d "
                        + "declared_ratios=%s learned_ratios=%s whole_run_ratio=declared:%.3f,learned:%.3f ended=%s",
                budget,
                shape,
                median(figures(repeats, ANCHOR, Run::steadyRps)),
                median(ratios(repeats, DOCS, Run::steadyRps)),
                median(declared),
                median(learned),
                median(figures(repeats, DECLARED, r -> r.peakRss() / (double) budget)),
                median(figures(repeats, LEARNED, r -> r.peakRss() / (double) budget)),
                perVariant(repeats, Run::kernel),
                repeats.size(),
                joined(declared),
                joined(learned),
                median(ratios(repeats, DECLARED, Run::wholeRunRps)),
                median(ratios(repeats, LEARNED, Run::wholeRunRps)),
                perVariant(repeats, Run::ending));
    }

    /**
     * A candidate split's line, against the same anchor and beside the declared plan:
     * {@code throughput-candidate: budget=... shape=... variant=... ratio=... declared_ratio=... rss_ratio=...}.
     */
    static String candidate(long budget, String shape, String variant, List<Map<String, Run>> repeats) {
        double[] ratios = ratios(repeats, variant, Run::steadyRps);
        return String.format(
                Locale.ROOT,
                "throughput-candidate: budget=%d shape=%s variant=%s ratio=%.3f declared_ratio=%.3f rss_ratio=%.3f "
                        + "repeats=%d ratios=%s whole_run_ratio=%.3f kernel=%s ended=%s",
                budget,
                shape,
                variant,
                median(ratios),
                median(ratios(repeats, DECLARED, Run::steadyRps)),
                median(figures(repeats, variant, r -> r.peakRss() / (double) budget)),
                repeats.size(),
                joined(ratios),
                median(ratios(repeats, variant, Run::wholeRunRps)),
                String.join("/", values(repeats, variant, Run::kernel)),
                String.join("/", values(repeats, variant, Run::ending)));
    }

    /** A variant's figure over the anchor's in the same repeat, for each repeat; NaN where either did not run. */
    private static double[] ratios(List<Map<String, Run>> repeats, String variant, ToDoubleFunction<Run> figure) {
        return repeats.stream()
                .mapToDouble(runs -> {
                    Run run = runs.get(variant);
                    Run anchor = runs.get(ANCHOR);
                    return run == null || anchor == null
                            ? Double.NaN
                            : figure.applyAsDouble(run) / figure.applyAsDouble(anchor);
                })
                .toArray();
    }

    private static double[] figures(List<Map<String, Run>> repeats, String variant, ToDoubleFunction<Run> figure) {
        return repeats.stream()
                .map(runs -> runs.get(variant))
                .mapToDouble(run -> run == null ? Double.NaN : figure.applyAsDouble(run))
                .toArray();
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

    private static String joined(double[] values) {
        return Arrays.stream(values)
                .mapToObj(v -> String.format(Locale.ROOT, "%.3f", v))
                .collect(Collectors.joining("/"));
    }

    /** Per variant, each repeat's value joined by "/": "unbounded:survived/survived,declared:...". */
    private static String perVariant(List<Map<String, Run>> repeats, Function<Run, String> value) {
        List<String> parts = new ArrayList<>();
        for (String variant : List.of(ANCHOR, DOCS, DECLARED, LEARNED)) {
            List<String> values = values(repeats, variant, value);
            if (!values.isEmpty()) {
                String name = variant.equals(DECLARED) ? "declared" : variant.equals(DOCS) ? "docs" : variant;
                parts.add(name + ":" + String.join("/", values));
            }
        }
        return String.join(",", parts);
    }

    /** A variant's value in each repeat that ran it. */
    private static List<String> values(List<Map<String, Run>> repeats, String variant, Function<Run, String> value) {
        return repeats.stream()
                .map(runs -> runs.get(variant))
                .filter(Objects::nonNull)
                .map(value)
                .toList();
    }
}
