package io.streamsmemory.agent.hook;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.Allocations;
import io.streamsmemory.protocol.StreamsConfigKeys;
import java.io.InputStream;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;

/** Case 2 of issue 9, the rule in isolation (the real-broker proof is DoNoHarmAgentTest). */
class StreamsInstancesTest {
    @Test
    void theKthUnplannedInstanceGetsPlannedOverKOfEachInstanceScopedValue() {
        AgentAllocation planned = Allocations.agentAllocation(Allocations.oneGiB());
        assertThat(planned.instancesPerPod()).isEqualTo(1);
        for (int k = 2; k <= 4; k++) {
            AgentAllocation share = planned.forUnplannedInstance(k);
            for (Map.Entry<String, Long> entry : planned.streamsConfig().entrySet()) {
                long expected =
                        StreamsConfigKeys.instanceScoped(entry.getKey()) ? entry.getValue() / k : entry.getValue();
                assertThat(share.streamsConfig().get(entry.getKey()))
                        .as(entry.getKey() + " for instance " + k)
                        .isEqualTo(expected);
            }
        }
        assertThat(StreamsConfigKeys.instanceScoped("statestore.cache.max.bytes"))
                .isTrue();
        assertThat(StreamsConfigKeys.instanceScoped("main.consumer.fetch.max.bytes"))
                .isTrue();
        assertThat(StreamsConfigKeys.instanceScoped("buffered.records.per.partition"))
                .isFalse();
        assertThat(StreamsConfigKeys.instanceScoped("main.consumer.receive.buffer.bytes"))
                .isFalse();
    }

    @Test
    void exactlyTheNonDelegatingKafkaStreamsConstructorIsPatched() throws Exception {
        byte[] original;
        try (InputStream in = KafkaStreams.class.getResourceAsStream("KafkaStreams.class")) {
            original = in.readAllBytes();
        }
        assertThat(KafkaStreamsTransformer.patchKafkaStreams(original)).isNotNull();
        assertThat(
                        KafkaStreamsTransformer.configSlot(
                                "(Lorg/apache/kafka/streams/processor/internals/TopologyMetadata;Lorg/apache/kafka/streams/StreamsConfig;"
                                        + "Lorg/apache/kafka/streams/KafkaClientSupplier;Lorg/apache/kafka/common/utils/Time;)V"))
                .isEqualTo(2);
        assertThat(KafkaStreamsTransformer.configSlot("(JLorg/apache/kafka/streams/StreamsConfig;)V"))
                .isEqualTo(3);
        assertThat(KafkaStreamsTransformer.configSlot("(Ljava/util/Properties;)V"))
                .isEqualTo(-1);
    }
}
