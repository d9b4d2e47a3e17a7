package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * The opted-in workload a pod belongs to, and what to inject into it.
 *
 * @param workload      the Deployment or StatefulSet (Events about the pod go on it: the pod has no name yet)
 * @param containerName the annotation {@code streamsmemory.io/container}, or null for the first container
 * @param configMapName the ConfigMap holding {@code allocation.json}
 * @param allocation    the published allocation (null when none is published yet)
 */
public record InjectionTarget(HasMetadata workload, String containerName, String configMapName,
                              PublishedAllocation allocation) {
}
