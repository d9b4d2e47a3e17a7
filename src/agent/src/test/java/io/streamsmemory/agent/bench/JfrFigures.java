package io.streamsmemory.agent.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * What a run's flight recording ({@code JFR=true}) says about its steady window: the rate the JVM allocated at, and
 * where the stream threads were when JFR sampled them. JFR's default settings sample each thread running Java code every
 * 20 ms ({@code jdk.ExecutionSample}) and each thread in native code every 20 ms ({@code jdk.NativeMethodSample}):
 * RocksDB's JNI calls, and also a consumer waiting in {@code poll}. A thread blocked on a lock or parked is not
 * sampled, and RocksDB's own flush and compaction threads are not Java threads, so the shares are of samples, not of
 * the CPU. Allocation is the sum of {@code jdk.ObjectAllocationSample}'s weights, JFR's estimate of all allocation.
 */
record JfrFigures(
        double seconds,
        double allocatedBytesPerSecond,
        long javaSamples,
        long nativeSamples,
        Map<String, Long> javaFrames,
        Map<String, Long> nativeFrames) {
    static final String RECORDING = "recording.jfr";
    /** The frames a run's row names, by samples. */
    static final int TOP_FRAMES = 5;

    /** The JVM option that records a run into {@code dir}, written when the JVM exits. */
    static String option(Path dir) {
        return "-XX:StartFlightRecording=dumponexit=true,filename=" + dir.resolve(RECORDING);
    }

    /** The events between {@code from} and {@code to} of the recording in {@code dir}; null when there is none. */
    static JfrFigures read(Path dir, Instant from, Instant to) throws IOException {
        Path recording = dir.resolve(RECORDING);
        if (!Files.isRegularFile(recording) || !to.isAfter(from)) {
            return null;
        }
        long allocated = 0;
        long javaSamples = 0;
        long nativeSamples = 0;
        Map<String, Long> javaFrames = new HashMap<>();
        Map<String, Long> nativeFrames = new HashMap<>();
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                Instant at = event.getStartTime();
                if (at.isBefore(from) || at.isAfter(to)) {
                    continue;
                }
                switch (event.getEventType().getName()) {
                    case "jdk.ObjectAllocationSample" -> allocated += event.getLong("weight");
                    case "jdk.ExecutionSample" -> {
                        if (streamThread(event)) {
                            javaSamples++;
                            javaFrames.merge(topFrame(event), 1L, Long::sum);
                        }
                    }
                    case "jdk.NativeMethodSample" -> {
                        if (streamThread(event)) {
                            nativeSamples++;
                            nativeFrames.merge(topFrame(event), 1L, Long::sum);
                        }
                    }
                    default -> {}
                }
            }
        }
        double seconds = (to.toEpochMilli() - from.toEpochMilli()) / 1000.0;
        return new JfrFigures(seconds, allocated / seconds, javaSamples, nativeSamples, javaFrames, nativeFrames);
    }

    /** Kafka Streams names its processing threads {@code <client id>-StreamThread-<n>}. */
    private static boolean streamThread(RecordedEvent event) {
        RecordedThread thread = event.getThread("sampledThread");
        return thread != null
                && thread.getJavaName() != null
                && thread.getJavaName().contains("StreamThread-");
    }

    private static String topFrame(RecordedEvent event) {
        if (event.getStackTrace() == null || event.getStackTrace().getFrames().isEmpty()) {
            return "(no stack)";
        }
        RecordedFrame frame = event.getStackTrace().getFrames().get(0);
        String type = frame.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "."
                + frame.getMethod().getName();
    }

    /** One line for a run's row: allocation, then the stream threads' samples and their top frames. */
    String line() {
        long samples = javaSamples + nativeSamples;
        return String.format(
                Locale.ROOT,
                "jfr: allocation %.1f MiB/s; stream threads %d samples, %.0f%% in Java (top %s), %.0f%% in native (top %s)",
                allocatedBytesPerSecond / 1048576.0,
                samples,
                samples == 0 ? 0 : 100.0 * javaSamples / samples,
                top(javaFrames, samples),
                samples == 0 ? 0 : 100.0 * nativeSamples / samples,
                top(nativeFrames, samples));
    }

    /** The most sampled frames, each with its share of all the stream threads' samples. */
    static String top(Map<String, Long> frames, long samples) {
        List<Map.Entry<String, Long>> sorted = frames.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(TOP_FRAMES)
                .toList();
        return sorted.isEmpty()
                ? "none"
                : sorted.stream()
                        .map(e -> String.format(Locale.ROOT, "%s %.0f%%", e.getKey(), 100.0 * e.getValue() / samples))
                        .collect(Collectors.joining(", "));
    }
}
