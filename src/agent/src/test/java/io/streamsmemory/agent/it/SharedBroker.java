package io.streamsmemory.agent.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * One real KRaft broker for every forked-application test of the run (starting one takes ~10 s on 2 cores); each
 * test uses its own topics and application ids. Stopped when the test JVM exits.
 */
final class SharedBroker {
    private static KafkaBroker broker;

    private SharedBroker() {}

    static synchronized KafkaBroker get() throws Exception {
        if (broker == null) {
            Path dir = Path.of(System.getProperty("streamsmemory.buildDir", "target"), "it-broker");
            deleteTree(dir);
            broker = KafkaBroker.start(dir, KafkaBroker.testClasspath());
            KafkaBroker started = broker;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close));
        }
        return broker;
    }

    static void deleteTree(Path root) throws Exception {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
