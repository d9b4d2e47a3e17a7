package io.streamsmemory.agent.allocation;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.streamsmemory.agent.log.Bytes;
import io.streamsmemory.protocol.AllocationFormat;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The JVM limits actually in force next to the ones the allocation planned. A {@code -Xmx} in
 * {@code JDK_JAVA_OPTIONS}, on the command line, or in a {@code JAVA_TOOL_OPTIONS} the webhook could not see wins over
 * the injected flags without a word; the agent cannot change it (the heap is sized before any agent runs) but it can
 * say so: one warning line naming each mismatch, and the MBean attributes. Never throws.
 */
public final class JvmLimits {
    public static final String HEAP = "heap";
    public static final String METASPACE = "MaxMetaspaceSize";
    public static final String DIRECT = "MaxDirectMemorySize";
    /** Reported for a limit the JVM does not bound. */
    public static final long UNLIMITED = Long.MAX_VALUE;
    /**
     * Runtime.maxMemory() is below -Xmx by one survivor space with the Serial and Parallel collectors (it counts only
     * the space objects can live in). With Parallel's defaults (NewRatio=2, MinSurvivorRatio=3) that is up to a third
     * of a third, 1/9 of -Xmx (measured here: -Xmx999272k gives 910163968 bytes, 11% less); we accept 1/8 below.
     */
    static final int HEAP_BELOW_TOLERANCE_DIVISOR = 8;
    /**
     * Above: the collector rounds the heap up to its alignment, at most one G1 region (1 MiB below 4 GiB of heap, at
     * most heap/2048 above; measured: -Xmx999272k gives 1023410176 bytes with G1, 156 KiB more).
     */
    static final long HEAP_ABOVE_TOLERANCE_BYTES = 2L << 20;

    static final int HEAP_ABOVE_TOLERANCE_DIVISOR = 1024;
    /** Metaspace and direct-memory limits are taken as given, up to the 64 KiB commit granule; 1 MiB is generous. */
    static final long EXACT_TOLERANCE_BYTES = 1L << 20;

    private final Map<String, Long> planned;
    private final Map<String, Long> effective;
    private final Map<String, String> mismatches;

    private JvmLimits(Map<String, Long> planned, Map<String, Long> effective, Map<String, String> mismatches) {
        this.planned = Collections.unmodifiableMap(planned);
        this.effective = Collections.unmodifiableMap(effective);
        this.mismatches = Collections.unmodifiableMap(mismatches);
    }

    /** Compares this JVM's limits with the allocation's; limits the allocation does not plan are not compared. */
    public static JvmLimits check(AgentAllocation allocation) {
        Map<String, Long> inForce = new LinkedHashMap<>();
        inForce.put(HEAP, heapInForce());
        inForce.put(METASPACE, vmOption("MaxMetaspaceSize", -1));
        // MaxDirectMemorySize=0 (unset) means "as large as the heap" (jdk.internal.misc.VM.maxDirectMemory()).
        inForce.put(DIRECT, vmOption("MaxDirectMemorySize", inForce.get(HEAP)));
        Map<String, Long> plan = new LinkedHashMap<>();
        putIfPlanned(plan, HEAP, allocation.plannedLimits().get(AllocationFormat.HEAP_PART));
        putIfPlanned(plan, METASPACE, allocation.plannedLimits().get(AllocationFormat.METASPACE_PART));
        putIfPlanned(plan, DIRECT, allocation.plannedLimits().get(AllocationFormat.DIRECT_MEMORY_PART));
        Map<String, String> differ = new LinkedHashMap<>();
        for (Map.Entry<String, Long> entry : plan.entrySet()) {
            String name = entry.getKey();
            long want = entry.getValue();
            long have = inForce.get(name);
            if (have >= 0 && !matches(name, want, have)) {
                differ.put(name, "in force " + describe(have) + ", planned " + Bytes.format(want));
            }
        }
        return new JvmLimits(plan, inForce, differ);
    }

    static boolean matches(String name, long planned, long effective) {
        if (effective == UNLIMITED) {
            return false;
        }
        if (HEAP.equals(name)) {
            long above = HEAP_ABOVE_TOLERANCE_BYTES + planned / HEAP_ABOVE_TOLERANCE_DIVISOR;
            return heapHolds(planned, effective) && effective <= planned + above;
        }
        return Math.abs(effective - planned) <= EXACT_TOLERANCE_BYTES;
    }

