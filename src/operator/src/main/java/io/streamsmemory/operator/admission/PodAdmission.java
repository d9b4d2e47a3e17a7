package io.streamsmemory.operator.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamsmemory.operator.workload.EventRecorder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one {@code admission.k8s.io/v1} AdmissionReview for a Pod CREATE. Fail-open: anything
 * unexpected (a malformed review, a bug) answers "allowed, unchanged", so the webhook can never keep a pod
 * from being created; {@code failurePolicy: Ignore} covers the webhook being unreachable.
 */
public final class PodAdmission {
    private static final Logger LOG = LoggerFactory.getLogger(PodAdmission.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final WorkloadIndex index;
    private final InjectionDecision decider;
    private final PodPatch patcher;
    private final EventRecorder events;
    final LongAdder injected = new LongAdder();
    final LongAdder skipped = new LongAdder();
    final LongAdder errors = new LongAdder();

    public PodAdmission(WorkloadIndex index, WebhookSettings settings, EventRecorder events) {
        this.index = index;
        this.decider = new InjectionDecision(settings);
        this.patcher = new PodPatch(settings);
        this.events = events;
    }

    /** Handling times (ns) of the last {@link #SAMPLES} reviews, for the benchmark. */
    static final int SAMPLES = 4096;

    private final long[] handlingNanos = new long[SAMPLES];
    private final AtomicLong reviews = new AtomicLong();
    private final AtomicLong installChecks = new AtomicLong();

    /** Reviews answered since start (injected, skipped, passed through or failed). */
    long reviews() {
        return reviews.get();
    }

    /** Of those, the install checks' dry runs (the operator's own, make verify-install's). */
    long installChecks() {
        return installChecks.get();
    }

    /** The handling times (ms) of the last reviews (at most {@link #SAMPLES}). */
    List<Double> recentHandlingMillis() {
        long count = Math.min(reviews.get(), SAMPLES);
        List<Double> result = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            result.add(handlingNanos[i] / 1e6);
        }
        return result;
    }

    /** The response body for a request body; never throws. */
    public byte[] review(byte[] body) {
        long start = System.nanoTime();
        try {
            return reviewTimed(body);
        } finally {
            handlingNanos[(int) (reviews.getAndIncrement() % SAMPLES)] = System.nanoTime() - start;
        }
    }

    private byte[] reviewTimed(byte[] body) {
        String uid = "";
        try {
            JsonNode review = MAPPER.readTree(body);
            JsonNode request = review.path("request");
            uid = request.path("uid").asText("");
            return MAPPER.writeValueAsBytes(admit(uid, request));
        } catch (Exception | StackOverflowError e) {
            errors.increment();
            LOG.warn("admission review {} failed, allowing the pod unchanged: {}", uid, e.toString(), e);
            return allowedUnchanged(uid);
        }
    }

    /** The fail-open answer: the pod allowed, unchanged; never throws. */
    static byte[] allowedUnchanged(String uid) {
        try {
            return MAPPER.writeValueAsBytes(response(uid, null, List.of()));
        } catch (Exception impossible) {
            return ("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\""
                            + uid.replaceAll("[^A-Za-z0-9-]", "") + "\",\"allowed\":true}}")
                    .getBytes(StandardCharsets.UTF_8);
        }
    }

    private ObjectNode admit(String uid, JsonNode request) {
        JsonNode pod = request.path("object");
        if (!"CREATE".equals(request.path("operation").asText()) || !pod.isObject()) {
            return response(uid, null, List.of());
        }
        boolean dryRun = request.path("dryRun").asBoolean(false);
        // A pod (make verify-install) or a ConfigMap (the operator's own check): both only as dry runs.
        Optional<ArrayNode> installCheck = InstallCheck.answer(pod, dryRun);
        if (installCheck.isPresent()) {
            installChecks.incrementAndGet();
            return response(uid, installCheck.get(), List.of());
        }
        if (!"Pod".equals(request.path("kind").path("kind").asText())) {
            return response(uid, null, List.of());
        }
        String namespace = request.path("namespace")
                .asText(pod.path("metadata").path("namespace").asText(""));
        Optional<WorkloadIndex.Resolution> resolution = index.resolve(namespace, pod, dryRun);
        if (resolution.isEmpty()) {
            return response(uid, null, List.of());
        }
        InjectionTarget target = resolution.get().target();
        if (target.allocation() == null) {
            if (resolution.get().refused()) {
                return skip(
                        uid, pod, target, "AllocationRefused", resolution.get().problem(), dryRun);
            }
            return response(
                    uid,
                    null,
                    List.of("streams-memory-operator: " + resolution.get().problem()));
        }
        InjectionDecision.Decision decision =
                decider.decide(pod, target, index.limitRanges(namespace), index.configMapReader(namespace));
        if (decision instanceof InjectionDecision.Inject inject) {
            injected.increment();
            List<String> warnings = new ArrayList<>();
            ArrayNode patch = patcher.inject(pod, inject, target, warnings);
            return response(
                    uid,
                    patch,
                    warnings.stream().map(w -> "streams-memory-operator: " + w).toList());
        }
        if (decision instanceof InjectionDecision.Skip skip) {
            return skip(uid, pod, target, "InjectionSkipped", skip.reason(), dryRun);
        }
        return response(uid, null, List.of());
    }

    /** Leaves the pod as it is but for an annotation saying why, and tells the workload in an Event. */
    private ObjectNode skip(
            String uid, JsonNode pod, InjectionTarget target, String reason, String message, boolean dryRun) {
        skipped.increment();
        if (!dryRun) {
            events.record(target.workload(), EventRecorder.Type.Warning, reason, message);
        }
        return response(uid, PodPatch.skip(pod, message), List.of("streams-memory-operator: " + message));
    }

    private static ObjectNode response(String uid, ArrayNode patch, List<String> warnings) {
        ObjectNode review = MAPPER.createObjectNode();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        ObjectNode response = review.putObject("response");
        response.put("uid", uid);
        response.put("allowed", true);
        if (patch != null && !patch.isEmpty()) {
            response.put("patchType", "JSONPatch");
            try {
                response.put("patch", Base64.getEncoder().encodeToString(MAPPER.writeValueAsBytes(patch)));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        if (!warnings.isEmpty()) {
            ArrayNode list = response.putArray("warnings");
            // Shown by kubectl; the API server truncates long ones itself.
            warnings.forEach(list::add);
        }
        return review;
    }
}
