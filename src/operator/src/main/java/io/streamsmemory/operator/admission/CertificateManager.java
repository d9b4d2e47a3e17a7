package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook's serving certificate, managed by the operator itself.
 *
 * <p>A CA and a serving certificate it signed live in one Secret in the operator's namespace, so every
 * replica serves the same certificate; the CA bundle (the current CA plus an older one still valid) is
 * written into the MutatingWebhookConfiguration's {@code caBundle}. Every {@code refreshPeriod} each
 * replica re-reads the Secret, renews what is about to expire (serving certificate {@code renewBefore}
 * its end, CA likewise), writes it back with optimistic concurrency (the replica that loses re-reads),
 * installs it into the TLS server without a restart, and puts the bundle back if someone removed it.
 * A new CA goes into the bundle first; the serving certificate is re-issued from it only once the API
 * server's configuration holds the new CA, so no handshake fails during a CA rotation.
 *
 * <p>With {@code certFile}/{@code keyFile} set (cert-manager), the certificate is read from those files
 * and reloaded when they change; the caBundle is then cert-manager's CA injector's job.
 */
public final class CertificateManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CertificateManager.class);
    static final String CA_CERT = "ca.crt";
    static final String CA_KEY = "ca.key";
    static final String PREVIOUS_CA = "previous-ca.crt";
    static final String TLS_CERT = "tls.crt";
    static final String TLS_KEY = "tls.key";

    private final KubernetesClient client;
    private final WebhookSettings settings;
    private final Clock clock;
    private final RotatingKeyManager keyManager = new RotatingKeyManager();
    private ScheduledExecutorService scheduler;
    private volatile String caBundlePem;
    private volatile FileTime loadedFileTime;
    private boolean warnedNoConfiguration;

    /** What the Secret holds. */
    record State(Certificates.Issued ca, List<X509Certificate> previousCas, Certificates.Issued serving) {
        String bundlePem() {
            StringBuilder bundle = new StringBuilder(ca.certPem());
            previousCas.forEach(c -> bundle.append(Certificates.pem(c)));
            return bundle.toString();
        }
    }

    public CertificateManager(KubernetesClient client, WebhookSettings settings, Clock clock) {
        this.client = client;
        this.settings = settings;
        this.clock = clock;
    }

    RotatingKeyManager keyManager() {
        return keyManager;
    }

    /** The serving certificate presented now. */
    public X509Certificate servingCertificate() {
        return keyManager.certificate();
    }

    /** The CA bundle (PEM) the webhook configuration should trust; null with certificates from files. */
    public String caBundlePem() {
        return caBundlePem;
    }

    /** Gets a certificate before the server starts, then keeps it current. */
    public void start() {
        syncSafely();
        if (keyManager.certificate() == null) {
            throw new IllegalStateException("the webhook has no serving certificate (see the log above)");
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "webhook-certificates");
            thread.setDaemon(true);
            return thread;
        });
        long period = Math.max(100, settings.refreshPeriod.toMillis());
        scheduler.scheduleWithFixedDelay(this::syncSafely, period, period, TimeUnit.MILLISECONDS);
    }

    void syncSafely() {
        try {
            if (settings.certificateFromFiles()) {
                loadFiles();
            } else {
                sync();
            }
        } catch (RuntimeException e) {
            LOG.warn("webhook certificate refresh failed (will retry in {}): {}", settings.refreshPeriod, e.toString());
        }
    }

    private void loadFiles() {
        try {
            FileTime modified = Files.getLastModifiedTime(settings.certFile);
            FileTime keyModified = Files.getLastModifiedTime(settings.keyFile);
            FileTime newest = modified.compareTo(keyModified) >= 0 ? modified : keyModified;
            if (newest.equals(loadedFileTime)) {
                return;
            }
            List<X509Certificate> certs = Certificates.parseCertificates(Files.readString(settings.certFile));
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(settings.certFile + " holds no certificate");
            }
            keyManager.install(Certificates.parsePrivateKey(Files.readString(settings.keyFile)), certs.get(0));
            loadedFileTime = newest;
            LOG.info(
                    "webhook serving certificate loaded from {} (valid until {})",
                    settings.certFile,
                    certs.get(0).getNotAfter().toInstant());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the webhook certificate files: " + e.getMessage(), e);
        }
    }

    /** One round: read, renew what is due, write back, install, and put the bundle into the webhook configuration. */
    synchronized void sync() {
        Secret secret = readSecret();
        State stored = parse(secret);
        Instant now = clock.instant();
        MutatingWebhookConfiguration configuration = readConfiguration();
        State desired = renew(stored, now, configuration);
        if (!desired.equals(stored)) {
            if (!writeSecret(secret, desired)) {
                // Another replica renewed at the same time: take what it wrote.
                stored = parse(readSecret());
                desired = stored != null ? stored : desired;
            }
        }
        caBundlePem = desired.bundlePem();
        // The bundle first, then the certificate it must verify.
        if (configuration != null) {
            patchCaBundle(configuration, caBundlePem);
        }
        X509Certificate presented = keyManager.certificate();
        if (presented == null || !presented.equals(desired.serving().cert())) {
            keyManager.install(desired.serving().key(), desired.serving().cert());
            LOG.info(
                    "webhook serving certificate installed: serial {}, valid until {}, names {}",
                    desired.serving().cert().getSerialNumber().toString(16),
                    desired.serving().notAfter(),
                    Certificates.subjectAltNames(desired.serving().cert()));
        }
    }

    /** What the Secret should hold now; equal to {@code stored} when nothing is due. */
    State renew(State stored, Instant now, MutatingWebhookConfiguration configuration) {
        Certificates.Issued ca = stored == null ? null : stored.ca();
        List<X509Certificate> previous = stored == null
                ? new ArrayList<>()
                : stored.previousCas().stream()
                        .filter(c -> c.getNotAfter().toInstant().isAfter(now))
                        .collect(Collectors.toCollection(ArrayList::new));
        boolean changed =
                stored == null || previous.size() != stored.previousCas().size();
        if (ca == null || dueWithin(ca.cert(), now, settings.caRenewBefore)) {
            if (ca != null && ca.notAfter().isAfter(now)) {
                previous.add(0, ca.cert());
            }
            ca = Certificates.newCa("streams-memory-operator-webhook-ca", now, settings.caValidity);
            LOG.info("webhook CA {}: valid until {}", stored == null ? "created" : "renewed", ca.notAfter());
            changed = true;
        }
        Certificates.Issued serving = stored == null ? null : stored.serving();
        Set<String> wantedNames = Set.copyOf(new TreeSet<>(settings.subjectAltNames()));
        boolean reissue = serving == null
                || dueWithin(serving.cert(), now, settings.certificateRenewBefore)
                || !Certificates.subjectAltNames(serving.cert()).equals(wantedNames);
        if (!reissue && !Certificates.signedBy(serving.cert(), ca.cert())) {
            // Signed by the previous CA: move to the new one once the API server trusts it.
            reissue = configuration == null || trusted(configuration, ca.cert());
        }
        if (reissue) {
            serving = Certificates.issueServer(
                    ca, settings.serviceName, settings.subjectAltNames(), now, settings.certificateValidity);
            changed = true;
        }
        return changed ? new State(ca, List.copyOf(previous), serving) : stored;
    }

    private static boolean dueWithin(X509Certificate cert, Instant now, Duration renewBefore) {
        return !cert.getNotAfter().toInstant().minus(renewBefore).isAfter(now);
    }

    private boolean trusted(MutatingWebhookConfiguration configuration, X509Certificate ca) {
        return configuration.getWebhooks().stream()
                .allMatch(w -> w.getClientConfig() != null
                        && w.getClientConfig().getCaBundle() != null
                        && Certificates.parseCertificates(new String(
                                        Base64.getDecoder()
                                                .decode(w.getClientConfig().getCaBundle()),
                                        StandardCharsets.UTF_8))
                                .contains(ca));
    }

    private Secret readSecret() {
        return client.secrets()
                .inNamespace(settings.namespace)
                .withName(settings.secretName)
                .get();
    }

    State parse(Secret secret) {
        if (secret == null || secret.getData() == null) {
            return null;
        }
        try {
            Map<String, String> data = secret.getData();
            if (!data.keySet().containsAll(List.of(CA_CERT, CA_KEY, TLS_CERT, TLS_KEY))) {
                return null;
            }
            Certificates.Issued ca = new Certificates.Issued(
                    Certificates.parseCertificates(decode(data.get(CA_CERT))).get(0),
                    Certificates.parsePrivateKey(decode(data.get(CA_KEY))));
            Certificates.Issued serving = new Certificates.Issued(
                    Certificates.parseCertificates(decode(data.get(TLS_CERT))).get(0),
                    Certificates.parsePrivateKey(decode(data.get(TLS_KEY))));
            List<X509Certificate> previous = Certificates.parseCertificates(decode(data.getOrDefault(PREVIOUS_CA, "")));
            return new State(ca, previous, serving);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Secret {}/{} does not hold a usable webhook certificate ({}); replacing it",
                    settings.namespace,
                    settings.secretName,
                    e.getMessage());
            return null;
        }
    }

    /** The Secret's data (base64, as Secret.data holds it) for {@code state}. */
    static Map<String, String> secretData(State state) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(CA_CERT, encode(state.ca().certPem()));
        data.put(CA_KEY, encode(state.ca().keyPem()));
        data.put(
                PREVIOUS_CA,
                encode(state.previousCas().stream().map(Certificates::pem).collect(Collectors.joining())));
        data.put(TLS_CERT, encode(state.serving().certPem()));
        data.put(TLS_KEY, encode(state.serving().keyPem()));
        return data;
    }

    /** Creates or updates the Secret; false when another replica changed it first. */
    private boolean writeSecret(Secret current, State state) {
        Map<String, String> data = secretData(state);
        try {
            if (current == null) {
                client.secrets()
                        .inNamespace(settings.namespace)
                        .resource(new SecretBuilder()
                                .withNewMetadata()
                                .withName(settings.secretName)
                                .withNamespace(settings.namespace)
                                .addToLabels("app.kubernetes.io/name", "streams-memory-operator")
                                .endMetadata()
                                .withType("Opaque")
                                .withData(data)
                                .build())
                        .create();
            } else {
                Secret updated = new SecretBuilder(current).withData(data).build();
                // update() sends the resourceVersion read above: a concurrent writer makes this a 409.
                client.secrets()
                        .inNamespace(settings.namespace)
                        .resource(updated)
                        .update();
            }
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                return false;
            }
            throw e;
        }
    }

    private MutatingWebhookConfiguration readConfiguration() {
        MutatingWebhookConfiguration configuration =
                settings.configuration(client).get();
        if (configuration == null && !warnedNoConfiguration) {
            warnedNoConfiguration = true;
            LOG.warn(
                    "MutatingWebhookConfiguration {} not found: pods are not injected until it is installed "
                            + "(kubectl apply -k deploy/); its caBundle will be set as soon as it is",
                    settings.configurationName);
        } else if (configuration != null) {
            warnedNoConfiguration = false;
        }
        return configuration;
    }

    private void patchCaBundle(MutatingWebhookConfiguration configuration, String bundlePem) {
        String wanted = encode(bundlePem);
        boolean stale = configuration.getWebhooks().stream()
                .anyMatch(w -> w.getClientConfig() == null
                        || !wanted.equals(w.getClientConfig().getCaBundle()));
        if (!stale) {
            return;
        }
        settings.configuration(client).edit(c -> {
            for (MutatingWebhook webhook : c.getWebhooks()) {
                if (webhook.getClientConfig() != null) {
                    webhook.getClientConfig().setCaBundle(wanted);
                }
            }
            return c;
        });
        LOG.info(
                "caBundle of MutatingWebhookConfiguration {} set ({} CA certificate(s))",
                settings.configurationName,
                Certificates.parseCertificates(bundlePem).size());
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    private static String encode(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "CertificateManager[" + settings.namespace + "/" + settings.secretName + "]";
    }
}
