package io.streamsmemory.agent.report;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The CPU time the whole process (every thread, the JVM's own and RocksDB's native ones) has used since it started:
 * {@code com.sun.management.OperatingSystemMXBean.getProcessCpuTime()}. Read against the records processed, it is the
 * application's CPU per record. Best effort: a JVM without the {@code jdk.management} module, or whose bean cannot say
 * it, reports nothing.
 */
final class ProcessCpu {
    private ProcessCpu() {}

    /** The bean, looked up on first use (never in premain); null when this JVM has none. */
    private static final class Bean {
        static final com.sun.management.OperatingSystemMXBean OS = lookUp();

        private static com.sun.management.OperatingSystemMXBean lookUp() {
            try {
                OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
                return os instanceof com.sun.management.OperatingSystemMXBean
                        ? (com.sun.management.OperatingSystemMXBean) os
                        : null;
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }
    }

    /** Nanoseconds of CPU the process has used, or -1 when unknown. */
    static long nanos() {
        try {
            return Bean.OS == null ? -1 : Bean.OS.getProcessCpuTime();
        } catch (RuntimeException | LinkageError e) {
            return -1;
        }
    }
}
