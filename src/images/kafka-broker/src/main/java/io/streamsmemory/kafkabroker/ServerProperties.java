package io.streamsmemory.kafkabroker;

/**
 * The broker's {@code server.properties}: the choices of the tests' broker
 * (src/engine/src/test/java/io/streamsmemory/engine/testkit/SingleNodeKafka.java), with the client listener on
 * {@code BIND_ADDRESS} but advertised on the pod's IP, and topics created automatically.
 */
final class ServerProperties {
    private ServerProperties() {}

    static String render(BrokerSettings settings) {
        String controller = settings.controllerAddress();
        return String.join(
                        "\n",
                        "# Written by io.streamsmemory.kafkabroker.KafkaBrokerLauncher at every start; edits are lost.",
                        "process.roles=broker,controller",
                        "node.id=1",
                        // One static voter, this node: nothing to reconfigure, so no dynamic quorum.
                        "controller.quorum.voters=1@" + controller,
                        "listeners=PLAINTEXT://" + BrokerSettings.hostPort(settings.bindAddress(), settings.kafkaPort())
                                + ",CONTROLLER://" + controller,
                        "advertised.listeners=" + settings.advertisedListener(),
                        "controller.listener.names=CONTROLLER",
                        "inter.broker.listener.name=PLAINTEXT",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "log.dirs=" + settings.logDir(),
                        "num.partitions=" + settings.numPartitions(),
                        "auto.create.topics.enable=true",
                        // A single node: every internal topic with one replica, or they are never created.
                        "default.replication.factor=1",
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=4",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "share.coordinator.state.topic.replication.factor=1",
                        "share.coordinator.state.topic.min.isr=1",
                        // Kafka Streams applications join at once instead of 3 s later.
                        "group.initial.rebalance.delay.ms=0",
                        "")
                + "\n";
    }
}
