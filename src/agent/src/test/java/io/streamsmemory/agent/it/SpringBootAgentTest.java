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
 * A Spring Boot application (examples/spring-boot-app: spring-kafka's {@code @EnableKafkaStreams}, Boot's executable
 * jar, Kafka Streams 3.9.1) under the agent, on a real broker (issue 46): Boot's launcher loads Kafka Streams and
 * RocksJava from nested jars in a class loader the agent's classes cannot see, so the agent defines its RocksDB setter
 * in that loader. The shared cache is in force, the plan's settings are merged into the StreamsConfig spring-kafka
 * builds from {@code spring.kafka.streams.*}, and the application's own setting there is kept. The jar is made by
 * {@code make images} (src/images/build.sh), before make test's Maven run.
 */
@Tag("kafka-broker")
class SpringBootAgentTest {
    static final Path BOOT_JAR = Path.of("../../examples/spring-boot-app/target/image/app/orders-spring-boot.jar");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aSpringBootFatJarIsBoundedAndKeepsItsOwnSettings() throws Exception {
        assertThat(BOOT_JAR)
                .as("the Spring Boot example's jar: make images builds it")
                .exists();
        PlannedWork planned = PlannedWork.fresh("it-spring-boot", FACTS);
        int port = LocalHttp.freePort();
        String topics = "boot-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        AppRun.Launch launch = new AppRun.Launch()
                .option(planned.allocation().jvmOptions().toArray(new String[0]))
                .option("-javaagent:" + AppRun.agentJar())
                .env("STREAMS_MEMORY_ALLOCATION", planned.file().toString())
                .env("STREAMS_MEMORY_REPORT_PORT", Integer.toString(port))
                .env("BOOTSTRAP_SERVERS", SharedBroker.get().bootstrap())
                .env("APPLICATION_ID", "orders-spring-boot-it")
                .env("STATE_DIR", planned.dir().resolve("state").toString())
                .env("STREAM_THREADS", Integer.toString(THREADS))
                .env("ORDERS_TOPIC", topics + "input")
                .env("COUNTS_TOPIC", topics + "counts-out")
                .env("HOURLY_TOPIC", topics + "window-out");
        launch.jar = BOOT_JAR.toAbsolutePath().normalize();
        try (AppRun app = AppRun.start(launch, planned.dir().resolve("app"), java.util.List.of())) {
            app.assertEveryKeyCounted(topics + "counts-out");
            JsonNode report = new ObjectMapper()
                    .readTree(LocalHttp.get(http, port, "/report", Duration.ofSeconds(30))
                            .body());
            Files.writeString(app.dir.resolve("report.json"), report.toString());

            assertThat(report.path("kafkaStreamsVersion").asText()).isEqualTo("3.9.1");
            // The shared cache in force: the agent's setter, defined in Boot's class loader, bounded every store.
            assertThat(report.at("/rocksdb/blockCacheCapacityBytes").asLong())
                    .isEqualTo(planned.allocation().rocksdb().blockCacheCapacityBytes());
            assertThat(report.at("/streams/rocksDbInstances").asLong()).isPositive();
            assertThat(report.path("recordCacheSource").asText()).isEqualTo("plan");
            String log = Files.readString(app.dir.resolve("app.log"));
            assertThat(log)
                    .contains("set rocksdb.config.setter: unset -> "
                            + "org.apache.kafka.streams.state.StreamsMemoryBoundedRocksDBConfigSetter")
                    .doesNotContain("RocksDB is not bounded by the agent");
            // The application's own main.consumer.max.poll.records (spring.kafka.streams.properties) is kept.
            int lost = log.contains("max.poll.records = 250") ? 0 : 1;
            assertThat(lost)
                    .as("main.consumer.max.poll.records=250 from spring.kafka.streams.properties")
                    .isZero();
            assertThat(app.alive()).isTrue();
            DoNoHarm.record(15, getClass(), "aSpringBootFatJarIsBoundedAndKeepsItsOwnSettings", true, lost);
        }
    }
}
