package io.streamsmemory.operator.observe;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain JVM that holds as much memory as it is told on stdin ({@code hold <MiB>}, every page written, so it is
 * resident), or loads classes until its metaspace holds {@code classes <MiB>} (or its cap stops it), for the tests
 * that need a real process's RSS or metaspace behind an agent's memory report.
 */
public final class MemoryHog {
    private static final List<byte[]> HELD = new ArrayList<>();
    private static final List<Class<?>> LOADED = new ArrayList<>();
    /** A large class of the test classpath, defined again in a loader of its own for each copy metaspace holds. */
    private static final String COPIED_CLASS = "com.fasterxml.jackson.databind.ObjectMapper";

    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] command = line.trim().split("\\s+");
            if (command.length == 2 && command[0].equals("hold")) {
                int mib = Integer.parseInt(command[1]);
                for (int i = 0; i < mib * 16; i++) {
                    byte[] chunk = new byte[64 << 10]; // small: no humongous regions, the heap holds what it is told
                    for (int page = 0; page < chunk.length; page += 4096) {
                        chunk[page] = 1;
                    }
                    HELD.add(chunk);
                }
                System.out.println("held " + mib);
            } else if (command.length == 2 && command[0].equals("classes")) {
                System.out.println(loadClasses((long) (Double.parseDouble(command[1]) * (1 << 20))));
            }
        }
    }

    /** Copies of one class until the Metaspace pool uses {@code target} bytes: "loaded" or "metaspace full". */
    private static String loadClasses(long target) throws Exception {
        MemoryPoolMXBean metaspace = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool -> pool.getName().equals("Metaspace"))
                .findFirst()
                .orElseThrow();
        byte[] bytes;
        try (InputStream in =
                MemoryHog.class.getClassLoader().getResourceAsStream(COPIED_CLASS.replace('.', '/') + ".class")) {
            bytes = in.readAllBytes();
        }
        try {
            while (metaspace.getUsage().getUsed() < target) {
                LOADED.add(new CopyLoader().define(bytes));
            }
            return "loaded";
        } catch (OutOfMemoryError full) {
            return "metaspace full";
        }
    }

    /** Defines the copied class itself; every other class comes from the application's loader. */
    private static final class CopyLoader extends ClassLoader {
        CopyLoader() {
            super(MemoryHog.class.getClassLoader());
        }

        Class<?> define(byte[] bytes) {
            return defineClass(COPIED_CLASS, bytes, 0, bytes.length);
        }
    }
}
