package io.streamsmemory.operator.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.util.List;

/**
 * The admission classes as the fuzz targets ({@code io.streamsmemory.operator.fuzz}) drive them: a webhook whose
 * index holds one opted-in Deployment with its published allocation, in memory, so a fuzzed review reaches the
 * pod-handling code instead of stopping at "not ours".
 */
public final class AdmissionFuzzAccess {
    public static final String NAMESPACE = "shop";
    public static final String DEPLOYMENT = "orders-app";
    /** The pod-template-hash of the seed pods: their ReplicaSet is {@code orders-app-5d8f7c}. */
    public static final String TEMPLATE_HASH = "5d8f7c";
    /** The container the published allocation targets (Fixtures' template container). */
    public static final String CONTAINER = "streams";

    private final WebhookSettings settings = new WebhookSettings();
    private final InjectionTarget target;
    private final PodAdmission admission;

    public AdmissionFuzzAccess() {
        Deployment deployment = Fixtures.deployment(NAMESPACE, DEPLOYMENT, "orders", 2, "2Gi");
        deployment.getMetadata().setUid("8d3e6d2c-0000-4000-8000-000000000001");
        Workload workload = Workload.of(deployment).orElseThrow();
        ConfigMap published = AllocationConfigMap.desired("orders", workload, allocation(), "");
        published.getMetadata().setUid("8d3e6d2c-0000-4000-8000-000000000002");
        published.getMetadata().setResourceVersion("101");
        target = new InjectionTarget(
                deployment,
                CONTAINER,
                published.getMetadata().getName(),
                PublishedAllocation.parse(published.getData().get(MetadataKeys.ALLOCATION_KEY)));
        admission = new PodAdmission(WorkloadIndex.over(new InMemory(deployment, published)), settings, new NoEvents());
    }

    /** {@link PodAdmission#review} of this webhook. */
    public byte[] review(byte[] body) {
        return admission.review(body);
    }

    /** Reviews that failed inside (answered "allowed, unchanged" by the fail-open catch). */
    public long failedReviews() {
        return admission.errors.sum();
    }

    /**
     * Decides for {@code pod} with the fixed target, and patches when the decision is to inject: the decision's
     * name and the patch (null unless injected).
     */
    public String decideAndPatch(JsonNode pod, List<String> warnings) {
        InjectionDecision.Decision decision =
                new InjectionDecision(settings).decide(pod, target, List.of(), name -> null);
        if (decision instanceof InjectionDecision.Inject inject) {
            return new PodPatch(settings).inject(pod, inject, target, warnings).toString();
        }
        return decision.toString();
    }

    /** The skip patch, the other thing written onto an arbitrary pod. */
    public String skipPatch(JsonNode pod, String reason) {
        return PodPatch.skip(pod, reason).toString();
    }

    private static io.streamsmemory.engine.Allocation allocation() {
        return Fixtures.smallAllocation(2 * ByteSize.GiB);
    }

    /** One Deployment and its ConfigMap; no LimitRanges; a live read finds what the cache holds. */
    private record InMemory(Deployment deployment, ConfigMap configMap) implements WorkloadIndex.Lookups {
        @Override
        public HasMetadata workload(String kind, String namespace, String name) {
            return kind.equals("Deployment") && namespace.equals(NAMESPACE) && name.equals(DEPLOYMENT)
                    ? deployment
                    : null;
        }

        @Override
        public ConfigMap cachedConfigMap(String namespace, String name) {
            return namespace.equals(NAMESPACE)
                            && name.equals(configMap.getMetadata().getName())
                    ? configMap
                    : null;
        }

        @Override
        public List<LimitRange> limitRanges(String namespace) {
            return List.of();
        }

        @Override
        public ConfigMap liveConfigMap(String namespace, String name) {
            return cachedConfigMap(namespace, name);
        }
    }

    /** Events go nowhere: there is no API server. */
    private static final class NoEvents extends EventRecorder {
        NoEvents() {
            super(null);
        }

        @Override
        public void record(HasMetadata object, Type type, String reason, String message, String gist) {}
    }
}
