package io.streamsmemory.operator.realnode;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * How far a Kafka Streams application got through a topic, from the broker: its committed offsets (the consumer
 * group is the {@code application.id}) against the topic's end offsets. Processed means committed, so a record
 * counts once Kafka Streams committed it (every 30 s by default).
 */
final class ConsumerProgress implements AutoCloseable {
    /** @param records the topic's records (its end offsets summed); {@code lag} those not yet committed */
    record Progress(long records, long lag) {}

    private final Admin admin;

    ConsumerProgress(String bootstrapServers) {
        admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000));
    }

    /**
     * As {@link #of}, or empty when the broker did not answer within the client's timeouts: on a loaded machine a pod's
     * broker can miss one round (".ci/run", 2026-12-06: "Timed out waiting for a node assignment"), which skips one
     * sample of a rate sampled every few seconds rather than failing the test.
     */
    Optional<Progress> sampled(String group, String topic) throws ExecutionException, InterruptedException {
        try {
            return Optional.of(of(group, topic));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TimeoutException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    Progress of(String group, String topic) throws ExecutionException, InterruptedException {
        Map<TopicPartition, Long> end = endOffsets(topic);
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get();
        long records = 0;
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            OffsetAndMetadata done = committed.get(partition.getKey());
            records += partition.getValue();
            lag += partition.getValue() - (done == null ? 0 : done.offset());
        }
        return new Progress(records, lag);
    }

    /**
     * Every record of {@code topic} deleted up to its end, as retention would in time: an application that starts on
     * it later, from the earliest offset, finds nothing to process.
     */
    void deleteRecords(String topic) throws ExecutionException, InterruptedException {
        admin.deleteRecords(endOffsets(topic).entrySet().stream()
                        .collect(Collectors.toMap(Map.Entry::getKey, e -> RecordsToDelete.beforeOffset(e.getValue()))))
                .all()
                .get();
    }

    private Map<TopicPartition, Long> endOffsets(String topic) throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetSpec> partitions =
                admin.describeTopics(java.util.List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                        .collect(Collectors.toMap(
                                p -> new TopicPartition(topic, p.partition()), p -> OffsetSpec.latest()));
        return admin.listOffsets(partitions).all().get().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    @Override
    public void close() {
        admin.close();
    }
}
