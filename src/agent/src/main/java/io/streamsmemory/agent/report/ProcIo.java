package io.streamsmemory.agent.report;

import io.streamsmemory.protocol.ReportFigure;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The bytes this process caused to be read from storage, {@code read_bytes} of {@code /proc/self/io}: page-cache hits
 * are not in it, so its growth over a window is what a page cache too small for the stores' files costs.
 */
final class ProcIo {
    static final Path SELF = Path.of("/proc/self/io");

    private ProcIo() {}

    /** {@code storageReadBytes} for the report's {@code process} section; empty when the file cannot be read. */
    static Map<String, Long> read(Path io) {
        try {
            return parse(ProcStatus.readAscii(io));
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    static Map<String, Long> parse(String text) {
        String value = ProcStatus.value(text, "read_bytes:");
        if (value == null) {
            return Map.of();
        }
        try {
            long bytes = Long.parseLong(value);
            return bytes < 0 ? Map.of() : Map.of(ReportFigure.STORAGE_READ_BYTES.field(), bytes);
        } catch (NumberFormatException e) {
            return Map.of(); // an unreadable figure is left out, never written as 0
        }
    }
}