    /**
     * Whether a heap in force of {@code effective} bytes (Runtime.maxMemory()) is at least the {@code planned} one, up
     * to what the collectors leave out of maxMemory (see {@link #HEAP_BELOW_TOLERANCE_DIVISOR}): the same lower bound
     * as {@link #matches}, so a heap the warning calls in force also holds what the plan counted in it.
     */
    public static boolean heapHolds(long planned, long effective) {
        return effective >= 0 && effective >= planned - planned / HEAP_BELOW_TOLERANCE_DIVISOR;
    }

    /** Runtime.maxMemory(), {@link #UNLIMITED} when the heap has no bound, -1 when not readable. */
    public static long heapInForce() {
        return safe(() -> Runtime.getRuntime().maxMemory());
    }

    /** This JVM's heap-setting argument ({@link #heapFlag(List)} of its input arguments); never throws. */
    public static String heapFlag() {
        try {
            return heapFlag(ManagementFactory.getRuntimeMXBean().getInputArguments());
        } catch (Throwable t) {
            return "unknown (the JVM's arguments could not be read)";
        }
    }

    /**
     * The argument that sets the heap of a JVM started with {@code arguments} (JAVA_TOOL_OPTIONS first, then
     * JDK_JAVA_OPTIONS and the command line, as the JVM lists them): the last -Xmx or -XX:MaxHeapSize, which also
     * wins over any RAM percentage; else the last of the flags that size it from the container's memory; else the
     * JVM's default.
     */
    static String heapFlag(List<String> arguments) {
        String size = null;
        String share = null;
        for (String argument : arguments) {
            if (argument.startsWith("-Xmx") || argument.startsWith("-XX:MaxHeapSize=")) {
                size = argument;
            } else if (argument.startsWith("-XX:MaxRAMPercentage=")
                    || argument.startsWith("-XX:MaxRAMFraction=")
                    || argument.startsWith("-XX:MaxRAM=")) {
                share = argument;
            }
        }
        if (size != null) {
            return size;
        }
        return share != null ? share : "none (the JVM's default: a quarter of the container's memory)";
    }

    /** Null when every planned limit is in force, otherwise the one warning line. */
    public String warning() {
        if (mismatches.isEmpty()) {
            return null;
        }
        StringBuilder line = new StringBuilder("the JVM does not run with the allocation's limits (its flags were "
                + "not given, or a flag from JDK_JAVA_OPTIONS, the command line or JAVA_TOOL_OPTIONS won over them):");
        String separator = " ";
        for (Map.Entry<String, String> entry : mismatches.entrySet()) {
            line.append(separator).append(entry.getKey()).append(' ').append(entry.getValue());
            separator = "; ";
        }
        return line.append(". The pod may be OOM-killed or waste memory; let the allocation's flags through")
                .toString();
    }

    /** Bytes in force, {@link #UNLIMITED} when unbounded, -1 when not readable. */
    public long effective(String name) {
        Long value = effective.get(name);
        return value == null ? -1 : value;
    }

    /** Planned bytes, -1 when the allocation does not plan it. */
    public long planned(String name) {
        Long value = planned.get(name);
        return value == null ? -1 : value;
    }

    public Map<String, String> mismatches() {
        return mismatches;
    }

    private static void putIfPlanned(Map<String, Long> plan, String name, Long bytes) {
        if (bytes != null && bytes > 0) {
            plan.put(name, bytes);
        }
    }

    private static String describe(long bytes) {
        return bytes == UNLIMITED ? "unlimited" : Bytes.format(bytes);
    }

    /**
     * A HotSpot flag's value in bytes through the platform HotSpotDiagnosticMXBean; {@code whenZero} for 0, -1 when
     * the JVM has no such bean (not HotSpot) or the value is unreadable. Values beyond a signed long (HotSpot's "no
     * limit") are {@link #UNLIMITED}.
     */
    public static long vmOption(String name, long whenZero) {
        try {
            HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (bean == null) {
                return -1;
            }
            String text = bean.getVMOption(name).getValue().trim();
            if (text.equals("0")) {
                return whenZero;
            }
            BigInteger value = new BigInteger(text);
            if (value.signum() < 0 || value.bitLength() > 62) {
                return UNLIMITED;
            }
            return value.longValue();
        } catch (Throwable t) {
            return -1;
        }
    }

    private static long safe(LongSupplier supplier) {
        try {
            return supplier.getAsLong();
        } catch (Throwable t) {
            return -1;
        }
    }
}
