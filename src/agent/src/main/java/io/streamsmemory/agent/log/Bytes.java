package io.streamsmemory.agent.log;

import java.util.Locale;

/** Human-readable byte counts for log lines. */
public final class Bytes {
    private Bytes() {}

    public static String format(long bytes) {
        if (bytes < 0) {
            return Long.toString(bytes);
        }
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.2f MiB", bytes / (double) (1L << 20));
        }
        if (bytes >= 1L << 10) {
            return String.format(Locale.ROOT, "%.2f KiB", bytes / (double) (1L << 10));
        }
        return bytes + " B";
    }
}
