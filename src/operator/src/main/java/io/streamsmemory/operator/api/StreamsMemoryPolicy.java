package io.streamsmemory.operator.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A pod's memory budget for the Kafka Streams workloads that name it with the annotation
 * {@code streamsmemory.io/policy}. The operator splits the memory and reports the split in status.
 */
@Group(StreamsMemoryPolicy.GROUP)
@Version(StreamsMemoryPolicy.VERSION)
@Kind("StreamsMemoryPolicy")
@Plural("streamsmemorypolicies")
@ShortNames("smp")
@AdditionalPrinterColumn(name = "Memory", jsonPath = ".spec.memory", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Heap", jsonPath = ".status.heap", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "RocksDB", jsonPath = ".status.rocksDb", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Cache", jsonPath = ".status.recordCache", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Peak",
        jsonPath = ".status.peakMemoryRatio",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Workloads",
        jsonPath = ".status.workloadCount",
        type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
        name = "Ready",
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Reason",
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason",
        type = AdditionalPrinterColumn.Type.STRING,
        priority = 1)
@AdditionalPrinterColumn(
        name = "Learned",
        jsonPath = ".status.conditions[?(@.type==\"TopologyLearned\")].status",
        type = AdditionalPrinterColumn.Type.STRING,
        priority = 1)
@AdditionalPrinterColumn(
        name = "Topology",
        jsonPath = ".status.topology",
        type = AdditionalPrinterColumn.Type.STRING,
        priority = 1)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class StreamsMemoryPolicy extends CustomResource<StreamsMemoryPolicySpec, StreamsMemoryPolicyStatus>
        implements Namespaced {
    public static final String GROUP = "streamsmemory.io";
    public static final String VERSION = "v1alpha1";
}
