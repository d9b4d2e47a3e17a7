package io.streamsmemory.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportJsonTest {
    @Test
    void whatTheAgentWritesReadsBackFigureForFigure() {
        Map<String, String> words = new LinkedHashMap<>();
        words.put(AgentReportDocument.Word.ALLOCATION_HASH, "abc\"def");
        words.put(AgentReportDocument.Word.HEAP_FLAG, null);
        Map<String, Map<String, Long>> sections = new LinkedHashMap<>();
        sections.put(ReportFigure.Section.PROCESS, Map.of(ReportFigure.RSS_BYTES.field(), 1000L));
        sections.put(ReportFigure.Section.STREAMS, Map.of(ReportFigure.APPLICATION_RECORD_CACHE_BYTES.field(), -1L));
        sections.put(ReportFigure.Section.ROCKSDB, Map.of());
        AgentReportDocument written = new AgentReportDocument(words, sections, -7L);

        String json = ReportJson.write(written);
        AgentReportDocument read = ReportJson.read(json.getBytes(StandardCharsets.UTF_8));

        assertThat(json).startsWith("{\"formatVersion\":1,\"allocationHash\":\"abc\\\"def\"");
        assertThat(read.word(AgentReportDocument.Word.ALLOCATION_HASH)).isEqualTo("abc\"def");
        assertThat(read.words()).doesNotContainKey(AgentReportDocument.Word.HEAP_FLAG);
        assertThat(read.figure(ReportFigure.RSS_BYTES)).isEqualTo(1000L);
        assertThat(read.figure(ReportFigure.APPLICATION_RECORD_CACHE_BYTES)).isEqualTo(-1L);
        assertThat(read.figure(ReportFigure.HEAP_USED_BYTES)).isNull();
        assertThat(read.has(ReportFigure.Section.ROCKSDB))
                .as("an empty section is left out")
                .isFalse();
        assertThat(read.unexplainedBytes()).isEqualTo(-7L);
    }

    @Test
    void aFigureThatIsNoWholeLongIsUnknownAndUnknownFieldsAreIgnored() {
        AgentReportDocument read = ReportJson.read(("{\"formatVersion\":1,\"fromANewerAgent\":[1],"
                        + "\"jvm\":{\"heapUsedBytes\":18446744073709551617,\"liveThreads\":1.5,\"uptimeMillis\":\"9\","
                        + "\"loadedClasses\":6000}}")
                .getBytes(StandardCharsets.UTF_8));

        assertThat(read.figure(ReportFigure.HEAP_USED_BYTES))
                .as("2^64 + 1 is not 1")
                .isNull();
        assertThat(read.figure(ReportFigure.LIVE_THREADS)).isNull();
        assertThat(read.figure(ReportFigure.UPTIME_MILLIS)).isNull();
        assertThat(read.figure(ReportFigure.LOADED_CLASSES)).isEqualTo(6000L);
    }

    @Test
    void anythingButAReportOfThisFormatIsRefused() {
        for (String body : new String[] {"not json", "[]", "{}", "{\"formatVersion\":2}"}) {
            assertThatThrownBy(() -> ReportJson.read(body.getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
