package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.workload.WorkloadCache;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A java-operator-sdk event source over an informer of the shared {@link WorkloadCache}, so the reconciler reads
 * the same cache as the webhook instead of a copy of its own: every add, update and delete reconciles the policies
 * {@code mapper} names (for an update, those of the old object and of the new: a workload that moved from one
 * policy to another concerns both), and a policy's secondary resources are what the cache indexes under it.
 */
final class SharedCacheEventSource<R extends HasMetadata> extends AbstractEventSource<R, StreamsMemoryPolicy>
        implements ResourceEventHandler<R> {
    /** How long the reconciler's start waits for the cache to fill (then it goes on filling). */
    static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);

    private final WorkloadCache cache;
    private final Supplier<SharedIndexInformer<R>> informer;
    private final SecondaryToPrimaryMapper<R> mapper;

    SharedCacheEventSource(
            Class<R> kind,
            String name,
            WorkloadCache cache,
            Supplier<SharedIndexInformer<R>> informer,
            SecondaryToPrimaryMapper<R> mapper) {
        super(kind, name);
        this.cache = cache;
        this.informer = informer;
        this.mapper = mapper;
    }

    @Override
    public void start() throws OperatorException {
        cache.start(SYNC_TIMEOUT);
        informer.get().addEventHandler(this); // replays what the cache holds as adds
        super.start();
    }

    @Override
    public void stop() throws OperatorException {
        informer.get().removeEventHandler(this);
        super.stop();
    }

    @Override
    public Set<R> getSecondaryResources(StreamsMemoryPolicy policy) {
        return new HashSet<>(WorkloadCache.ofPolicy(
                informer.get(),
                policy.getMetadata().getNamespace(),
                policy.getMetadata().getName()));
    }

    @Override
    public void onAdd(R resource) {
        reconcile(mapper.toPrimaryResourceIDs(resource));
    }

    @Override
    public void onUpdate(R old, R updated) {
        Set<ResourceID> policies = new HashSet<>(mapper.toPrimaryResourceIDs(updated));
        policies.addAll(mapper.toPrimaryResourceIDs(old));
        reconcile(policies);
    }

    @Override
    public void onDelete(R resource, boolean finalStateUnknown) {
        reconcile(mapper.toPrimaryResourceIDs(resource));
    }

    private void reconcile(Set<ResourceID> policies) {
        if (!isRunning()) {
            return;
        }
        for (ResourceID policy : policies) {
            getEventHandler().handleEvent(new Event(policy));
        }
    }
}
