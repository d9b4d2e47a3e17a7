package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.streamsmemory.operator.api.StreamsMemoryPolicySpec;
import io.streamsmemory.operator.plan.FittingPlan;
import io.streamsmemory.operator.plan.PlannedRange;
import io.streamsmemory.operator.workload.Workload;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the webhook a few reviews of its own before it reports serving. The first review a fresh JVM answers pays
 * for the TLS handshake code, the JSON mapper and the admission path being loaded and compiled: on a busy 2-core
 * node that took longer than the API server's 2 s timeout, so the first pods of the operator's own rollout were
 * admitted without the agent ({@code failurePolicy: Ignore}) and the workload spent its one drift rollout on them.
 * The reviews are of a pod no workload owns, answered unchanged; they go over TLS to 127.0.0.1 trusting only the
 * webhook's own serving certificate (its CA may be cert-manager's, which this process does not hold; the host name is
 * not checked: the certificate names the Service, not the loopback address).
 */
final class WarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);
    static final int REVIEWS = 3;
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    static final String REVIEW = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
            + "\"uid\":\"streams-memory-warm-up\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
            + "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"},\"operation\":\"CREATE\","
            + "\"namespace\":\"streams-memory-warm-up\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
            + "\"metadata\":{\"name\":\"warm-up\",\"namespace\":\"streams-memory-warm-up\"},"
            + "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"warm-up\"}]}}}}";

    private WarmUp() {}

    /**
     * Plans a one-replica Deployment under a 1 GiB policy once, as {@link FirstAllocation} plans a new workload's first
     * pod: the engine's classes loaded and its code run before the webhook serves. A cold engine in the first pod's
     * admission, beside its three API calls, took the review past the API server's 2 s on a loaded machine (.ci/run,
     * 2026-12-06: one of three first pods admitted without the agent). Returns whether the plan fitted; never throws.
     */
    static boolean planOnce() {
        try {
            Deployment sample = new DeploymentBuilder()
                    .withNewMetadata()
                    .withName("warm-up")
                    .withNamespace("streams-memory-warm-up")
                    .endMetadata()
                    .withNewSpec()
                    .withReplicas(1)
                    .withNewTemplate()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .endContainer()
                    .endSpec()
                    .endTemplate()
                    .endSpec()
                    .build();
            Workload workload = Workload.of(sample).orElseThrow();
            StreamsMemoryPolicySpec spec = new StreamsMemoryPolicySpec();
            spec.setMemory("1Gi");
            return FittingPlan.of(
                            spec, workload, PlannedRange.of(workload, null, List.of()), Optional.empty(), Map.of())
                    .result()
                    .ok();
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("the webhook's warm-up plan failed ({}); it serves all the same", e.toString());
            return false;
        }
    }

    /** How many of the {@link #REVIEWS} reviews were answered 200; never throws. */
    static int run(Vertx vertx, int port, String servingCertificatePem) {
        HttpClient client = vertx.createHttpClient(new HttpClientOptions()
                .setSsl(true)
                .setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(servingCertificatePem)))
                .setVerifyHost(false)
                .setConnectTimeout((int) TIMEOUT.toMillis()));
        int answered = 0;
        try {
            for (int i = 0; i < REVIEWS; i++) {
                RequestOptions request = new RequestOptions()
                        .setMethod(HttpMethod.POST)
                        .setHost("127.0.0.1")
                        .setPort(port)
                        .setURI(WebhookSettings.PATH)
                        .putHeader("Content-Type", "application/json");
                int status = client.request(request)
                        .compose(r -> r.send(REVIEW))
                        .compose(response -> response.body().map(body -> response.statusCode()))
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                if (status == 200) {
                    answered++;
                }
            }
        } catch (Exception e) {
            LOG.warn("the webhook's warm-up review failed ({}); it serves all the same", e.toString());
        } finally {
            client.close();
        }
        return answered;
    }
}
