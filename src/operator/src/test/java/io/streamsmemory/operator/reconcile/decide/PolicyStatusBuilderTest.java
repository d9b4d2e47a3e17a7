package io.streamsmemory.operator.reconcile.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicyStatus;
import io.streamsmemory.operator.api.WorkloadAllocationStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The policy's status stays small whatever the number of workloads (no API server: see BoundedStatusTest). */
class PolicyStatusBuilderTest {
    private static final int WORKLOADS = 3000;
    private static final int MAX_ROWS = 100;
    private static final Comparator<WorkloadAllocationStatus> KIND_AND_NAME =
            Comparator.comparing(WorkloadAllocationStatus::getKind).thenComparing(WorkloadAllocationStatus::getName);

    @Test
    void statusOf3000WorkloadsStaysUnder1MiBAndListsTheFailedAndTroubledFirst() {
        ManyWorkloads many = new ManyWorkloads("shop", WORKLOADS);
        StreamsMemoryPolicy policy = many.policy;
        policy.getMetadata().setGeneration(1L);
        policy.setStatus(many.status(policy, MAX_ROWS));
        StreamsMemoryPolicyStatus status = policy.getStatus();

        int bytes = Serialization.asJson(policy).getBytes(StandardCharsets.UTF_8).length;
        StreamsMemoryPolicy unbounded = new ManyWorkloads("shop", WORKLOADS).policy;
        unbounded.setStatus(many.status(unbounded, Integer.MAX_VALUE));
        int unboundedBytes = Serialization.asJson(unbounded).getBytes(StandardCharsets.UTF_8).length;
        System.out.printf(
                "status of %d workloads: %d bytes with %d rows listed, %d bytes with every row%n",
                WORKLOADS, bytes, MAX_ROWS, unboundedBytes);
        assertThat(bytes).isLessThan(1 << 20);
        assertThat(unboundedBytes)
                .as("what the bound prevents: etcd refuses objects over 1.5 MiB")
                .isGreaterThan(3 << 19);

        assertThat(status.getWorkloadCount()).isEqualTo(WORKLOADS);
        assertThat(status.getWorkloads()).hasSize(MAX_ROWS);
        assertThat(status.getWorkloadRowsOmitted()).isEqualTo(WORKLOADS - MAX_ROWS);
        int failed = (int)
                IntStream.range(0, WORKLOADS).filter(ManyWorkloads::failed).count();
        List<WorkloadAllocationStatus> failedRows = status.getWorkloads().subList(0, failed);
        List<WorkloadAllocationStatus> troubledRows = status.getWorkloads().subList(failed, MAX_ROWS);
        assertThat(failedRows)
                .allSatisfy(row -> assertThat(row.getMessage()).isNotNull())
                .isSortedAccordingTo(KIND_AND_NAME);
        assertThat(troubledRows)
                .allSatisfy(row -> {
                    assertThat(row.getMessage()).isNull();
                    assertThat(row.getRestartPending()).isTrue();
                    assertThat(row.getPodsNotInjected() + row.getPodsOutdated()).isPositive();
                })
                .isSortedAccordingTo(KIND_AND_NAME);

        // Drift and the peak cover every workload, listed or not.
        assertThat(status.getDriftedPods())
                .isEqualTo(IntStream.range(0, WORKLOADS)
                        .filter(i -> !ManyWorkloads.failed(i))
                        .map(ManyWorkloads::driftedPods)
                        .sum());
        assertThat(status.getPeakMemoryRatio()).isEqualTo("0.98");
        assertThat(status.getConditions())
                .allSatisfy(c -> assertThat(c.getMessage()).hasSizeLessThanOrEqualTo(BoundedMessages.MAX_CHARS));
        assertThat(message(status, Conditions.READY))
                .startsWith(failed + " of " + WORKLOADS + " workload(s) failed: ")
                .contains("; and " + (failed - BoundedMessages.MAX_LISTED) + " more")
                .contains(
                        "the status lists 100 of 3000 workloads",
                        "2900 omitted",
                        "ConfigMap <workload>-<kind>-streams-memory and its Events");
        int warnings = (int) IntStream.range(0, WORKLOADS)
                        .filter(ManyWorkloads::needsLook)
                        .count()
                * 2;
        assertThat(message(status, Conditions.WARNING))
                .contains("; and " + (warnings - BoundedMessages.MAX_LISTED) + " more", "2900 omitted");
        assertThat(message(status, Conditions.MEMORY_PRESSURE))
                .contains("; and ")
                .contains(" more");
        assertThat(message(status, Conditions.TOPOLOGY_MISMATCH))
                .contains("; and ")
                .contains(" more");
    }

    @Test
    void theListedRowsDoNotDependOnTheOrderTheWorkloadsCameIn() {
        ManyWorkloads many = new ManyWorkloads("shop", 500);
        List<WorkloadOutcome> shuffled = new ArrayList<>(many.outcomes);
        Collections.shuffle(shuffled, new Random(13));
        assertThat(PolicyStatusBuilder.firstRows(shuffled, 20))
                .isEqualTo(PolicyStatusBuilder.firstRows(many.outcomes, 20));
        // The 5 failed (Deployments 0, 100, ... 400), then the 200 that need a look, then the clean ones, each
        // group by kind and name: the last is the clean StatefulSet of the highest index.
        List<WorkloadAllocationStatus> all = PolicyStatusBuilder.firstRows(many.outcomes, 500);
        assertThat(all)
                .extracting(WorkloadAllocationStatus::getName)
                .startsWith(
                        ManyWorkloads.name(0),
                        ManyWorkloads.name(100),
                        ManyWorkloads.name(200),
                        ManyWorkloads.name(300),
                        ManyWorkloads.name(400))
                .endsWith(ManyWorkloads.name(499));
        assertThat(all.subList(5, 205))
                .allSatisfy(row -> assertThat(row.getRestartPending()).isTrue());
        assertThat(all.subList(205, 500))
                .allSatisfy(row -> assertThat(row.getRestartPending()).isFalse());
    }

    @Test
    void aPolicyWithFewWorkloadsListsThemAllAndSaysNothingOfOmissions() {
        ManyWorkloads many = new ManyWorkloads("shop", 3);
        StreamsMemoryPolicyStatus status = many.status(many.policy, MAX_ROWS);
        assertThat(status.getWorkloads()).hasSize(3);
        assertThat(status.getWorkloadRowsOmitted()).isZero();
        assertThat(status.getConditions()).extracting(Condition::getMessage).noneMatch(m -> m.contains("omitted"));
        assertThat(message(status, Conditions.WARNING)).doesNotContain("more");
    }

    @Test
    void messagesListAFewFindingsAndCountTheRest() {
        assertThat(BoundedMessages.join(List.of("a", "b"))).isEqualTo("a; b");
        assertThat(BoundedMessages.join(List.of("a", "b", "c", "d", "e", "f", "g")))
                .isEqualTo("a; b; c; d; e; and 2 more");
        String huge = "x".repeat(100_000);
        assertThat(BoundedMessages.join(List.of(huge, huge, huge, huge, huge, huge)))
                .hasSizeLessThan(BoundedMessages.MAX_CHARS)
                .endsWith("...; and 1 more");
        assertThat(BoundedMessages.cap(huge)).hasSize(BoundedMessages.MAX_CHARS).endsWith("...");
    }

    private static String message(StreamsMemoryPolicyStatus status, String type) {
        return status.getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow()
                .getMessage();
    }
}
