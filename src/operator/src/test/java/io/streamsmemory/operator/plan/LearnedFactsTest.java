package io.streamsmemory.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.StoresSpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.observe.ObservedTopology;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class LearnedFactsTest {
    /** Two pods of one JVM each: 2 threads and 6 active + 6 standby tasks in all, 18 RocksDB instances on the busiest. */
    static final ObservedTopology TWO_PODS = new ObservedTopology(1L, 2L, 6L, 6L, 6L, 18L, 9_000L);

    @Test
    void beforeAnyReportEveryOmittedFactIsAProvisionalDefault() {
        WorkloadFacts.Builder builder = builder();
        LearnedFacts learned = LearnedFacts.apply(null, null, Optional.empty(), Optional.empty(), Map.of(), builder);
        List<LearnedFacts.Fact> facts = learned.facts();
        WorkloadFacts planned = builder.build();

        assertThat(sources(facts))
                .containsExactly(
                        Map.entry("instancesPerPod", "1 Default"),
                        Map.entry("threads", "1 Default"),
                        Map.entry("tasksPerPod", "8 Default"),
                        Map.entry("standbyReplicas", "0 Default"),
                        Map.entry("stores", "2 RocksDB instances per task Default"),
                        Map.entry("loadedClasses", "15000 Default"));
        assertThat(learned.provisional()).hasSize(6);
        assertThat(planned.tasksPerPod()).isEqualTo(LearnedFacts.DEFAULT_TASKS_PER_POD);
        assertThat(planned.partitions()).isNull();
        assertThat(planned.stores()).isEqualTo(new StoreCounts(2, 0, 0));
        assertThat(planned.validate()).isEmpty();
    }

    @Test
    void whatThePodsReportFillsTheOmittedFacts() {
        WorkloadFacts.Builder builder = builder();
        LearnedFacts learned = LearnedFacts.apply(
                new StreamsSpec(), new JvmSpec(), Optional.empty(), Optional.of(TWO_PODS), Map.of(), builder);
        List<LearnedFacts.Fact> facts = learned.facts();
        WorkloadFacts planned = builder.build();

        assertThat(learned.provisional()).isEmpty();
        assertThat(planned.streamThreads()).isEqualTo(2);
        // Every pod's active tasks together are the partitions, so the plan follows the replicas as a declared one.
        assertThat(planned.partitions()).isEqualTo(6);
        assertThat(planned.tasksPerPod()).isNull();
        assertThat(planned.standbyReplicas()).isEqualTo(1);
        assertThat(planned.stores()).isEqualTo(new StoreCounts(3, 0, 0)); // 18 instances over 6 tasks
        assertThat(planned.loadedClasses()).isEqualTo(15_000); // 9,000 x 1.25 rounds up to 12,000: never below 15,000
        assertThat(sources(facts)).containsEntry("partitions", "6 Observed").containsEntry("threads", "2 Observed");
    }

    @Test
    void aDeclaredFactAlwaysWinsAndTheAnnotationWinsOverThePolicy() {
        StreamsSpec streams = new StreamsSpec();
        streams.setThreads(3);
        streams.setTasksPerPod(5);
        streams.setStandbyReplicas(0);
        StoresSpec stores = new StoresSpec();
        stores.setKeyValue(1);
        stores.setWindow(1);
        streams.setStores(stores);
        JvmSpec jvm = new JvmSpec();
        jvm.setLoadedClasses(4_000);
        WorkloadFacts.Builder builder = builder();
        LearnedFacts learned =
                LearnedFacts.apply(streams, jvm, Optional.empty(), Optional.of(TWO_PODS), Map.of(), builder);
        List<LearnedFacts.Fact> facts = learned.facts();
        WorkloadFacts planned = builder.build();

        assertThat(planned.streamThreads()).isEqualTo(3);
        assertThat(planned.tasksPerPod()).isEqualTo(5);
        assertThat(planned.standbyReplicas()).isZero();
        assertThat(planned.stores()).isEqualTo(new StoreCounts(1, 1, 0));
        assertThat(planned.loadedClasses()).isEqualTo(4_000);
        assertThat(sources(facts))
                .containsEntry("threads", "3 Declared")
                .containsEntry("tasksPerPod", "5 Declared")
                .containsEntry("stores", "1 key-value, 1 window, 0 session Declared")
                .containsEntry("instancesPerPod", "1 Observed");

        WorkloadFacts.Builder annotated = builder();
        LearnedFacts.apply(streams, jvm, Optional.of(7), Optional.of(TWO_PODS), Map.of(), annotated);
        assertThat(annotated.build().streamThreads()).isEqualTo(7);
    }

    @Test
    void threadsArePerInstanceAndAManyClassJvmRaisesTheClassCount() {
        // One JVM running 2 KafkaStreams instances with 6 stream threads in all, loading 20,000 classes.
        ObservedTopology twoInstances = new ObservedTopology(2L, 6L, 4L, 0L, 4L, 0L, 20_000L);
        WorkloadFacts.Builder builder = builder();
        LearnedFacts learned =
                LearnedFacts.apply(null, null, Optional.empty(), Optional.of(twoInstances), Map.of(), builder);
        List<LearnedFacts.Fact> facts = learned.facts();
        WorkloadFacts planned = builder.build();

        assertThat(planned.instancesPerPod()).isEqualTo(2);
        assertThat(planned.streamThreads()).isEqualTo(3);
        assertThat(planned.loadedClasses()).isEqualTo(25_000);
        // No RocksDB instance seen (the stores are not open yet, or are in memory): the default stands.
        assertThat(sources(facts)).containsEntry("stores", "2 RocksDB instances per task Default");
        assertThat(learned.provisional()).containsExactly("stores");
        assertThat(planned.loadedClasses()).isLessThanOrEqualTo(MemoryModel.MAX_LOADED_CLASSES);
    }

    @Test
    void aRestartedOperatorPlansWhatItPublishedBeforeTheFirstReportAndLearnedFactsNeverFall() {
        WorkloadFacts.Builder first = builder();
        LearnedFacts published =
                LearnedFacts.apply(null, null, Optional.empty(), Optional.of(TWO_PODS), Map.of(), first);
        assertThat(published.annotation())
                .isEqualTo("instancesPerPod=1,threads=2,partitions=6,standbyReplicas=1,"
                        + "rocksDbInstancesPerTask=3,loadedClasses=15000");

        // An empty window (the operator restarted): the published plan, not the defaults.
        WorkloadFacts.Builder restarted = builder();
        LearnedFacts again = LearnedFacts.apply(
                null, null, Optional.empty(), Optional.empty(), LearnedFacts.parse(published.annotation()), restarted);
        assertThat(restarted.build()).isEqualTo(first.build());
        assertThat(again.provisional()).isEmpty();

        // A rebalance shows fewer tasks for a while: the plan holds what it learned.
        ObservedTopology rebalancing = new ObservedTopology(1L, 2L, 3L, 0L, 3L, 9L, 9_000L);
        WorkloadFacts.Builder during = builder();
        LearnedFacts.apply(
                null,
                null,
                Optional.empty(),
                Optional.of(rebalancing),
                LearnedFacts.parse(published.annotation()),
                during);
        assertThat(during.build()).isEqualTo(first.build());
        // What is not a name=count pair is left out, not fatal.
        assertThat(LearnedFacts.parse("threads=x,partitions=4,garbage")).containsExactly(Map.entry("partitions", 4));
    }

    private static WorkloadFacts.Builder builder() {
        return WorkloadFacts.builder().memoryBytes(1L << 30);
    }

    private static Map<String, String> sources(List<LearnedFacts.Fact> facts) {
        return facts.stream()
                .collect(Collectors.toMap(
                        LearnedFacts.Fact::name,
                        f -> f.value() + " " + f.source(),
                        (a, b) -> a,
                        java.util.LinkedHashMap::new));
    }
}
