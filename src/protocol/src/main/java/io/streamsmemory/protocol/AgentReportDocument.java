package io.streamsmemory.protocol;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One agent report ({@code GET /report}): the allocation the JVM runs on, a few words, and its figures in sections
 * ({@link ReportFigure.Section}). A figure the agent could not read is absent, never 0; an agent older than a figure
 * leaves it out. Written and read by {@link ReportJson} only.
 */
public final class AgentReportDocument {
    /** Changes only when a reader of the old version would misread the new one; figures are added within a version. */
    public static final int FORMAT_VERSION = 1;

    private final Map<String, String> words;
    private final Map<String, Map<String, Long>> sections;
    private final Long unexplainedBytes;

    /**
     * @param words            the top-level strings ({@link Word}), absent ones left out
     * @param sections         section name to its figures, in the document's order; empty sections are left out
     * @param unexplainedBytes the RSS the JVM's pools and RocksDB do not explain (may be negative), null when unknown
     */
    public AgentReportDocument(
            Map<String, String> words, Map<String, Map<String, Long>> sections, Long unexplainedBytes) {
        Map<String, String> keptWords = new LinkedHashMap<>();
        words.forEach((name, value) -> {
            if (value != null) {
                keptWords.put(name, value);
            }
        });
        this.words = Collections.unmodifiableMap(keptWords);
        Map<String, Map<String, Long>> kept = new LinkedHashMap<>();
        sections.forEach((name, figures) -> {
            if (!figures.isEmpty()) {
                kept.put(name, Collections.unmodifiableMap(new LinkedHashMap<>(figures)));
            }
        });
        this.sections = Collections.unmodifiableMap(kept);
        this.unexplainedBytes = unexplainedBytes;
    }

    /** The report's top-level strings, by their names in the JSON. */
    public static final class Word {
        public static final String ALLOCATION_HASH = "allocationHash";
        public static final String RESTART_HASH = "restartHash";
        /** Which record cache the application got: plan, application, kafka-default or none. */
        public static final String RECORD_CACHE_SOURCE = "recordCacheSource";
        /** The application's Kafka Streams version, as its jar says. */
        public static final String KAFKA_STREAMS_VERSION = "kafkaStreamsVersion";
        /** The JVM argument that set the heap in force when it is not the plan's. */
        public static final String HEAP_FLAG = "heapFlag";
        /** The store names of the suppression buffers with no bound. */
        public static final String UNBOUNDED_SUPPRESSION_BUFFERS = "unboundedSuppressionBuffers";

        private Word() {}
    }

    /** A top-level string, null when absent. */
    public String word(String name) {
        return words.get(name);
    }

    public Map<String, String> words() {
        return words;
    }

    /** The figure as written (any whole number that fits a long), null when absent. */
    public Long figure(ReportFigure figure) {
        Map<String, Long> section = sections.get(figure.section());
        return section == null ? null : section.get(figure.field());
    }

    /** Whether the report has the section at all (an agent older than it, or a JVM without it, has not). */
    public boolean has(String section) {
        return sections.containsKey(section);
    }

    public Map<String, Map<String, Long>> sections() {
        return sections;
    }

    public Long unexplainedBytes() {
        return unexplainedBytes;
    }
}
