package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.engine.ObservedJvm;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import org.junit.jupiter.api.Test;

/** The learned variant's arithmetic: peaks kept over the agent's reports, the facts planned from them, the goal. */
class ObservedPeaksTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void keepsEachFiguresPeakOverTheReports() throws Exception {
        ObservedPeaks early = ObservedPeaks.of(JSON.readTree("{\"jvm\":{\"metaspacePeakCommittedBytes\":30000000,"
                + "\"metaspaceUsedBytes\":29000000,\"codeCachePeakBytes\":9000000,\"liveThreads\":40,"
                + "\"loadedClasses\":6100},\"streams\":{\"streamThreads\":4,\"activeTasks\":16,\"standbyTasks\":0,"
                + "\"rocksDbInstances\":48}}"));
        // A report without the peak figures falls back on the used ones.
        ObservedPeaks late = ObservedPeaks.of(JSON.readTree("{\"jvm\":{\"metaspaceUsedBytes\":31000000,"
                + "\"codeCacheUsedBytes\":8000000,\"liveThreads\":38,\"loadedClasses\":6250},"
                + "\"streams\":{\"streamThreads\":4,\"activeTasks\":12,\"rocksDbInstances\":80}}"));

        ObservedPeaks peaks = ObservedPeaks.NONE.max(early).max(late);

        assertThat(peaks).isEqualTo(new ObservedPeaks(31_000_000, 9_000_000, 40, 6_250, 4, 16, 0, 80, 0));
        assertThat(peaks.missing()).isNull();
    }

    @Test
    void theHeadroomCountsFromReportsOfASettledJvmAsTheOperatorCountsIt() throws Exception {
        String report = "{\"process\":{\"rssBytes\":419430400},\"jvm\":{\"uptimeMillis\":%d,"
                + "\"heapCommittedBytes\":157286400,\"metaspaceUsedBytes\":31457280,\"codeCacheUsedBytes\":14680064,"
                + "\"directUsedBytes\":2097152,\"liveThreads\":40},\"rocksdb\":{\"blockCacheCapacityBytes\":67108864,"
                + "\"blockCacheUsageBytes\":62914560},\"streams\":{\"streamThreads\":4,\"activeTasks\":16}}";
        // 400 MiB - heap 150 - metaspace 30 - code cache 14 - direct 2 - 40 x 256 KiB - block cache 60 = 134 MiB.
        assertThat(ObservedPeaks.of(JSON.readTree(String.format(report, 30_000)), 60_000)
                        .headroomBytes())
                .isZero();
        ObservedPeaks settled = ObservedPeaks.of(JSON.readTree(String.format(report, 90_000)), 60_000);
        assertThat(settled.headroomBytes()).isEqualTo(134L << 20);
        assertThat(settled.learnedFacts(512L << 20).observedJvm().headroomBytes())
                .isEqualTo(134L << 20);
    }

    @Test
    void aReportWithoutStreamsCannotBeLearnedFrom() throws Exception {
        ObservedPeaks jvmOnly = ObservedPeaks.of(JSON.readTree(
                "{\"jvm\":{\"metaspacePeakCommittedBytes\":1,\"codeCachePeakBytes\":1,\"liveThreads\":1}}"));

        assertThat(jvmOnly.missing()).isEqualTo("no streamThreads activeTasks in the reports");
        assertThat(ObservedPeaks.NONE.missing()).startsWith("no metaspace codeCache liveThreads");
    }

    @Test
    void plansAsTheOperatorDoesForObservedSizingAndALearnedTopology() {
        ObservedPeaks peaks = new ObservedPeaks(31_000_000, 9_000_000, 40, 6_250, 4, 16, 2, 81, 0);

        WorkloadFacts facts = peaks.learnedFacts(536_870_912L);

        assertThat(facts.memoryBytes()).isEqualTo(536_870_912L);
        assertThat(facts.streamThreads()).isEqualTo(4);
        assertThat(facts.tasksPerPod()).isEqualTo(16);
        assertThat(facts.partitions()).isNull();
        assertThat(facts.standbyReplicas()).isZero();
        // 81 instances over 16 tasks: ceil(5.06) = 6 key-value stores per task.
        assertThat(facts.stores()).isEqualTo(new StoreCounts(6, 0, 0));
        // 6,250 classes x 1.25 = 7,813, in thousands 8,000: under the default, so 15,000.
        assertThat(facts.loadedClasses()).isEqualTo(15_000);
        assertThat(facts.observedJvm()).isEqualTo(new ObservedJvm(31_000_000, 9_000_000, 40));
        assertThat(facts.validate()).isEmpty();
    }

    @Test
    void learnsTwentyFivePercentMoreClassesInThousands() {
        assertThat(new ObservedPeaks(1, 1, 1, 12_001, 1, 1, 0, 0, 0).learnedLoadedClasses())
                .isEqualTo(16_000);
        assertThat(new ObservedPeaks(1, 1, 1, 16_000, 1, 1, 0, 0, 0).learnedLoadedClasses())
                .isEqualTo(20_000);
        assertThat(new ObservedPeaks(1, 1, 1, 16_000, 1, 1, 0, 0, 0).keyValueStoresPerTask())
                .isZero();
    }

    @Test
    void theGoalIsRssWithinEightyFiveToHundredPercentAtNinetyPercentThroughput() {
        assertThat(MemoryBenchmark.goal(0.85, 0.9)).isEqualTo("met");
        assertThat(MemoryBenchmark.goal(1.0, 1.3)).isEqualTo("met");
        assertThat(MemoryBenchmark.goal(0.62, 1.1)).isEqualTo("missed(rss_ratio<0.85)");
        assertThat(MemoryBenchmark.goal(1.01, 0.8)).isEqualTo("missed(rss_ratio>1.00,throughput_ratio<0.9)");
        assertThat(MemoryBenchmark.goal(0.9, Double.NaN)).isEqualTo("missed(throughput_ratio=NaN)");
    }

    @Test
    void readsTheVariantsToRun() {
        assertThat(MemoryBenchmark.selectedVariants("")).isEmpty();
        assertThat(MemoryBenchmark.selectedVariants(" default, docs ,learned,default"))
                .containsExactly("default", "docs-bounded", "learned");
    }
}
