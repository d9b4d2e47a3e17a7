package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A plan made before the pods reported the facts a cap depends on (issue 42): the cap's flag is left out, its room is
 * the same and held inside the headroom, and the parts still sum to the pod; once the pods report direct memory, the
 * cap holds their peak plus the margin.
 */
class UncappedJvmCapsTest {
    private final AllocationEngine engine = new AllocationEngine();

    private static WorkloadFacts.Builder pod() {
        return WorkloadFacts.builder()
                .memoryBytes(1024 * MiB)
                .streamThreads(1)
                .tasksPerPod(8)
                .stores(new StoreCounts(2, 0, 0));
    }

    @Test
    void anUncappedPlanSetsNeitherFlagKeepsEveryOtherNumberAndHoldsTheRoomAsHeadroom() {
        Allocation capped = engine.allocate(pod().build()).allocation();
        Allocation uncapped = engine.allocate(
                        pod().uncappedJvmCaps(EnumSet.allOf(JvmCap.class)).build())
                .allocation();

        assertThat(capped.jvmOptions()).anyMatch(o -> o.startsWith("-XX:MaxMetaspaceSize="));
        assertThat(capped.jvmOptions()).anyMatch(o -> o.startsWith("-XX:MaxDirectMemorySize="));
        assertThat(uncapped.jvmOptions())
                .noneMatch(o -> o.startsWith("-XX:MaxMetaspaceSize=") || o.startsWith("-XX:MaxDirectMemorySize="));
        // The flags that cannot harm a JVM whose facts are unknown stay, with the same values.
        assertThat(uncapped.jvmOptions())
                .containsExactlyElementsOf(capped.jvmOptions().stream()
                        .filter(o ->
                                !o.startsWith("-XX:MaxMetaspaceSize=") && !o.startsWith("-XX:MaxDirectMemorySize="))
                        .toList());
        assertThat(uncapped.streamsConfig()).isEqualTo(capped.streamsConfig());
        assertThat(uncapped.rocksDb()).isEqualTo(capped.rocksDb());

        // The room is the same, now inside the headroom, with no flag: the top-level parts still sum to the pod.
        long metaspace = capped.part("jvm-metaspace").bytes();
        long direct = capped.part("jvm-direct-memory").bytes();
        assertThat(uncapped.part("headroom").bytes())
                .isEqualTo(capped.part("headroom").bytes() + metaspace + direct);
        assertThat(uncapped.part("headroom").parts())
                .extracting(Part::name)
                .containsExactly("headroom-margin", "jvm-metaspace", "jvm-direct-memory");
        assertThat(uncapped.part("jvm-metaspace").config()).isEmpty();
        assertThat(uncapped.part("jvm-metaspace").reason()).startsWith("not capped (no -XX:MaxMetaspaceSize)");
        assertThat(uncapped.parts()).extracting(Part::name).doesNotContain("jvm-metaspace", "jvm-direct-memory");
        assertThat(uncapped.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(1024 * MiB);
        assertThat(uncapped.restartHash()).isNotEqualTo(capped.restartHash());
    }

    @Test
    void oneCapCanWaitAlone() {
        Allocation allocation = engine.allocate(
                        pod().uncappedJvmCaps(Set.of(JvmCap.METASPACE)).build())
                .allocation();
        assertThat(allocation.jvmOptions()).noneMatch(o -> o.startsWith("-XX:MaxMetaspaceSize="));
        assertThat(allocation.jvmOptions()).anyMatch(o -> o.startsWith("-XX:MaxDirectMemorySize="));
        assertThat(allocation.parts()).extracting(Part::name).contains("jvm-direct-memory");
        assertThat(allocation.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(1024 * MiB);
    }

    @Test
    void anObservedDirectPeakAboveTheClientsCopiesRaisesTheCapToThePeakPlusItsMargin() {
        Allocation planned = engine.allocate(pod().build()).allocation();
        long clientsDirect = planned.part("jvm-direct-memory").bytes();
        long peak = 64 * MiB + clientsDirect;
        Allocation learned =
                engine.allocate(pod().observedDirectMemoryBytes(peak).build()).allocation();

        long cap = learned.part("jvm-direct-memory").bytes();
        assertThat(cap).isGreaterThanOrEqualTo(peak + peak / 4 - MiB);
        assertThat(learned.jvmOptions()).contains("-XX:MaxDirectMemorySize=" + AllocationEngine.jvmSize(cap));
        assertThat(learned.part("jvm-direct-memory").reason()).contains("learned: the pods' direct memory peak");
        assertThat(learned.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(1024 * MiB);

        // A peak the clients' read copies already hold changes nothing.
        Allocation small = engine.allocate(
                        pod().observedDirectMemoryBytes(clientsDirect / 2).build())
                .allocation();
        assertThat(small.restartHash()).isEqualTo(planned.restartHash());
    }
}
