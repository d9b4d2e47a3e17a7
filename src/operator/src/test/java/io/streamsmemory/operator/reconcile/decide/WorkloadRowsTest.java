package io.streamsmemory.operator.reconcile.decide;

import static io.streamsmemory.engine.ByteSize.format;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.FactStatus;
import io.streamsmemory.operator.api.JvmSizing;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.ObservedMemoryStatus;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import io.streamsmemory.operator.observe.MemoryVerdict;
import io.streamsmemory.operator.plan.FittingPlan;
import io.streamsmemory.operator.plan.LearnedAnnotation;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.tune.TunedPlan;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A workload's row of the policy's status, as each outcome of its reconcile leaves it. */
class WorkloadRowsTest {
    private final Workload workload = Workload.of(Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi"))
            .orElseThrow();

    @Test
    void everyRowStartsWithTheWorkloadAndItsConfigMapAWorkloadScaledToZeroSizedAsOnePod() {
        WorkloadAllocationStatus row = WorkloadRows.start(workload);
        assertThat(row.getKind()).isEqualTo("Deployment");
        assertThat(row.getName()).isEqualTo("orders-app");
        assertThat(row.getReplicas()).isEqualTo(2);
        assertThat(row.getConfigMap()).isEqualTo("orders-app-deployment-streams-memory");
        assertThat(row.getAllocationHash()).isNull();

        Workload idle = Workload.of(Fixtures.statefulSetLike(Fixtures.deployment("shop", "ledger", "orders", 0, "2Gi")))
                .orElseThrow();
        WorkloadAllocationStatus idleRow = WorkloadRows.start(idle);
        assertThat(idleRow.getKind()).isEqualTo("StatefulSet");
        assertThat(idleRow.getReplicas()).isEqualTo(1);
        assertThat(idleRow.getConfigMap()).isEqualTo("ledger-statefulset-streams-memory");
    }

    @Test
    void aPlannedRowShowsTheFactsWithTheirSourcesTheRangeAndTheSize() {
        WorkloadAllocationStatus row = WorkloadRows.start(workload);

        WorkloadRows.showPlan(row, tuned(Fixtures.policy("shop", "orders", "2Gi"), Map.of()));

        assertThat(row.getFacts())
                .extracting(FactStatus::getName, FactStatus::getValue, FactStatus::getSource)
                .contains(tuple("threads", "4", "Declared"), tuple("partitions", "24", "Declared"));
        assertThat(row.getReplicaRange()).isEqualTo("1-2");
        assertThat(row.getReplicaRangeSource()).isEqualTo("default: from 1 to the current replicas");
        assertThat(row.getThreads()).isEqualTo(4);
        assertThat(row.getMemory()).isEqualTo("2 GiB");
        assertThat(row.getTunedSplit()).as("the model's split").isNull();
        assertThat(row.getJvmCapsLifted()).isNull();
    }

    @Test
    void aPlannedRowListsTheCapsLeftUnsetUntilAReportAndThoseAJvmHit() {
        WorkloadAllocationStatus waiting = WorkloadRows.start(workload);
        WorkloadRows.showPlan(waiting, tuned(observed(), Map.of()));
        assertThat(waiting.getJvmCapsAwaitingReport())
                .containsExactly(JvmCap.METASPACE.flag(), JvmCap.DIRECT_MEMORY.flag());
        assertThat(waiting.getProvisionalFacts()).contains("metaspaceCap", "directMemoryCap");
        assertThat(waiting.getJvmCapsLifted()).isNull();

        WorkloadAllocationStatus lifted = WorkloadRows.start(workload);
        WorkloadRows.showPlan(lifted, tuned(observed(), Map.of(LearnedAnnotation.liftedKey(JvmCap.METASPACE), 1)));
        assertThat(lifted.getJvmCapsLifted()).containsExactly(JvmCap.METASPACE.flag());
        assertThat(lifted.getJvmCapsAwaitingReport()).containsExactly(JvmCap.DIRECT_MEMORY.flag());
    }

    @Test
    void anAllocatedRowNamesItsPartsAndHashes() {
        Allocation allocation = Fixtures.smallAllocation(2L << 30);
        WorkloadAllocationStatus row = WorkloadRows.start(workload);

        WorkloadRows.showAllocation(row, allocation);

        assertThat(row.getAllocationHash()).isEqualTo(allocation.hash());
        assertThat(row.getRestartHash()).isEqualTo(allocation.restartHash());
        assertThat(row.getHeap()).isEqualTo(format(allocation.part("heap").bytes()));
        assertThat(row.getRocksDb()).isEqualTo(format(allocation.part("rocksdb").bytes()));
        assertThat(row.getRecordCache())
                .isEqualTo(format(allocation.part("record-cache").bytes()));
        assertThat(row.getTasksPerPod()).isEqualTo(allocation.topology().activeTasksPerPod());
        assertThat(row.getRocksDbInstances()).isEqualTo(allocation.topology().rocksDbInstances());
    }

    @Test
    void aPlanThatCouldNotBeAllocatedLeavesThePublishedHashesInTheRowWithNoRestartPending() {
        Allocation published = Fixtures.smallAllocation(2L << 30);
        ConfigMap current = AllocationConfigMap.desired("orders", workload, published, "");

        WorkloadAllocationStatus row =
                WorkloadRows.of(workload, null, null, WorkloadRows.Shown.published(current), false, null, null, "no");
        assertThat(row.getAllocationHash()).isEqualTo(published.hash());
        assertThat(row.getRestartHash()).isEqualTo(published.restartHash());
        assertThat(row.getRestartPending()).isFalse();

        WorkloadAllocationStatus none =
                WorkloadRows.of(workload, null, null, WorkloadRows.Shown.published(null), false, null, null, "no");
        assertThat(none.getAllocationHash()).as("nothing published").isNull();
        assertThat(none.getRestartHash()).isNull();
        assertThat(none.getRestartPending()).isFalse();
    }

    @Test
    void aHeldPlanNamesTheAppliedAllocationAndWhyTheNewerWaits() {
        Allocation newer = Fixtures.smallAllocation(2L << 30, 4);
        AllocationDocument applied = AllocationJson.read(AllocationJson.write(Fixtures.smallAllocation(2L << 30)));
        WorkloadAllocationStatus row = WorkloadRows.of(
                workload,
                null,
                newer,
                WorkloadRows.Shown.held(applied, "it waits for its turn"),
                true,
                null,
                null,
                null);

        assertThat(applied.hash()).isNotEqualTo(newer.hash());
        assertThat(row.getAllocationHash()).isEqualTo(applied.hash());
        assertThat(row.getRestartHash()).isEqualTo(applied.restartHash());
        assertThat(row.getNewerPlanPending()).isEqualTo("it waits for its turn");
        assertThat(row.getRestartPending()).isFalse();
        assertThat(row.getHeap())
                .as("the newer plan's sizes")
                .isEqualTo(format(newer.part("heap").bytes()));
    }

    @Test
    void theRowShowsWhatThePodsReportedOnlyOnceTheyReported() {
        WorkloadAllocationStatus row = WorkloadRows.start(workload);
        WorkloadRows.showVerdict(row, null);
        assertThat(row.getObserved()).isNull();
        assertThat(row.getRecommendation()).isNull();

        ObservedMemoryStatus observed = new ObservedMemoryStatus();
        observed.setPeakMemory("1.6 GiB");
        WorkloadRows.showVerdict(row, new MemoryVerdict(null, observed, 0.8, null, null, "raise spec.memory"));
        assertThat(row.getObserved()).isSameAs(observed);
        assertThat(row.getRecommendation()).isEqualTo("raise spec.memory");
    }

    /** The plan the reconciler makes for {@code policy} before any report, on what the published plan learned. */
    private TunedPlan tuned(StreamsMemoryPolicy policy, Map<String, Integer> before) {
        PlannedRange range = PlannedRange.of(workload, policy.getSpec().getScaling(), List.of());
        FittingPlan model = FittingPlan.of(policy.getSpec(), workload, range, Optional.empty(), before);
        return TunedPlan.of(policy.getSpec(), 1, model, null, null, Instant.now(), Duration.ofMinutes(10));
    }

    private static StreamsMemoryPolicy observed() {
        StreamsMemoryPolicy policy = Fixtures.policy("shop", "orders", "2Gi");
        JvmSpec jvm = new JvmSpec();
        jvm.setSizing(JvmSizing.Observed);
        policy.getSpec().setJvm(jvm);
        return policy;
    }
}
