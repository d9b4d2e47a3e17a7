package io.streamsmemory.agent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What RocksDB itself did during a run, read from the LOG file every instance writes into its own folder (its event
 * log: one JSON object per flush and compaction, and its warnings when it slows or stops writes). Read after the run,
 * so it costs the run nothing, unlike RocksDB's statistics object ({@code metrics.recording.level=DEBUG}).
 * Issue 43's causes show here: many small flushes (the shared WriteBufferManager flushing tiny memtables), their
 * reasons, level-0 files piling up, compaction rewriting the data, and write stalls.
 */
record RocksDbLogs(
        int instances,
        long flushes,
        long flushedBytes,
        Map<String, Long> flushReasons,
        Map<String, long[]> flushesByFamily,
        long compactions,
        long compactionOutputBytes,
        long compactionMicros,
        int maxLevel0Files,
        long slowdowns,
        long stops,
        Map<String, Long> stallCauses) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EVENT = "EVENT_LOG_v1 ";

    static final RocksDbLogs NONE = new RocksDbLogs(0, 0, 0, Map.of(), Map.of(), 0, 0, 0, 0, 0, 0, Map.of());
    /**
     * The line a flush job writes before its {@code flush_started} event, naming the column family: "[keyValue] [JOB
     * 5] Flushing memtable with next log file: 7". Kafka Streams 4 flushes a store's column families together
     * ({@code atomic_flush}), so one job flushes the data family and the tiny {@code offsets} one.
     */
    private static final Pattern FLUSHING = Pattern.compile("\\[([^\\]/]+)\\] \\[JOB \\d+\\] Flushing memtable");

    /** Every RocksDB LOG (and rolled LOG.old.*) under {@code stateDir}, summed. */
    static RocksDbLogs read(Path stateDir) {
        if (!Files.isDirectory(stateDir)) {
            return NONE;
        }
        Counter counter = new Counter();
        try (Stream<Path> paths = Files.walk(stateDir)) {
            List<Path> logs = paths.filter(p -> {
                        String name = p.getFileName().toString();
                        return name.equals("LOG") || name.startsWith("LOG.old.");
                    })
                    .toList();
            for (Path log : logs) {
                if (log.getFileName().toString().equals("LOG")) {
                    counter.instances++;
                }
                counter.read(log);
            }
        } catch (IOException e) {
            return NONE;
        }
        return counter.logs();
    }

    /** Average bytes an L0 file of a flush holds. */
    long averageFlushBytes() {
        return flushes == 0 ? 0 : flushedBytes / flushes;
    }

    /** One line for a run's row: flushes, their average size and reasons, compaction, L0, stalls. */
    String line() {
        return String.format(
                Locale.ROOT,
                "rocksdb: instances=%d flushes=%d avg_flush_kib=%d flushed_mib=%.1f by_family=%s reasons=%s compactions=%d "
                        + "compaction_out_mib=%.1f compaction_s=%.1f max_l0_files=%d write_slowdowns=%d write_stops=%d "
                        + "stall_causes=%s",
                instances,
                flushes,
                averageFlushBytes() / 1024,
                flushedBytes / 1048576.0,
                byFamily(),
                flushReasons.isEmpty() ? "none" : flushReasons.toString().replace(" ", ""),
                compactions,
                compactionOutputBytes / 1048576.0,
                compactionMicros / 1e6,
                maxLevel0Files,
                slowdowns,
                stops,
                stallCauses.isEmpty() ? "none" : stallCauses.toString().replace(" ", ""));
    }

    /** Each column family's flushes and their average size: "{keyValueWithTimestamp:3200/280KiB,offsets:3200/0KiB}". */
    private String byFamily() {
        if (flushesByFamily.isEmpty()) {
            return "none";
        }
        StringBuilder out = new StringBuilder("{");
        new TreeMap<>(flushesByFamily)
                .forEach((family, countAndBytes) -> out.append(out.length() > 1 ? "," : "")
                        .append(family)
                        .append(':')
                        .append(countAndBytes[0])
                        .append('/')
                        .append(countAndBytes[0] == 0 ? 0 : countAndBytes[1] / countAndBytes[0] / 1024)
                        .append("KiB"));
        return out.append('}').toString();
    }

    /**
     * Why RocksDB slowed or stopped writes, from its warning ("Stopping writes because we have 2 immutable memtables
     * (waiting for flush), max_write_buffer_number is set to 2"): "stop:memtables", "slow:level0",
     * "stop:pending-compaction", ...
     */
    static String stallCause(String line) {
        String kind = line.contains("Stopping writes") ? "stop" : "slow";
        if (line.contains("immutable memtables")) {
            return kind + ":memtables";
        }
        if (line.contains("level-0 files")) {
            return kind + ":level0";
        }
        if (line.contains("pending compaction bytes")) {
            return kind + ":pending-compaction";
        }
        return kind + ":other";
    }

    private static final class Counter {
        int instances;
        long flushes;
        long flushedBytes;
        final Map<String, Long> reasons = new TreeMap<>();
        final Map<String, long[]> byFamily = new TreeMap<>();
        /** The column family of the flush whose {@code flush_started} event comes next. */
        String flushingFamily = "unknown";

        long compactions;
        long compactionOutputBytes;
        long compactionMicros;
        int maxLevel0;
        long slowdowns;
        long stops;
        final Map<String, Long> stallCauses = new TreeMap<>();

        void read(Path log) throws IOException {
            try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.ISO_8859_1)) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.contains("Stalling writes")) {
                        slowdowns++;
                        stallCauses.merge(stallCause(line), 1L, Long::sum);
                    } else if (line.contains("Stopping writes")) {
                        stops++;
                        stallCauses.merge(stallCause(line), 1L, Long::sum);
                    }
                    Matcher flushing = FLUSHING.matcher(line);
                    if (flushing.find()) {
                        flushingFamily = flushing.group(1);
                    }
                    int at = line.indexOf(EVENT);
                    if (at >= 0) {
                        event(line.substring(at + EVENT.length()));
                    }
                }
            }
        }

        void event(String json) {
            JsonNode event;
            try {
                event = JSON.readTree(json);
            } catch (IOException e) {
                return; // a line cut short by the run's end
            }
            switch (event.path("event").asText()) {
                case "flush_started" -> {
                    flushes++;
                    long bytes = event.path("total_data_size").asLong();
                    flushedBytes += bytes;
                    long[] family = byFamily.computeIfAbsent(flushingFamily, f -> new long[2]);
                    family[0]++;
                    family[1] += bytes;
                    reasons.merge(event.path("flush_reason").asText("unknown"), 1L, Long::sum);
                }
                case "flush_finished" -> level0(event);
                case "compaction_finished" -> {
                    compactions++;
                    compactionOutputBytes += event.path("total_output_size").asLong();
                    compactionMicros += event.path("compaction_time_micros").asLong();
                    level0(event);
                }
                default -> {}
            }
        }

        void level0(JsonNode event) {
            JsonNode lsm = event.path("lsm_state");
            if (lsm.isArray() && !lsm.isEmpty()) {
                maxLevel0 = Math.max(maxLevel0, lsm.get(0).asInt());
            }
        }

        RocksDbLogs logs() {
            return new RocksDbLogs(
                    instances,
                    flushes,
                    flushedBytes,
                    Map.copyOf(reasons),
                    Map.copyOf(byFamily),
                    compactions,
                    compactionOutputBytes,
                    compactionMicros,
                    maxLevel0,
                    slowdowns,
                    stops,
                    Map.copyOf(stallCauses));
        }
    }
}
