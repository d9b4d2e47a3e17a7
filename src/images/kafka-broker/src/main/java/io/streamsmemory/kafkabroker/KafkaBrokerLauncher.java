package io.streamsmemory.kafkabroker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import kafka.tools.StorageTool;

/**
 * The entry point of the single-node Kafka image, which has no shell: writes {@code server.properties} from
 * environment variables into {@code DATA_DIR}, formats the storage there unless it already is, and runs
 * {@code kafka.Kafka} in this JVM (Kafka's own SIGTERM handling shuts it down cleanly). One KRaft node is broker and
 * controller; every replication factor is 1. Heap and GC are the JVM's business ({@code JDK_JAVA_OPTIONS}).
 *
 * <p>Environment variables:
 *
 * <ul>
 *   <li>{@code POD_IP}: the address clients are told to connect to (advertised listener) and the controller's own
 *       address; in a pod, {@code status.podIP} from the downward API. Default {@code 127.0.0.1}.
 *   <li>{@code BIND_ADDRESS}: where the client listener listens. Default {@code 0.0.0.0}.
 *   <li>{@code KAFKA_PORT}: the client (PLAINTEXT) port. Default {@code 9092}.
 *   <li>{@code CONTROLLER_PORT}: the KRaft controller port. Default {@code 9093}.
 *   <li>{@code DATA_DIR}: {@code server.properties} and the logs; must be writable (an emptyDir in a pod). Default
 *       {@code /tmp/kafka}.
 *   <li>{@code NUM_PARTITIONS}: partitions of an automatically created topic. Default {@code 1}.
 *   <li>{@code CLUSTER_ID}: the cluster id of a first format (a Kafka Uuid, 22 characters). Default: a random one.
 * </ul>
 */
public final class KafkaBrokerLauncher {
    private KafkaBrokerLauncher() {}

    public static void main(String[] args) throws Exception {
        BrokerSettings settings;
        try {
            settings = BrokerSettings.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("kafka-broker: " + e.getMessage());
            System.exit(2);
            return;
        }
        Path config = settings.dataDir().resolve("server.properties");
        try {
            Files.createDirectories(settings.dataDir());
            Files.writeString(config, ServerProperties.render(settings));
        } catch (IOException e) { // read-only, missing or not ours: the volume is not mounted
            System.err.println("kafka-broker: cannot write " + config + " (" + e + ")"
                    + ": mount a writable volume (an emptyDir) at " + settings.dataDir() + " or set DATA_DIR");
            System.exit(2);
            return;
        }
        Path meta = settings.logDir().resolve("meta.properties");
        if (Files.exists(meta)) {
            // A restarted container keeps its emptyDir, and with it the cluster id and the topics.
            System.out.println("kafka-broker: storage already formatted (" + meta + ")");
        } else {
            format(config, settings.clusterId());
        }
        System.out.println("kafka-broker: starting KRaft node 1 on " + settings.advertisedListener() + " (data in "
                + settings.dataDir() + ")");
        kafka.Kafka.main(new String[] {config.toString()});
    }

    /**
     * {@code kafka-storage format}, in this JVM: StorageTool's {@code execute} rather than its {@code main}, which
     * calls {@code System.exit} even on success. Not {@code --ignore-formatted}: with a new random cluster id it fails
     * on a formatted directory ("Invalid cluster.id"), hence the check for meta.properties first.
     */
    private static void format(Path config, String clusterId) throws IOException {
        int exit;
        try {
            exit = StorageTool.execute(new String[] {"format", "-t", clusterId, "-c", config.toString()}, System.out);
        } catch (RuntimeException e) { // FormatterException, TerseFailure: a message, not a stack trace
            exit = 1;
            System.err.println("kafka-broker: formatting the storage failed: " + e.getMessage());
        }
        if (exit != 0) {
            System.exit(exit);
        }
    }
}
