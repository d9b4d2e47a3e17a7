package io.streamsmemory.agent.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.protocol.AllocationFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Case 3 of issue 9: when a JVM limit counts as the allocation's, with figures measured on this machine. */
class JvmLimitsTest {
    private static final long PLANNED_HEAP = 999272L * 1024; // -Xmx999272k

    /** The argument the operator shows as the one that won over the plan's heap: the JVM's own order of precedence. */
    @Test
    void theHeapFlagIsTheLastSizeElseTheLastShareElseTheDefault() {
        // JAVA_TOOL_OPTIONS (the injected -Xmx) comes first, JDK_JAVA_OPTIONS and the command line after it.
        assertThat(JvmLimits.heapFlag(List.of("-Xmx700m", "-XX:MaxRAMPercentage=75", "-Xmx2g", "-Dx=1")))
                .isEqualTo("-Xmx2g");
        // A size wins over any share, wherever it stands.
        assertThat(JvmLimits.heapFlag(List.of("-XX:MaxHeapSize=1073741824", "-XX:MaxRAMPercentage=75")))
                .isEqualTo("-XX:MaxHeapSize=1073741824");
        assertThat(JvmLimits.heapFlag(List.of("-XX:MaxRAMFraction=2", "-XX:MaxRAMPercentage=75")))
                .isEqualTo("-XX:MaxRAMPercentage=75");
        assertThat(JvmLimits.heapFlag(List.of("-Xss1m", "-XX:+UseG1GC"))).startsWith("none (the JVM's default");
    }

    @Test
    void theHeapInForceMatchesWithinWhatTheCollectorsReport() {
        // Runtime.maxMemory() for -Xmx999272k on JDK 17 here: G1, Serial, Parallel (no -Xms), Parallel (-Xms = -Xmx).
        for (long measured : new long[] {1023410176L, 989331456L, 910163968L, 980942848L}) {
            assertThat(JvmLimits.matches(JvmLimits.HEAP, PLANNED_HEAP, measured))
                    .as("maxMemory " + measured)
                    .isTrue();
        }
        assertThat(JvmLimits.matches(JvmLimits.HEAP, PLANNED_HEAP, 314572800L))
                .as("-Xmx300m")
                .isFalse();
        assertThat(JvmLimits.matches(JvmLimits.HEAP, PLANNED_HEAP, 2L << 30))
                .as("-Xmx2g")
                .isFalse();
        assertThat(JvmLimits.matches(JvmLimits.HEAP, PLANNED_HEAP, JvmLimits.UNLIMITED))
                .isFalse();
    }

    @Test
    void metaspaceAndDirectMemoryMatchOnlyAsGiven() {
        assertThat(JvmLimits.matches(JvmLimits.METASPACE, 97L << 20, 97L << 20)).isTrue();
        assertThat(JvmLimits.matches(JvmLimits.METASPACE, 97L << 20, 256L << 20))
                .isFalse();
        assertThat(JvmLimits.matches(JvmLimits.METASPACE, 97L << 20, JvmLimits.UNLIMITED))
                .isFalse();
        assertThat(JvmLimits.matches(JvmLimits.DIRECT, 102916096L, 102916096L)).isTrue();
        assertThat(JvmLimits.matches(JvmLimits.DIRECT, 102916096L, 1L << 30)).isFalse();
    }

    @Test
    void thisJvmsLimitsAreReadAndADifferenceIsOneLine() {
        AgentAllocation allocation = Allocations.agentAllocation(Allocations.oneGiB());
        JvmLimits limits = JvmLimits.check(allocation);
        assertThat(limits.effective(JvmLimits.HEAP))
                .isEqualTo(Runtime.getRuntime().maxMemory());
        assertThat(limits.planned(JvmLimits.HEAP))
                .isEqualTo(allocation.plannedLimits().get(AllocationFormat.HEAP_PART));
        assertThat(limits.effective(JvmLimits.METASPACE)).isNotEqualTo(-1);
        // The test JVM runs with surefire's flags, not the allocation's: named, on one line.
        assertThat(limits.mismatches()).containsKey(JvmLimits.HEAP);
        assertThat(limits.warning()).doesNotContain("\n").contains("heap in force");
    }
}
