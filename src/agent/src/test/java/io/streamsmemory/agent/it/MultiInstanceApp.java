package io.streamsmemory.agent.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;

/**
 * Several KafkaStreams instances in one JVM, as some applications run (one per sub-topology or per tenant): each its
 * own application.id, all with the same settings as {@link StreamsApp}, each counting the same input into its own
 * output topic ({@code <prefix>counts-out-<n>}) with a RocksDB store. Reports like StreamsApp, the n-th instance's
 * keys prefixed {@code i<n>.}.
 */
public final class MultiInstanceApp {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        Path stateDir = Path.of(args[1]);
        Path report = Path.of(args[2]);
        int threads = Integer.parseInt(args[3]);
        String topics = args[4];
        int count = Integer.parseInt(args[5]);
        List<KafkaStreams> instances = new ArrayList<>();
        for (int n = 1; n <= count; n++) {
            StreamsBuilder builder = new StreamsBuilder();
            StreamsApp.count(
                    builder.stream(topics + "input", Consumed.with(Serdes.String(), Serdes.String())),
                    topics + "counts-out-" + n);
            String applicationId = "app-" + topics.replace("-", "") + "-" + n;
            instances.add(
                    new KafkaStreams(builder.build(), StreamsApp.props(bootstrap, applicationId, stateDir, threads)));
        }
        StreamsApp.runReporting(instances, report);
    }
}
