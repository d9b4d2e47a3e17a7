package io.streamsmemory.operator.observe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@link MemoryHog} JVM run with the real agent jar and its memory report on {@code port}. */
final class ForkedHog implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;
    private final int port;

    ForkedHog(int port) throws IOException {
        this(port, List.of());
    }

    /** With more JVM options, such as a metaspace cap. */
    ForkedHog(int port, List<String> jvmOptions) throws IOException {
        this.port = port;
        List<String> command = new ArrayList<>(List.of("java", "-Xmx768m"));
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-javaagent:" + AgentBuild.require(AgentBuild.AGENT_JAR),
                "-cp",
                System.getProperty("java.class.path"),
                MemoryHog.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("STREAMS_MEMORY_REPORT_PORT", Integer.toString(port));
        builder.environment().remove("STREAMS_MEMORY_ALLOCATION");
        process = builder.start();
        out = new BufferedReader(new InputStreamReader(process.getInputStream()));
        in = new PrintWriter(process.getOutputStream(), true);
        expect("ready");
    }

    int port() {
        return port;
    }

    /** Holds {@code mib} more MiB, resident. */
    void hold(int mib) throws IOException {
        in.println("hold " + mib);
        expect("held " + mib);
    }

    /** Loads classes until metaspace holds {@code mib} MiB; whether the JVM's metaspace cap stopped it first. */
    boolean loadClasses(double mib) throws IOException {
        in.println("classes " + mib);
        for (String read; (read = out.readLine()) != null; ) {
            if (read.equals("loaded") || read.equals("metaspace full")) {
                return read.equals("metaspace full");
            }
        }
        throw new IllegalStateException("the hog JVM ended while loading classes");
    }

    private void expect(String line) throws IOException {
        for (String read; (read = out.readLine()) != null; ) {
            if (read.equals(line)) {
                return;
            }
        }
        throw new IllegalStateException("the hog JVM ended before saying " + line);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
