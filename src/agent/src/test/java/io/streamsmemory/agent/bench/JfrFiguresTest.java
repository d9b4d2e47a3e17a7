package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's reading of a real flight recording: the stream threads' frames and the allocation rate. */
class JfrFiguresTest {
    private static volatile Object sink;

    @Test
    void findsTheMethodAStreamThreadSpendsItsTimeInAndWhatItAllocates(@TempDir Path dir) throws Exception {
        Instant from;
        Instant to;
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            recording.enable("jdk.ObjectAllocationSample");
            recording.start();
            from = Instant.now();
            Thread streamThread = new Thread(JfrFiguresTest::allocateForASecond, "bench-StreamThread-1");
            Thread other = new Thread(JfrFiguresTest::allocateForASecond, "kafka-producer-network-thread");
            streamThread.start();
            other.start();
            streamThread.join();
            other.join();
            to = Instant.now();
            recording.stop();
            recording.dump(dir.resolve(JfrFigures.RECORDING));
        }

        JfrFigures figures = JfrFigures.read(dir, from, to);

        assertThat(figures.javaSamples()).isGreaterThan(10);
        // Only the stream thread's samples count, and it spent most of them allocating arrays in this method: its
        // frame is the most sampled. Not always more than half: a .ci/run, the operator's tests beside it, put 77 of
        // at least 164 there and the rest in other frames.
        assertThat(figures.javaFrames()).containsKey("JfrFiguresTest.allocateForASecond");
        assertThat(figures.javaFrames().entrySet().stream()
                        .max(Map.Entry.comparingByValue())
                        .orElseThrow()
                        .getKey())
                .isEqualTo("JfrFiguresTest.allocateForASecond");
        // Both threads allocated about as fast as they could: far more than 10 MiB a second.
        assertThat(figures.allocatedBytesPerSecond()).isGreaterThan(10 * 1048576.0);
        assertThat(figures.line()).startsWith("jfr: allocation ").contains("allocateForASecond");
    }

    @Test
    void aRunWithoutARecordingHasNoFigures(@TempDir Path dir) throws Exception {
        assertThat(JfrFigures.read(dir, Instant.EPOCH, Instant.now())).isNull();
    }

    @Test
    void theTopFramesAreTheMostSampledWithTheirShare() {
        assertThat(JfrFigures.top(Map.of("A.a", 50L, "B.b", 30L, "C.c", 20L), 200))
                .isEqualTo("A.a 25%, B.b 15%, C.c 10%");
        assertThat(JfrFigures.top(Map.of(), 0)).isEqualTo("none");
    }

    /**
     * A second of this thread's CPU time, not of the clock: JFR samples a thread only while it runs, and on a loaded
     * machine a second of the clock can hold a few milliseconds of it.
     */
    private static void allocateForASecond() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long end = threads.getCurrentThreadCpuTime() + 1_000_000_000L;
        while (threads.getCurrentThreadCpuTime() < end) {
            // A few milliseconds of allocation between two reads of the CPU time, so the samples land here.
            for (int i = 0; i < 50_000; i++) {
                sink = new byte[1024 + i % 1_000];
            }
        }
    }
}
