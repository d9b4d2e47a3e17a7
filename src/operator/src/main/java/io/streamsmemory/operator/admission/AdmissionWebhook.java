package io.streamsmemory.operator.admission;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.operator.reconcile.EventRecorder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pod admission webhook: an HTTPS server on its own port ({@code POST /mutate-pods}) presenting the
 * certificate {@link CertificateManager} keeps current, answering from {@link WorkloadIndex}'s caches, only
 * for pods of namespaces that hold a policy ({@link PolicyNamespaceSelector}). Every operator replica serves
 * it (it does not need the leader Lease). Plain Java so the tests run it exactly as the Quarkus app does.
 */
public final class AdmissionWebhook implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionWebhook.class);

    static {
        // The JDK server leaves Nagle's algorithm on: with the API server's delayed ACKs every small response
        // would wait ~40 ms. Read once, when the server classes load, so it is set before the first server.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final WebhookSettings settings;
    private final WorkloadIndex index;
    private final CertificateManager certificates;
    private final PodAdmission admission;
    private final PolicyNamespaceSelector namespaces;
    private HttpsServer server;
    private ExecutorService executor;

    private AdmissionWebhook(KubernetesClient client, EventRecorder events, WebhookSettings settings, Clock clock) {
        this.settings = settings;
        this.index = new WorkloadIndex(client);
        this.certificates = new CertificateManager(client, settings, clock);
        this.admission = new PodAdmission(index, settings, events);
        this.namespaces = new PolicyNamespaceSelector(client, settings);
    }

    /** Fills the caches, gets a serving certificate, then listens. */
    public static AdmissionWebhook start(KubernetesClient client, EventRecorder events, WebhookSettings settings) {
        return start(client, events, settings, Clock.systemUTC());
    }

    static AdmissionWebhook start(KubernetesClient client, EventRecorder events, WebhookSettings settings, Clock clock) {
        AdmissionWebhook webhook = new AdmissionWebhook(client, events, settings, clock);
        try {
            webhook.startServing();
            return webhook;
        } catch (RuntimeException | IOException | GeneralSecurityException e) {
            webhook.close();
            throw new IllegalStateException("the admission webhook could not start on port " + settings.port + ": "
                    + e.getMessage(), e);
        }
    }

    private void startServing() throws IOException, GeneralSecurityException {
        index.start(Duration.ofSeconds(30));
        certificates.start();
        namespaces.start();
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(new KeyManager[] {certificates.keyManager()}, null, null);
        server = HttpsServer.create(new InetSocketAddress(settings.host, settings.port), 128);
        server.setHttpsConfigurator(new HttpsConfigurator(tls) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters parameters = tls.getDefaultSSLParameters();
                parameters.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
                params.setSSLParameters(parameters);
            }
        });
        AtomicInteger threads = new AtomicInteger();
        executor = Executors.newFixedThreadPool(Math.max(1, settings.threads), r -> {
            Thread thread = new Thread(r, "webhook-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext(WebhookSettings.PATH, this::handle);
        server.start();
        LOG.info("pod admission webhook listening on https://{}:{}{}", settings.host, port(), WebhookSettings.PATH);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            byte[] answer = admission.review(body);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        }
    }

    /** True when the caches the webhook answers from (workloads, ConfigMaps, LimitRanges) are filled. */
    boolean cachesSynced() {
        return index.synced();
    }

    /** The port actually bound (settings may say 0). */
    public int port() {
        return server.getAddress().getPort();
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
    public java.util.List<Double> recentHandlingMillis() {
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

    public long errors() {
        return admission.errors.sum();
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
        if (executor != null) {
            executor.shutdownNow();
        }
        namespaces.close();
        certificates.close();
        index.close();
    }
}
