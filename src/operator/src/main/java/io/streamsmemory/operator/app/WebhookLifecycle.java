package io.streamsmemory.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamsmemory.operator.admission.AdmissionWebhook;
import io.streamsmemory.operator.admission.WebhookSettings;
import io.streamsmemory.operator.reconcile.EventRecorder;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Starts the pod admission webhook with the app (on every replica, leader or not) and stops it with the
 * app. Settings: {@code streamsmemory.webhook.*} in application.properties.
 */
@Singleton
public class WebhookLifecycle {
    @ConfigProperty(name = "streamsmemory.webhook.enabled", defaultValue = "true")
    boolean enabled;
    @ConfigProperty(name = "streamsmemory.webhook.port", defaultValue = "8443")
    int port;
    @ConfigProperty(name = "streamsmemory.webhook.threads", defaultValue = "4")
    int threads;
    @ConfigProperty(name = "streamsmemory.webhook.service-name", defaultValue = WebhookSettings.DEFAULT_SERVICE_NAME)
    String serviceName;
    @ConfigProperty(name = "streamsmemory.webhook.extra-sans")
    Optional<List<String>> extraSans;
    @ConfigProperty(name = "streamsmemory.webhook.configuration-name", defaultValue = WebhookSettings.DEFAULT_CONFIGURATION_NAME)
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
    @ConfigProperty(name = "streamsmemory.webhook.agent.image", defaultValue = "ghcr.io/streams-memory/streams-memory-agent:0.1.0")
    String agentImage;
    @ConfigProperty(name = "streamsmemory.webhook.agent.jar-path", defaultValue = "/streams-memory/streams-memory-agent.jar")
    String agentJarPath;
    @ConfigProperty(name = "streamsmemory.webhook.agent.mount-path", defaultValue = "/streams-memory-agent")
    String agentMountPath;
    @ConfigProperty(name = "streamsmemory.webhook.allocation.mount-path", defaultValue = "/etc/streams-memory")
    String allocationMountPath;
    @ConfigProperty(name = "streamsmemory.webhook.agent.volume-size-limit", defaultValue = "32Mi")
    String volumeSizeLimit;
    @ConfigProperty(name = "streamsmemory.webhook.agent.run-as-user", defaultValue = "65532")
    Optional<Long> runAsUser;
    @ConfigProperty(name = "streamsmemory.webhook.malloc-arena-max", defaultValue = "2")
    String mallocArenaMax;

    private AdmissionWebhook webhook;

    void start(@Observes StartupEvent startup, KubernetesClient client, EventRecorder events) {
        if (!enabled) {
            return;
        }
        WebhookSettings settings = new WebhookSettings()
                .port(port).threads(threads)
                .namespace(Optional.ofNullable(System.getenv("POD_NAMESPACE")).orElse("default"))
                .serviceName(serviceName).extraSans(extraSans.orElse(List.of()))
                .configurationName(configurationName).secretName(secretName)
                .certificateValidity(certificateValidity, certificateRenewBefore)
                .caValidity(caValidity, caRenewBefore)
                .refreshPeriod(refreshPeriod)
                .agentImage(agentImage).agentJarPath(agentJarPath).agentMountPath(agentMountPath)
                .allocationMountPath(allocationMountPath).volumeSizeLimit(volumeSizeLimit)
                .runAsUser(runAsUser.filter(uid -> uid >= 0).orElse(null))
                .mallocArenaMax(mallocArenaMax);
        if (certFile.isPresent() && keyFile.isPresent()) {
            settings.certificateFiles(Path.of(certFile.get()), Path.of(keyFile.get()));
        }
        webhook = AdmissionWebhook.start(client, events, settings);
    }

    void stop(@Observes ShutdownEvent shutdown) {
        if (webhook != null) {
            webhook.close();
        }
    }
}
