package io.streamsmemory.agent.report;

import io.streamsmemory.protocol.ReportFigure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The memory of the process's cgroup (in a pod: the container's), from the files the kernel writes. cgroup v2
 * ({@code memory.current}, {@code memory.max}, {@code memory.peak}, {@code oom_kill} of {@code memory.events}) when
 * {@code cgroup.controllers} exists at the root, else v1 ({@code memory.usage_in_bytes},
 * {@code memory.limit_in_bytes}, {@code memory.max_usage_in_bytes}, {@code oom_kill} of {@code memory.oom_control}).
 * The process's own group is found from {@code /proc/self/cgroup}; in a container with its own cgroup namespace
 * that is the root itself. A figure whose file is missing or unreadable is left out; v2's {@code max} (no limit) too.
 */
final class CgroupMemory {
    static final Path ROOT = Path.of("/sys/fs/cgroup");
    static final Path SELF = Path.of("/proc/self/cgroup");
    /** v1's "no limit" is PAGE_COUNTER_MAX pages, 9223372036854771712 on 4 KiB pages: anything this large is none. */
    static final long V1_UNLIMITED = 1L << 62;

    private CgroupMemory() {}

    /** The report's {@code cgroup} section; empty when no cgroup memory files are readable. */
    static Map<String, Long> read(Path root, Path selfCgroup) {
        try {
            if (Files.exists(root.resolve("cgroup.controllers"))) {
                return v2(groupDir(root, ownPath(selfCgroup, true), "memory.current"));
            }
            Path memory = root.resolve("memory");
            if (Files.isDirectory(memory)) {
                return v1(groupDir(memory, ownPath(selfCgroup, false), "memory.usage_in_bytes"));
            }
        } catch (RuntimeException e) {
            // fall through: nothing readable
        }
        return Map.of();
    }

    static Map<String, Long> v2(Path dir) {
        Map<String, Long> out = new LinkedHashMap<>();
        putNumber(out, ReportFigure.CGROUP_CURRENT_BYTES.field(), dir.resolve("memory.current"));
        putNumber(out, "maxBytes", dir.resolve("memory.max")); // "max" is not a number: left out
        putNumber(out, ReportFigure.CGROUP_PEAK_BYTES.field(), dir.resolve("memory.peak"));
        putKey(out, ReportFigure.OOM_KILLS.field(), dir.resolve("memory.events"), "oom_kill");
        return withVersion(out, 2);
    }

    static Map<String, Long> v1(Path dir) {
        Map<String, Long> out = new LinkedHashMap<>();
        putNumber(out, ReportFigure.CGROUP_CURRENT_BYTES.field(), dir.resolve("memory.usage_in_bytes"));
        putNumber(out, "maxBytes", dir.resolve("memory.limit_in_bytes"));
        Long limit = out.get("maxBytes");
        if (limit != null && limit >= V1_UNLIMITED) {
            out.remove("maxBytes"); // v1 writes a page-rounded Long.MAX_VALUE for "no limit"
        }
        putNumber(out, ReportFigure.CGROUP_PEAK_BYTES.field(), dir.resolve("memory.max_usage_in_bytes"));
        putKey(out, ReportFigure.OOM_KILLS.field(), dir.resolve("memory.oom_control"), "oom_kill");
        return withVersion(out, 1);
    }

    private static Map<String, Long> withVersion(Map<String, Long> figures, long version) {
        if (figures.isEmpty()) {
            return figures;
        }
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("version", version);
        out.putAll(figures);
        return out;
    }

    /**
     * The group's path from /proc/self/cgroup: the "0::/path" line for v2, the line whose controllers include
     * "memory" for v1; null when not found.
     */
    static String ownPath(Path selfCgroup, boolean v2) {
        String text = readText(selfCgroup);
        if (text == null) {
            return null;
        }
        for (String line : text.split("\n")) {
            String[] parts = line.split(":", 3);
            if (parts.length < 3) {
                continue;
            }
            if (v2 ? parts[0].equals("0") && parts[1].isEmpty() : ("," + parts[1] + ",").contains(",memory,")) {
                return parts[2].trim();
            }
        }
        return null;
    }

    /** The process's own group below {@code base} when its file is there, else {@code base} (a cgroup namespace). */
    private static Path groupDir(Path base, String ownPath, String probe) {
        if (ownPath != null && !ownPath.equals("/") && !ownPath.isEmpty()) {
            Path own = base.resolve(ownPath.substring(ownPath.startsWith("/") ? 1 : 0));
            if (own.normalize().startsWith(base) && Files.exists(own.resolve(probe))) {
                return own;
            }
        }
        return base;
    }

    private static void putNumber(Map<String, Long> out, String field, Path file) {
        String text = readText(file);
        Long value = text == null ? null : number(text.trim());
        if (value != null) {
            out.put(field, value);
        }
    }

    /** A "key value" line of a flat-keyed file such as memory.events or memory.oom_control. */
    private static void putKey(Map<String, Long> out, String field, Path file, String key) {
        String text = readText(file);
        if (text == null) {
            return;
        }
        for (String line : text.split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 2 && parts[0].equals(key)) {
                Long value = number(parts[1]);
                if (value != null) {
                    out.put(field, value);
                }
                return;
            }
        }
    }

    private static Long number(String text) {
        try {
            long value = Long.parseLong(text);
            return value < 0 ? null : value;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String readText(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
