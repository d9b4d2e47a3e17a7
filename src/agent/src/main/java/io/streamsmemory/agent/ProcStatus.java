package io.streamsmemory.agent;

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
            return parse(new String(Files.readAllBytes(status), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    static Map<String, Long> parse(String text) {
        Map<String, Long> out = new LinkedHashMap<>();
        putKib(out, "rssBytes", text, "VmRSS:");
        putKib(out, "rssPeakBytes", text, "VmHWM:");
        return out;
    }

    /** A line "Name:   1234 kB" (the kernel always writes kB, meaning KiB) in bytes. */
    private static void putKib(Map<String, Long> out, String field, String text, String name) {
        int at = text.startsWith(name) ? 0 : text.indexOf("\n" + name);
        if (at < 0) {
            return;
        }
        int start = text.indexOf(name, at) + name.length();
        int end = text.indexOf('\n', start);
        String value = (end < 0 ? text.substring(start) : text.substring(start, end)).trim();
        if (!value.endsWith(" kB")) {
            return;
        }
        try {
            out.put(field, Long.parseLong(value.substring(0, value.length() - 3).trim()) * 1024);
        } catch (NumberFormatException e) {
            // an unreadable figure is left out, never written as 0
        }
    }
}
