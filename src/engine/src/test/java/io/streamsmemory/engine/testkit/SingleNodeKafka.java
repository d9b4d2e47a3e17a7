package io.streamsmemory.engine.testkit;

import java.nio.file.Path;

/**
 * The {@code server.properties} of the tests' real Kafka broker: one KRaft node that is broker and controller, on
 * loopback. The agent's tests ({@code KafkaBroker}) and the operator's ({@code LiveKafkaStreams}) both start it from
 * here (this test-jar is what the two modules share). The broker image's launcher
 * (src/images/kafka-broker, {@code ServerProperties}) makes the same choices for a pod, listening on the pod's IP.
 */
public final class SingleNodeKafka {
    private SingleNodeKafka() {}

    public static String serverProperties(int port, int controllerPort, Path logDir) {
        return String.join(
                        "\n",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                        "controller.listener.names=CONTROLLER",
                        "inter.broker.listener.name=PLAINTEXT",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "log.dirs=" + logDir.toAbsolutePath(),
                        "num.partitions=1",
                        // A single node: every internal topic with one replica, or they are never created.
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=4",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "share.coordinator.state.topic.replication.factor=1",
                        "share.coordinator.state.topic.min.isr=1",
                        // Kafka Streams applications join at once instead of 3 s later.
                        "group.initial.rebalance.delay.ms=0",
                        // Flushed by the OS, not by Kafka: the tests' disk is shared by two busy cores.
                        "log.flush.interval.messages=1000000",
                        "")
                + "\n";
    }
}
