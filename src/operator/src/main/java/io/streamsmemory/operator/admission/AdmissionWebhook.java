package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.WorkloadCache;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.KeyCertOptions;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pod admission webhook: an HTTPS server on its own port ({@code POST /mutate-pods}) presenting the
 * certificate {@link CertificateManager} keeps current, answering from {@link WorkloadIndex}'s caches, only
 * for pods of namespaces that hold a policy ({@link PolicyNamespaceSelector}). Every operator replica serves
 * it (it does not need the leader Lease). Plain Java so the tests run it exactly as the Quarkus app does.
 *
 * <p>A Vert.x server (event loops, non-blocking I/O): TLS handshakes and request bodies are read without
 * holding a thread, each bounded in time, so slow or idle clients cannot starve the {@code threads} workers
 * that answer complete reviews ({@link ReviewRequests}); the reviews in flight and the body bytes they hold are
 * capped as a whole ({@link WebhookLoad}), above which reviews are answered 429 unread and admitted unchanged.
 */
public final class AdmissionWebhook implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionWebhook.class);

    /**
     * Idle keep-alive connections are closed after this: longer than the 90 s after which the API server's
     * Go client drops its own idle connections, so the client closes first and never sends a review on a
     * connection the server is closing.
     */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);

    private final WebhookSettings settings;
    private final WorkloadIndex index;
    private final CertificateManager certificates;
    private final PodAdmission admission;
    private final PolicyNamespaceSelector namespaces;
    private final WebhookLoad load;
    private final WebhookReachCheck reach;
    private final MeterRegistry registry;
    private Vertx vertx;
    private HttpServer server;
    private int warmUpAnswered;

    private AdmissionWebhook(
            KubernetesClient client,
            EventRecorder events,
            WebhookSettings settings,
            MeterRegistry registry,
            Clock clock,
            WorkloadCache cache) {
        this.settings = settings;
        this.registry = registry;
        this.load = new WebhookLoad(settings.maxInFlight, settings.maxBufferedBytes);
        this.index = new WorkloadIndex(client, new FirstAllocation(client, events), cache);
        this.certificates = new CertificateManager(client, settings, clock);
        this.admission = new PodAdmission(index, settings, events);
        this.namespaces = new PolicyNamespaceSelector(client, settings);
        this.reach = new WebhookReachCheck(client, settings, clock);
    }

    /**
     * Fills the caches, gets a serving certificate, listens, then answers reviews of its own ({@link WarmUp}). The
     * workloads and ConfigMaps are read from a cache of the webhook's own (tests of the webhook alone).
     */
    public static AdmissionWebhook start(KubernetesClient client, EventRecorder events, WebhookSettings settings) {
        return start(client, events, settings, new SimpleMeterRegistry(), Clock.systemUTC(), null);
    }

    /**
     * As the operator runs it: its load published in {@code registry}, the workloads and ConfigMaps read from
     * {@code cache}, the one the reconciler reads too.
     */
    public static AdmissionWebhook start(
            KubernetesClient client,
            EventRecorder events,
            WebhookSettings settings,
            MeterRegistry registry,
            WorkloadCache cache) {
        return start(client, events, settings, registry, Clock.systemUTC(), cache);
    }

    static AdmissionWebhook start(
            KubernetesClient client, EventRecorder events, WebhookSettings settings, Clock clock) {
        return start(client, events, settings, new SimpleMeterRegistry(), clock, null);
    }

    private static AdmissionWebhook start(
            KubernetesClient client,
            EventRecorder events,
            WebhookSettings settings,
            MeterRegistry registry,
            Clock clock,
            WorkloadCache cache) {
        AdmissionWebhook webhook = new AdmissionWebhook(client, events, settings, registry, clock, cache);
        try {
            webhook.startServing();
            return webhook;
        } catch (Exception e) {
            webhook.close();
            throw new IllegalStateException(
                    "the admission webhook could not start on port " + settings.port + ": " + e.getMessage(), e);
        }
    }

    private void startServing() throws Exception {
        index.start(Duration.ofSeconds(30));
        certificates.start();
        namespaces.start();
        vertx = Vertx.vertx(new VertxOptions().setWorkerPoolSize(Math.max(1, settings.threads)));
        long timeout = settings.requestTimeout.toMillis();
        HttpServerOptions options = new HttpServerOptions()
                .setHost(settings.host)
                .setPort(settings.port)
                .setSsl(true)
                .setKeyCertOptions(KeyCertOptions.wrap(certificates.keyManager()))
                .setEnabledSecureTransportProtocols(Set.of("TLSv1.3", "TLSv1.2"))
                // HTTP/1.1, as the API server's webhook client speaks it to a server without ALPN.
                .setUseAlpn(false)
                .setTcpNoDelay(true)
                .setSslHandshakeTimeout(timeout)
                .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
                .setIdleTimeout((int) IDLE_TIMEOUT.toSeconds())
                .setIdleTimeoutUnit(TimeUnit.SECONDS);
        ReviewRequests requests = new ReviewRequests(vertx, admission, load, timeout);
        server = vertx.createHttpServer(options)
                .connectionHandler(requests::connected)
                .requestHandler(requests);
        server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        // Only now: a start that failed before serving is retried, and a registry keeps the first of two gauges.
        load.register(registry);
        WarmUp.planOnce();
        warmUpAnswered = WarmUp.run(vertx, port(), Certificates.pem(certificates.servingCertificate()));
        reach.serving();
        LOG.info(
                "pod admission webhook listening on https://{}:{}{} (warm-up: {} of {} reviews answered)",
                settings.host,
                port(),
                WebhookSettings.PATH,
                warmUpAnswered,
                WarmUp.REVIEWS);
    }

    /** True when the caches the webhook answers from (workloads, ConfigMaps, LimitRanges) are filled. */
    boolean cachesSynced() {
        return index.synced();
    }

    /** How many of its {@link WarmUp#REVIEWS} warm-up reviews the webhook answered before it reported serving. */
    public int warmUpAnswered() {
        return warmUpAnswered;
    }

    /** Whether the API server calls this webhook (any replica of it) for pods of {@code namespace}, as last checked. */
    public WebhookReach reach(String namespace) {
        return reach.reach(namespace);
    }

    /**
     * Checks again the namespaces whose install check result expired; returns those whose verdict changed. The
     * webhook's lifecycle calls it every {@link #REACH_REFRESH}, so no policy is reconciled on a timer for it.
     */
    public Set<String> refreshReach() {
        return reach.refreshExpired();
    }

    /** How often expired install checks run again: as soon as a bad or missing verdict is due. */
    public static final Duration REACH_REFRESH = WebhookReachCheck.RETRY;

    /** The port actually bound (settings may say 0). */
    public int port() {
        return server.actualPort();
    }

    public X509Certificate servingCertificate() {
        return certificates.servingCertificate();
    }

    public String caBundlePem() {
        return certificates.caBundlePem();
    }

    /** Pods injected, skipped (with a reason) and reviews that failed (answered allowed) since start. */
    public long injected() {
        return admission.injected.sum();
    }

    public long skipped() {
        return admission.skipped.sum();
    }

    /** How long the webhook itself took (parse, decide, answer) for the last few thousand reviews, in ms. */
    public List<Double> recentHandlingMillis() {
        return admission.recentHandlingMillis();
    }

    /** Full TLS handshakes since start: low when the API server keeps its connections. */
    public long handshakes() {
        return certificates.keyManager().handshakes.sum();
    }

    /** Admission reviews answered since start, whatever the answer. */
    public long reviews() {
        return admission.reviews();
    }

    /** Of those, the reviews of workloads' pods: all but the install checks' dry runs. */
    public long podReviews() {
        return admission.reviews() - admission.installChecks();
    }

    public long errors() {
        return admission.errors.sum();
    }

    /** Reviews shed since start: answered 429 unread because the webhook was at one of its global caps. */
    public long shed() {
        return load.shed();
    }

    /** Reviews being read, waiting for a worker or answered, now. */
    public int reviewsInFlight() {
        return load.inFlight();
    }

    /** Request-body bytes held now (announced or received), across all connections. */
    public long bufferedBytes() {
        return load.bufferedBytes();
    }

    @Override
    public void close() {
        if (vertx != null) {
            try {
                vertx.close()
                        .toCompletionStage()
                        .toCompletableFuture()
                        .orTimeout(10, TimeUnit.SECONDS)
                        .join();
            } catch (RuntimeException e) {
                // Shutting down (or giving up a failed start) goes on: the informers and timers below still stop.
                LOG.warn("the webhook's HTTPS server did not stop cleanly: {}", e.toString());
            }
        }
        namespaces.close();
        certificates.close();
        index.close();
    }
}
