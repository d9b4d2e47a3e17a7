package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.Workload;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Tells a workload that names a policy which does not exist. The check waits a few seconds so a policy
 * applied together with its workload, or not yet in the operator's cache after a restart, is not
 * reported; the workload is picked up as soon as the policy appears (the policy's reconcile finds it).
 */
final class MissingPolicyReporter {
    static final long GRACE_SECONDS = 5;

    private final EventRecorder events;
    private final Function<ResourceID, Optional<StreamsMemoryPolicy>> policies;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "missing-policy-check");
        thread.setDaemon(true);
        return thread;
    });

    MissingPolicyReporter(EventRecorder events, Function<ResourceID, Optional<StreamsMemoryPolicy>> policies) {
        this.events = events;
        this.policies = policies;
    }

    void check(HasMetadata resource) {
        Workload.of(resource).flatMap(Workload::policyName).ifPresent(name -> {
            ResourceID id = new ResourceID(name, resource.getMetadata().getNamespace());
            scheduler.schedule(
                    () -> {
                        if (policies.apply(id).isEmpty()) {
                            events.record(
                                    resource,
                                    EventRecorder.Type.Warning,
                                    "PolicyNotFound",
                                    String.format(
                                            "StreamsMemoryPolicy %s does not exist in namespace %s; the workload runs unchanged until "
                                                    + "it does",
                                            name, id.getNamespace().orElse("")));
                        }
                    },
                    GRACE_SECONDS,
                    TimeUnit.SECONDS);
        });
    }
}
