package io.streamsmemory.agent.report;

import io.streamsmemory.protocol.ReportFigure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The process's resident memory from {@code /proc/self/status}: {@code VmRSS} (now) and {@code VmHWM} (peak). */
final class ProcStatus {
    static final Path SELF = Path.of("/proc/self/status");

    private ProcStatus() {}

    /** The report's {@code process} section; empty when the file is absent (not Linux) or unreadable. */
    static Map<String, Long> read(Path status) {
        try {
            return parse(readAscii(status));
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    static Map<String, Long> parse(String text) {
        Map<String, Long> out = new LinkedHashMap<>();
        putKib(out, ReportFigure.RSS_BYTES.field(), text, "VmRSS:");
        putKib(out, ReportFigure.RSS_PEAK_BYTES.field(), text, "VmHWM:");
        return out;
    }

    /** A line "Name:   1234 kB" (the kernel always writes kB, meaning KiB) in bytes. */
    private static void putKib(Map<String, Long> out, String field, String text, String name) {
        String value = value(text, name);
        if (value == null || !value.endsWith(" kB")) {
            return;
        }
        try {
            out.put(field, Long.parseLong(value.substring(0, value.length() - 3).trim()) * 1024);
        } catch (NumberFormatException e) {
            // an unreadable figure is left out, never written as 0
        }
    }

    /** The rest of the line that starts with {@code name} (e.g. "VmRSS:"), trimmed; null when there is none. */
    static String value(String text, String name) {
        int at = text.startsWith(name) ? 0 : text.indexOf("\n" + name);
        if (at < 0) {
            return null;
        }
        int start = text.indexOf(name, at) + name.length();
        int end = text.indexOf('\n', start);
        return (end < 0 ? text.substring(start) : text.substring(start, end)).trim();
    }

    /** A file of the kernel's, as text; throws when it is absent or unreadable. */
    static String readAscii(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
    }
}
