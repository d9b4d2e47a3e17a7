package io.streamsmemory.agent.it;

import io.streamsmemory.engine.testkit.SingleNodeKafka;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node KRaft Kafka (broker and controller in one process) from the {@code kafka_2.13} artifact, in its
 * own JVM, on loopback ports picked at run time: storage formatted with {@code kafka.tools.StorageTool}, then
 * {@code kafka.Kafka server.properties}.
 */
public final class KafkaBroker implements AutoCloseable {
    private final Process process;
    private final String bootstrap;
    private final Path log;

    private KafkaBroker(Process process, String bootstrap, Path log) {
        this.process = process;
        this.bootstrap = bootstrap;
        this.log = log;
    }

    public static KafkaBroker start(Path dir, String classpath) throws Exception {
        Files.createDirectories(dir);
        int port = freePort();
        int controllerPort = freePort();
        while (controllerPort == port) {
            // The kernel can hand out the port it just took back (seen in the operator's LiveKafkaStreams: both
            // listeners on one port, and the storage format refused the config).
            controllerPort = freePort();
        }
        Path config = dir.resolve("server.properties");
        String properties = SingleNodeKafka.serverProperties(port, controllerPort, dir.resolve("data"));
        Files.writeString(config, properties);
        Path log = dir.resolve("broker.log");
        // Kafka's own id: a random base64 id can start with '-', which the format tool's parser takes for an
        // option ("argument --cluster-id/-t: expected one argument", one run in 64); Uuid.randomUuid() never does.
        String clusterId = Uuid.randomUuid().toString();
        Process format = java(
                classpath,
                List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"),
                "kafka.tools.StorageTool",
                List.of("format", "-t", clusterId, "-c", config.toString()),
                dir.resolve("format.log"));
        if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
            format.destroyForcibly();
            throw new IllegalStateException(
                    "kafka storage format failed: " + Files.readString(dir.resolve("format.log")));
        }
        Process broker = java(
                classpath,
                List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                "kafka.Kafka",
                List.of(config.toString()),
                log);
        KafkaBroker started = new KafkaBroker(broker, "127.0.0.1:" + port, log);
        try {
            started.awaitReady(Duration.ofSeconds(120));
        } catch (Exception e) {
            started.close();
            throw e;
        }
        return started;
    }

    private static Process java(String classpath, List<String> jvmOptions, String main, List<String> args, Path out)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(main);
        command.addAll(args);
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("STREAMS_MEMORY_ALLOCATION");
        return builder.start();
    }

    private void awaitReady(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String[] hostPort = bootstrap.split(":");
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the broker exited: " + tail());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 500);
                try (Admin admin = admin()) {
                    admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
                    return;
                }
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the broker did not start in " + timeout + ": " + tail(), e);
                }
                Thread.sleep(300);
            }
        }
    }

    public Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                10000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                20000));
    }

    public void createTopics(int partitions, String... names) throws Exception {
        Collection<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, partitions, (short) 1));
        }
        try (Admin admin = admin()) {
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        }
    }

    public String bootstrap() {
        return bootstrap;
    }

    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no broker log)";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The classpath of the test JVM itself (surefire's, when it uses a manifest-only jar). */
    public static String testClasspath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /** The test classpath without the given entries (matched by substring of the path). */
    public static String classpathWithout(String classpath, String... excluded) {
        List<String> kept = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            boolean drop = false;
            for (String pattern : excluded) {
                if (entry.replace('\\', '/').contains(pattern)) {
                    drop = true;
                    break;
                }
            }
            if (!drop && !entry.isBlank()) {
                kept.add(entry);
            }
        }
        return String.join(File.pathSeparator, kept);
    }

    static Properties props(Object... keyValues) {
        Properties props = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }
}
