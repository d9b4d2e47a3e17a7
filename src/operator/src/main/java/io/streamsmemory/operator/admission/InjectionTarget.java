package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * The opted-in workload a pod belongs to, and what to inject into it.
 *
 * @param workload      the Deployment or StatefulSet (Events about the pod go on it: the pod has no name yet)
 * @param containerName the container to inject, as the operator recorded it from the workload's template on the
 *                      ConfigMap ({@code streamsmemory.io/target-container}); null when nothing is recorded
 * @param configMapName the ConfigMap holding {@code allocation.json}
 * @param allocation    the published allocation (null when none is published yet, or it is not trusted)
 */
public record InjectionTarget(
        HasMetadata workload, String containerName, String configMapName, PublishedAllocation allocation) {}
