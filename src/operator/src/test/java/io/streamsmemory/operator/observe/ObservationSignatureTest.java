package io.streamsmemory.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * When the observer tells the reconciler of a workload: a pod in a steady state (its figures moving by less than a
 * step) tells nothing; a figure a verdict reads moving by a step, a learned fact, a crash loop, or pods that ran long
 * enough for the split tuner to judge them, each tells once.
 */
class ObservationSignatureTest {
    private static final Duration SETTLE = Duration.ofMinutes(10);
    private static final long GiB = 1L << 30;

    @Test
    void aSteadyPodTellsNothingAndAPeakAStepHigherTellsOnce() {
        ObservationSignature first = signature(WorkloadObservations.reporting(GiB, GiB), Optional.empty());

        assertThat(signature(WorkloadObservations.reporting(GiB, GiB + GiB / 1000), Optional.empty()))
                .as("a peak 0.1% higher")
                .isEqualTo(first);
        assertThat(signature(WorkloadObservations.reporting(GiB, GiB + GiB / 50), Optional.empty()))
                .as("a peak 2% higher: MemoryPressure's figure moves in 1% steps")
                .isNotEqualTo(first);
    }

    @Test
    void aLearnedFactOrACrashLoopTells() {
        WorkloadObservation seen = WorkloadObservations.reporting(GiB, GiB);
        ObservedTopology two = new ObservedTopology(1L, 2L, 4L, 0L, 4L, 8L, 6_000L, JvmCapsUse.NONE, null, null, null);
        ObservedTopology four = new ObservedTopology(1L, 4L, 4L, 0L, 4L, 8L, 6_000L, JvmCapsUse.NONE, null, null, null);

        assertThat(signature(seen, Optional.of(two))).isNotEqualTo(signature(seen, Optional.of(four)));
        assertThat(ObservationSignature.of(
                        Optional.of(seen),
                        Optional.of(two),
                        Optional.of(new CrashLoop("orders-1", "streams", 3, 1, "OutOfMemoryError: Metaspace")),
                        SETTLE))
                .isNotEqualTo(signature(seen, Optional.of(two)));
    }

    @Test
    void pastTheSettleTimeTheTunersSignalsTellAndTheirSmallMovesDoNot() {
        TuningSignals young = new TuningSignals("a1", SETTLE.toMillis() - 1, 0.10, 0.0, 8L << 20, 10.0, 100L, 2_000.0);
        TuningSignals settled = new TuningSignals("a1", SETTLE.toMillis(), 0.10, 0.0, 8L << 20, 10.0, 100L, 2_000.0);
        TuningSignals busier =
                new TuningSignals("a1", SETTLE.toMillis() * 2, 0.101, 0.0, 8L << 20, 10.0, 110L, 2_010.0);
        TuningSignals gcBound =
                new TuningSignals("a1", SETTLE.toMillis() * 2, 0.20, 0.0, 8L << 20, 10.0, 100L, 2_000.0);

        assertThat(tuned(young)).isNotEqualTo(tuned(settled));
        assertThat(tuned(busier)).as("1% more GC, 10% more lag, 0.5% more CPU").isEqualTo(tuned(settled));
        assertThat(tuned(gcBound)).isNotEqualTo(tuned(settled));
    }

    @Test
    void stepsAreTheirSizeApartAndKeepTheSign() {
        assertThat(ObservationSignature.step(100, 0.05)).isEqualTo(ObservationSignature.step(101, 0.05));
        assertThat(ObservationSignature.step(100, 0.05)).isNotEqualTo(ObservationSignature.step(110, 0.05));
        assertThat(ObservationSignature.step(-100, 0.05)).startsWith("-");
        assertThat(ObservationSignature.step(null, 0.05)).isEqualTo("?");
    }

    private static ObservationSignature signature(WorkloadObservation seen, Optional<ObservedTopology> topology) {
        return ObservationSignature.of(Optional.of(seen), topology, Optional.empty(), SETTLE);
    }

    private static ObservationSignature tuned(TuningSignals signals) {
        WorkloadObservation seen = WorkloadObservations.reporting(GiB, GiB);
        return signature(
                new WorkloadObservation(
                        seen.podsReporting(),
                        seen.podsNotAnswering(),
                        seen.usedBytes(),
                        seen.peakBytes(),
                        seen.heapUsedBytes(),
                        seen.blockCacheUsageBytes(),
                        seen.rocksDbInstances(),
                        seen.activeTasks(),
                        seen.standbyTasks(),
                        seen.streamThreads(),
                        seen.oomKills(),
                        seen.unexplainedBytes(),
                        seen.loadedClasses(),
                        seen.metaspaceUsedBytes(),
                        seen.recordCacheBytes(),
                        seen.recordCacheSource(),
                        seen.capHit(),
                        signals,
                        seen.heapOverride(),
                        seen.heapState()),
                Optional.empty());
    }
}
