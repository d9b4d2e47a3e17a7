package io.streamsmemory.agent.it;

import static io.streamsmemory.agent.it.AgentRealBrokerTest.FACTS;
import static io.streamsmemory.agent.it.AgentRealBrokerTest.PARTITIONS;
import static io.streamsmemory.agent.it.AgentRealBrokerTest.THREADS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamsmemory.agent.DoNoHarm;
import io.streamsmemory.agent.report.LocalHttp;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The applications users run inside a framework, under the agent, on a real broker (issue 46): a Spring Boot
 * application (examples/spring-boot-app: spring-kafka's {@code @EnableKafkaStreams}, Boot 3.5.7's executable jar,
 * Kafka Streams 3.9.1) and a Quarkus one (examples/quarkus-app: quarkus-kafka-streams 3.33.2's fast-jar, Kafka Streams
 * 4.1.2). Each launcher loads Kafka Streams and RocksJava from its own jars in a class loader the agent's classes
 * cannot see, so the agent defines its RocksDB setter in that loader. The shared cache is in force, the plan's settings
 * are merged into the StreamsConfig the framework builds from its own properties ({@code spring.kafka.streams.*},
 * {@code kafka-streams.*}), and the application's own setting there is kept. The jars are made by {@code make images}
 * (src/images/build.sh). Tagged {@code compat}: {@code make test-compat} runs it, while {@code make test} runs the
 * same applications as images on the real node (RealPodDoNoHarmTest).
 */
@Tag("kafka-broker")
@Tag("compat")
class FrameworkAgentTest {
    static final Path BOOT_JAR = Path.of("../../examples/spring-boot-app/target/image/app/orders-spring-boot.jar");
    static final Path QUARKUS_JAR = Path.of("../../examples/quarkus-app/target/quarkus-app/quarkus-run.jar");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aSpringBootFatJarIsBoundedAndKeepsItsOwnSettings() throws Exception {
        runUnderTheAgent("spring-boot", BOOT_JAR, "3.9.1", 15, "aSpringBootFatJarIsBoundedAndKeepsItsOwnSettings");
    }

    @Test
    void aQuarkusFastJarIsBoundedAndKeepsItsOwnSettings() throws Exception {
        runUnderTheAgent("quarkus", QUARKUS_JAR, "4.1.2", 16, "aQuarkusFastJarIsBoundedAndKeepsItsOwnSettings");
    }

    private void runUnderTheAgent(String name, Path jar, String kafkaStreams, int harmCase, String method)
            throws Exception {
        assertThat(jar)
                .as("the " + name + " example's jar: make images builds it")
                .exists();
        PlannedWork planned = PlannedWork.fresh("it-" + name, FACTS);
        int port = LocalHttp.freePort();
        String topics = name + "-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        AppRun.Launch launch = new AppRun.Launch()
                .option(planned.allocation().jvmOptions().toArray(new String[0]))
                .option("-javaagent:" + AppRun.agentJar())
                .env("STREAMS_MEMORY_ALLOCATION", planned.file().toString())
                .env("STREAMS_MEMORY_REPORT_PORT", Integer.toString(port))
                .env("BOOTSTRAP_SERVERS", SharedBroker.get().bootstrap())
                .env("APPLICATION_ID", "orders-" + name + "-it")
                .env("STATE_DIR", planned.dir().resolve("state").toString())
                .env("STREAM_THREADS", Integer.toString(THREADS))
                .env("ORDERS_TOPIC", topics + "input")
                .env("COUNTS_TOPIC", topics + "counts-out")
                .env("HOURLY_TOPIC", topics + "window-out");
        launch.jar = jar.toAbsolutePath().normalize();
        try (AppRun app = AppRun.start(launch, planned.dir().resolve("app"), java.util.List.of())) {
            app.assertEveryKeyCounted(topics + "counts-out");
            JsonNode report = new ObjectMapper()
                    .readTree(LocalHttp.get(http, port, "/report", Duration.ofSeconds(30))
                            .body());
            Files.writeString(app.dir.resolve("report.json"), report.toString());

            assertThat(report.path("kafkaStreamsVersion").asText()).isEqualTo(kafkaStreams);
            // The shared cache in force: the agent's setter, defined in the launcher's class loader, bounded every
            // store.
            assertThat(report.at("/rocksdb/blockCacheCapacityBytes").asLong())
                    .isEqualTo(planned.allocation().rocksdb().blockCacheCapacityBytes());
            assertThat(report.at("/streams/rocksDbInstances").asLong()).isPositive();
            assertThat(report.path("recordCacheSource").asText()).isEqualTo("plan");
            String log = Files.readString(app.dir.resolve("app.log"));
            assertThat(log)
                    .contains("set rocksdb.config.setter: unset -> "
                            + "org.apache.kafka.streams.state.StreamsMemoryBoundedRocksDBConfigSetter")
                    .doesNotContain("RocksDB is not bounded by the agent");
            // The application's own main.consumer.max.poll.records (in the framework's properties) is kept.
            int lost = log.contains("max.poll.records = 250") ? 0 : 1;
            assertThat(lost)
                    .as("main.consumer.max.poll.records=250 from the framework")
                    .isZero();
            assertThat(app.alive()).isTrue();
            DoNoHarm.record(harmCase, getClass(), method, true, lost);
        }
    }
}
