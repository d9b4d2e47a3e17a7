package io.streamsmemory.operator.observe;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain JVM that holds as much memory as it is told on stdin ({@code hold <MiB>}, every page written, so it is
 * resident), for the tests that need a real process's RSS behind an agent's memory report.
 */
public final class MemoryHog {
    private static final List<byte[]> HELD = new ArrayList<>();

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
            }
        }
    }
}
