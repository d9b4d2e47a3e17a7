package io.streamsmemory.examples;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Unsafe;

/**
 * Leaks native memory on purpose, outside the heap, the direct-buffer pool, Kafka and RocksDB: 1 MiB blocks taken
 * with {@code Unsafe.allocateMemory}, written so they are resident, and never freed. No JVM flag and no Kafka or
 * RocksDB setting bounds it, so neither can any plan: it stands for the leaks (a native library, a JNI bug) that
 * make a pod the kernel kills although its policy is right about everything else. Started by
 * {@code NATIVE_LEAK_MIB_PER_MINUTE}; 0 starts nothing.
 */
final class NativeLeak {
    private static final Logger LOG = LoggerFactory.getLogger(NativeLeak.class);
    private static final long BLOCK = 1024 * 1024;

    private NativeLeak() {}

    static void start(int mibPerMinute) {
        if (mibPerMinute <= 0) {
            return;
        }
        Thread thread = new Thread(() -> leak(mibPerMinute), "native-leak");
        thread.setDaemon(true);
        thread.start();
        LOG.warn("leaking {} MiB of native memory a minute on purpose (NATIVE_LEAK_MIB_PER_MINUTE)", mibPerMinute);
    }

    private static void leak(int mibPerMinute) {
        Unsafe unsafe;
        try {
            Field field = Unsafe.class.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            unsafe = (Unsafe) field.get(null);
        } catch (ReflectiveOperationException e) {
            LOG.error("cannot leak: no Unsafe ({})", e.toString());
            return;
        }
        List<Long> blocks = new ArrayList<>(); // kept, so the leak is a leak and not garbage
        long pause = TimeUnit.MINUTES.toMillis(1) / mibPerMinute;
        try {
            while (true) {
                long address = unsafe.allocateMemory(BLOCK);
                unsafe.setMemory(address, BLOCK, (byte) 1);
                blocks.add(address);
                Thread.sleep(pause);
            }
        } catch (InterruptedException stop) {
            // the JVM is shutting down
        }
    }
}
