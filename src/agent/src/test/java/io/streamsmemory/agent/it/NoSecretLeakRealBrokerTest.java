package io.streamsmemory.agent.it;

import static io.streamsmemory.agent.it.AgentRealBrokerTest.FACTS;
import static io.streamsmemory.agent.it.AgentRealBrokerTest.PARTITIONS;
import static io.streamsmemory.agent.it.AgentRealBrokerTest.THREADS;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.report.LocalHttp;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 33, "no secret comes out", the agent's part: a real Kafka Streams application on a real broker whose own
 * configuration carries passwords ({@link ApplicationSecrets}), run with the agent (which reads and merges that
 * configuration): none of them shows in the agent's log lines, its MBean, its {@code /report} or its
 * {@code /metrics}. The operator's part (its log, Events and status, fed by this report) is
 * {@code MemoryObserverTest}'s.
 */
@Tag("kafka-broker")
class NoSecretLeakRealBrokerTest {
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void anApplicationsPasswordsNeverComeOutOfTheAgent() throws Exception {
        PlannedWork planned = PlannedWork.fresh("it-secrets", FACTS);
        Path work = planned.dir();
        int port = LocalHttp.freePort();
        AppRun.Launch launch = new AppRun.Launch()
                .option(planned.allocation().jvmOptions().toArray(new String[0]))
                .option("-javaagent:" + AppRun.agentJar())
                .env("STREAMS_MEMORY_REPORT_PORT", Integer.toString(port))
                .env("STREAMS_APP_EXTRA_CONFIG", ApplicationSecrets.write(work).toString());
        String topics = "secrets-";
        AppRun.prepareTopics(topics, PARTITIONS, "counts-out", "window-out");
        try (AppRun app = AppRun.streamsApp(launch, work.resolve("app"), topics, THREADS, planned.file())) {
            app.awaitCounts(topics + "counts-out");
            Properties fromTheApplication = app.awaitReport();
            Map<String, String> outputs = new LinkedHashMap<>();
            outputs.put("/report", get(port, "/report"));
            outputs.put("/metrics", get(port, "/metrics"));
            outputs.put(
                    "MBean",
                    fromTheApplication.stringPropertyNames().stream()
                            .filter(key -> key.startsWith("mbean."))
                            .map(key -> key + "=" + fromTheApplication.getProperty(key))
                            .collect(Collectors.joining("\n")));
            outputs.put("agent log lines", String.join("\n", app.agentLines()));
            // The agent did read the configuration the secrets are in: it reports the record cache it merged into it.
            assertThat(outputs.get("/report")).contains("\"recordCacheSource\"");
            assertThat(outputs.get("MBean")).contains("mbean.RecordCacheSource=");
            for (Map.Entry<String, String> output : outputs.entrySet()) {
                assertThat(output.getValue())
                        .as("%s of an application whose config holds passwords", output.getKey())
                        .isNotBlank()
                        .doesNotContain(ApplicationSecrets.MARKER);
            }
            // The whole log, Kafka's own lines included: Kafka prints its PASSWORD configs as [hidden], which also
            // shows
            // the secrets did reach the application's config.
            List<String> log = Files.readAllLines(app.log);
            assertThat(log).anyMatch(line -> line.contains("sasl.jaas.config = [hidden]"));
            long kafkaLines = log.stream()
                    .filter(line -> line.contains(ApplicationSecrets.MARKER))
                    .count();
            System.out.printf(
                    "secrets: agent_outputs_checked=%d secrets_leaked=0 (application log lines with a secret, the "
                            + "agent's or Kafka's: %d)%n",
                    outputs.size(), kafkaLines);
            assertThat(kafkaLines).as("application log lines holding a secret").isZero();
        }
    }

    private String get(int port, String path) throws Exception {
        HttpResponse<String> response = LocalHttp.get(http, port, path, Duration.ofSeconds(10));
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }
}
