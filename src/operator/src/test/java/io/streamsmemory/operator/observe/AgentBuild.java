package io.streamsmemory.operator.observe;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the agent module builds that these tests run: the agent jar, and the agent module's test classpath (Kafka
 * Streams, RocksDB and the {@code kafka_2.13} broker), which stays off this module's own classpath because Kafka's
 * dependencies and Quarkus' clash. {@code mvn verify} from the top builds src/agent before src/operator (the
 * parent's module order); a run of this module alone finds them only when the agent module was built before.
 */
final class AgentBuild {
    static final Path AGENT_JAR = Path.of("../agent/target/streams-memory-agent.jar");
    /** One line, written by the agent pom's maven-dependency-plugin (build-classpath, generate-test-resources). */
    static final Path TEST_CLASSPATH = Path.of("../agent/target/test.classpath");
    /** Builds both (the Makefile's {@code make agent}). */
    static final String COMMAND = "mvn -B -ntp -pl src/agent -am package -DskipTests";

    private AgentBuild() {}

    /** {@code built}, or an error saying which command builds it: a missing file never skips a test. */
    static Path require(Path built) {
        if (!Files.isRegularFile(built)) {
            throw new IllegalStateException(built.toAbsolutePath().normalize() + " is missing: the agent module "
                    + "builds it (`mvn verify` from the top builds src/agent first); run `" + COMMAND + "` from the "
                    + "top before testing src/operator alone");
        }
        return built;
    }
}
