package io.streamsmemory.operator.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the fault scenarios measured, summed into the line docs/operations.md quotes. Written to
 * {@code target/faults/summary.txt}, which {@code make test} prints.
 */
final class FaultLedger {
    private static final Path SUMMARY = Path.of("target/faults/summary.txt");
    private int scenarios;
    private int converged;
    private int lost;
    private int extraRollouts;

    synchronized void record(String scenario, Convergence result) {
        scenarios++;
        if (result.converged()) {
            converged++;
        }
        lost += result.lost();
        extraRollouts += result.extraRollouts();
        System.out.printf(
                "faults: %s converged=%s in %d ms lost=%d extra_rollouts=%d (%s)%n",
                scenario, result.converged(), result.millis(), result.lost(), result.extraRollouts(), result.detail());
    }

    synchronized String summary() {
        return String.format(
                "faults: scenarios=%d converged=%d lost=%d extra_rollouts=%d",
                scenarios, converged, lost, extraRollouts);
    }

    void write() {
        try {
            Files.createDirectories(SUMMARY.getParent());
            Files.writeString(SUMMARY, summary() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(summary());
    }

    /**
     * One scenario's outcome: {@code lost} counts workloads whose published allocation is missing or not the
     * latest policy's, and ConfigMaps duplicated or orphaned; {@code extraRollouts} counts pod-template stamps
     * beyond one per workload for the change.
     */
    record Convergence(boolean converged, long millis, int lost, int extraRollouts, String detail) {}
}
