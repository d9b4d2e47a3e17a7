package io.streamsmemory.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.MemorySize;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.operator.admission.AdmissionWebhook;
import io.streamsmemory.operator.admission.WebhookSettings;
import io.streamsmemory.operator.reconcile.decide.WebhookServing;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.WebhookReach;
import io.streamsmemory.operator.workload.WorkloadCache;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the pod admission webhook with the app (on every replica, leader or not) and stops it with the
 * app. Settings: {@code streamsmemory.webhook.*} in application.properties.
 *
 * <p>The webhook starts on a thread of its own and, when it cannot (its port taken, its Secret not
 * writable, the API server unreachable), is retried every {@code start-retry-period} while the reconciler
 * runs on: pods are then admitted uninjected ({@code failurePolicy: Ignore}) and reported as drift, which is
 * better than no reconciling at all. {@link WebhookReadiness} says why the webhook is down.
 */
@Singleton
public class WebhookLifecycle implements WebhookServing {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookLifecycle.class);

    @ConfigProperty(name = "streamsmemory.webhook.enabled", defaultValue = "true")
    boolean enabled;

    @ConfigProperty(name = "streamsmemory.webhook.port", defaultValue = "8443")
    int port;

    @ConfigProperty(name = "streamsmemory.webhook.threads", defaultValue = "8")
    int threads;

    @ConfigProperty(name = "streamsmemory.webhook.request-timeout", defaultValue = "PT10S")
    Duration requestTimeout;

    /** Unset: {@link WebhookSettings#DEFAULT_MAX_IN_FLIGHT}, where its reasons are. */
    @ConfigProperty(name = "streamsmemory.webhook.max-in-flight")
    Optional<Integer> maxInFlight = Optional.empty();

    /** A size such as {@code 16M} (MiB); unset: {@link WebhookSettings#DEFAULT_MAX_BUFFERED_BYTES}. */
    @ConfigProperty(name = "streamsmemory.webhook.max-buffered-bytes")
    Optional<MemorySize> maxBufferedBytes = Optional.empty();

    @ConfigProperty(name = "streamsmemory.webhook.start-retry-period", defaultValue = "PT10S")
    Duration startRetryPeriod;

    @ConfigProperty(name = "streamsmemory.webhook.service-name", defaultValue = WebhookSettings.DEFAULT_SERVICE_NAME)
    String serviceName;

    @ConfigProperty(name = "streamsmemory.webhook.extra-sans")
    Optional<List<String>> extraSans;

    @ConfigProperty(
            name = "streamsmemory.webhook.configuration-name",
            defaultValue = WebhookSettings.DEFAULT_CONFIGURATION_NAME)
    String configurationName;

    @ConfigProperty(name = "streamsmemory.webhook.secret-name", defaultValue = WebhookSettings.DEFAULT_SECRET_NAME)
    String secretName;

    @ConfigProperty(name = "streamsmemory.webhook.cert-file")
    Optional<String> certFile;

    @ConfigProperty(name = "streamsmemory.webhook.key-file")
    Optional<String> keyFile;

    @ConfigProperty(name = "streamsmemory.webhook.certificate-validity", defaultValue = "P90D")
    Duration certificateValidity;

    @ConfigProperty(name = "streamsmemory.webhook.certificate-renew-before", defaultValue = "P30D")
    Duration certificateRenewBefore;

    @ConfigProperty(name = "streamsmemory.webhook.ca-validity", defaultValue = "P1095D")
    Duration caValidity;

    @ConfigProperty(name = "streamsmemory.webhook.ca-renew-before", defaultValue = "P365D")
    Duration caRenewBefore;

    @ConfigProperty(name = "streamsmemory.webhook.refresh-period", defaultValue = "PT60S")
    Duration refreshPeriod;

    @ConfigProperty(name = "streamsmemory.webhook.agent.image", defaultValue = WebhookSettings.DEFAULT_AGENT_IMAGE)
    String agentImage;

    @ConfigProperty(
            name = "streamsmemory.webhook.agent.jar-path",
            defaultValue = "/streams-memory/streams-memory-agent.jar")
    String agentJarPath;

    @ConfigProperty(name = "streamsmemory.webhook.agent.mount-path", defaultValue = "/streams-memory-agent")
    String agentMountPath;

    @ConfigProperty(name = "streamsmemory.webhook.allocation.mount-path", defaultValue = "/etc/streams-memory")
    String allocationMountPath;

    @ConfigProperty(name = "streamsmemory.webhook.agent.volume-size-limit", defaultValue = "32Mi")
    String volumeSizeLimit;
    /** A negative value (-1) leaves runAsUser out of the init container, as OpenShift's restricted SCC wants. */
    @ConfigProperty(name = "streamsmemory.webhook.agent.run-as-user", defaultValue = "65532")
    Optional<Long> runAsUser;
    /** The init container's resources; {@value #NONE} leaves that request or limit out. */
    @ConfigProperty(name = "streamsmemory.webhook.agent.resources.requests.cpu", defaultValue = "10m")
    String cpuRequest;

    @ConfigProperty(name = "streamsmemory.webhook.agent.resources.limits.cpu", defaultValue = "100m")
    String cpuLimit;

    @ConfigProperty(name = "streamsmemory.webhook.agent.resources.requests.memory", defaultValue = "32Mi")
    String memoryRequest;

    @ConfigProperty(name = "streamsmemory.webhook.agent.resources.limits.memory", defaultValue = "32Mi")
    String memoryLimit;
    /** Secrets (in the pod's namespace) for pulling the agent image, added to the pod's imagePullSecrets. */
    @ConfigProperty(name = "streamsmemory.webhook.agent.image-pull-secrets")
    Optional<List<String>> imagePullSecrets;

    /**
     * glibc's arenas in the pod, unless the user set MALLOC_ARENA_MAX; {@value #NONE} leaves the variable out. Not
     * "empty": Quarkus reads an empty value as unset, which would give the default.
     */
    @ConfigProperty(name = "streamsmemory.webhook.malloc-arena-max", defaultValue = MemoryModel.MALLOC_ARENA_MAX)
    String mallocArenaMax;
    /** The agent's memory report port in the pod; "none" leaves the report off. */
    @ConfigProperty(name = "streamsmemory.webhook.agent.report-port", defaultValue = "9471")
    String reportPort;

    /** The value of a resource setting that leaves it out. */
    static final String NONE = "none";

    private volatile AdmissionWebhook webhook;
    /** Why the webhook is not serving; null once it serves (or when it is disabled). */
    private volatile String problem = "starting";

    private ScheduledExecutorService starter;
    private volatile Consumer<String> reachChanged = namespace -> {};

    void start(
            @Observes StartupEvent startup,
            KubernetesClient client,
            EventRecorder events,
            MeterRegistry registry,
            WorkloadCache cache) {
        if (!enabled) {
            problem = null;
            return;
        }
        WebhookSettings settings = settings();
        starter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "webhook-start");
            thread.setDaemon(true);
            return thread;
        });
        starter.execute(() -> tryStart(client, events, settings, registry, cache));
    }

    private void tryStart(
            KubernetesClient client,
            EventRecorder events,
            WebhookSettings settings,
            MeterRegistry registry,
            WorkloadCache cache) {
        try {
            webhook = AdmissionWebhook.start(client, events, settings, registry, cache);
            problem = null;
            // The install checks run again on this thread, and only a changed verdict reconciles a policy.
            long refresh = AdmissionWebhook.REACH_REFRESH.toMillis();
            starter.scheduleWithFixedDelay(this::refreshReach, refresh, refresh, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            problem = e.getMessage();
            LOG.error(
                    "{}; the reconciler keeps running, pods are admitted uninjected; retrying in {}",
                    problem,
                    startRetryPeriod,
                    e);
            starter.schedule(
                    () -> tryStart(client, events, settings, registry, cache),
                    startRetryPeriod.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    private void refreshReach() {
        try {
            webhook.refreshReach().forEach(reachChanged);
        } catch (RuntimeException e) {
            LOG.warn("the webhook's install checks could not run again: {}", e.toString());
        }
    }

    @Override
    public void onReachChanged(Consumer<String> namespaces) {
        this.reachChanged = namespaces;
    }

    /** Why the webhook does not serve; empty when it does or is disabled. */
    @Override
    public Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    /** The webhook's install check for {@code namespace}; {@link WebhookReach#NOT_CHECKED} when it is disabled. */
    @Override
    public WebhookReach reach(String namespace) {
        AdmissionWebhook serving = webhook;
        if (serving != null) {
            return serving.reach(namespace);
        }
        return enabled
                ? WebhookReach.checking("the admission webhook does not serve yet: " + problem)
                : WebhookReach.NOT_CHECKED;
    }

    /** The settings from application.properties (and their environment overrides). */
    WebhookSettings settings() {
        WebhookSettings settings = new WebhookSettings()
                .port(port)
                .threads(threads)
                .requestTimeout(requestTimeout)
                .maxInFlight(maxInFlight.orElse(WebhookSettings.DEFAULT_MAX_IN_FLIGHT))
                .maxBufferedBytes(maxBufferedBytes
                        .map(MemorySize::asLongValue)
                        .orElse(WebhookSettings.DEFAULT_MAX_BUFFERED_BYTES))
                .namespace(Optional.ofNullable(System.getenv("POD_NAMESPACE")).orElse("default"))
                .serviceName(serviceName)
                .extraSans(extraSans.orElse(List.of()))
                .configurationName(configurationName)
                .secretName(secretName)
                .certificateValidity(certificateValidity, certificateRenewBefore)
                .caValidity(caValidity, caRenewBefore)
                .refreshPeriod(refreshPeriod)
                .agentImage(agentImage)
                .agentJarPath(agentJarPath)
                .agentMountPath(agentMountPath)
                .allocationMountPath(allocationMountPath)
                .volumeSizeLimit(volumeSizeLimit)
                .runAsUser(runAsUser.filter(uid -> uid >= 0).orElse(null))
                .initResources(omitted(cpuRequest), omitted(cpuLimit), omitted(memoryRequest), omitted(memoryLimit))
                .imagePullSecrets(imagePullSecrets.orElse(List.of()))
                .mallocArenaMax(omitted(mallocArenaMax))
                .reportPort(reportPort == null || NONE.equals(reportPort) ? null : Integer.valueOf(reportPort));
        if (certFile.isPresent() && keyFile.isPresent()) {
            settings.certificateFiles(Path.of(certFile.get()), Path.of(keyFile.get()));
        }
        return settings;
    }

    private static String omitted(String value) {
        return value == null || value.isBlank() || NONE.equalsIgnoreCase(value.trim()) ? null : value;
    }

    void stop(@Observes ShutdownEvent shutdown) {
        if (starter != null) {
            starter.shutdownNow();
        }
        if (webhook != null) {
            webhook.close();
        }
    }
}
