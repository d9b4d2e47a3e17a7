package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.WebhookReach;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's own install check, per namespace: does the API server call the webhook there? Readiness cannot
 * tell (its warm-up goes over 127.0.0.1); a firewall between the control plane and the nodes (a GKE private
 * cluster's, for port 8443) lets the operator say ready while every pod is admitted without the agent.
 *
 * <p>The check is a server-side dry-run create (nothing is stored) of a ConfigMap labelled
 * {@link MetadataKeys#INSTALL_CHECK}. The webhook configuration's entry {@value #ENTRY} sends that review, with the
 * same namespaceSelector as the pods' entries, to the webhook Service; whichever replica answers sets the annotation
 * to {@code answered by <pod>} ({@link InstallCheck}), and the dry run's answer carries it back. The entry fails
 * closed, so when the API server cannot call the webhook the dry run returns its own error, which says why. A result
 * is kept for the {@code refresh-period}, or {@link #RETRY} while there is no verdict or a bad one, so a policy's
 * workloads reconciled together cost one dry run.
 */
final class WebhookReachCheck {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookReachCheck.class);
    /** The name of the install check's entry in the MutatingWebhookConfiguration (deploy/webhook.yaml). */
    static final String ENTRY = "install-check.streamsmemory.io";
    /** How soon a check that did not reach the webhook runs again. */
    static final Duration RETRY = Duration.ofSeconds(10);

    private static final String WHAT_TO_CHECK = "check that the operator's pods are Ready, that the namespace is not"
            + " labelled streamsmemory.io/injection=disabled, and that the API server reaches the nodes on the webhook's"
            + " port (a private GKE cluster's firewall blocks 8443 until a rule allows it); docs/install.md, \"Is the"
            + " webhook reachable?\"";

    private final KubernetesClient client;
    private final WebhookSettings settings;
    private final Clock clock;
    private final ConcurrentMap<String, Checked> lastByNamespace = new ConcurrentHashMap<>();
    /** When this webhook began serving: until {@link WebhookSettings#reachGrace} after it, no answer is no verdict. */
    private volatile Instant servingSince;

    private record Checked(WebhookReach reach, Instant at) {}

    WebhookReachCheck(KubernetesClient client, WebhookSettings settings, Clock clock) {
        this.client = client;
        this.settings = settings;
        this.clock = clock;
    }

    /** Called once the webhook serves: the grace for the pod's readiness and its Service's endpoints starts. */
    void serving() {
        servingSince = clock.instant();
    }

    /** The last result for {@code namespace} while it is fresh, else a new check; never throws. */
    WebhookReach reach(String namespace) {
        if (servingSince == null) {
            return WebhookReach.checking("the admission webhook does not serve yet")
                    .checkAgainIn(RETRY);
        }
        return lastByNamespace
                .compute(namespace, (ns, last) -> fresh(last) ? last : checkedNow(ns))
                .reach();
    }

    /**
     * Checks again every namespace whose last result is no longer fresh; returns those whose verdict (its status and
     * reason, not the replica that answered) changed, so their policies are reconciled for it and for nothing else.
     */
    Set<String> refreshExpired() {
        Set<String> changed = new HashSet<>();
        for (String namespace : lastByNamespace.keySet()) {
            Checked before = lastByNamespace.get(namespace);
            if (before == null || fresh(before)) {
                continue;
            }
            Checked now = lastByNamespace.compute(namespace, (ns, last) -> fresh(last) ? last : checkedNow(ns));
            if (!now.reach().status().equals(before.reach().status())
                    || !Objects.equals(now.reach().reason(), before.reach().reason())) {
                changed.add(namespace);
            }
        }
        return changed;
    }

    private boolean fresh(Checked last) {
        return last != null
                && clock.instant().isBefore(last.at().plus(last.reach().checkAgainIn()));
    }

    /** Kept for the refresh period, or {@link #RETRY} while there is no verdict or a bad one. */
    private Checked checkedNow(String namespace) {
        WebhookReach reach = check(namespace);
        Duration keep = reach.unreachable() || reach.checking() ? RETRY : settings.refreshPeriod;
        return new Checked(reach.checkAgainIn(keep), clock.instant());
    }

    private WebhookReach check(String namespace) {
        // No time in the messages: the condition's lastTransitionTime says since when, and the status stays the same.
        try {
            ConfigMap answered = client.configMaps()
                    .inNamespace(namespace)
                    .resource(probe())
                    .dryRun()
                    .create();
            String answer = Optional.ofNullable(answered.getMetadata().getAnnotations())
                    .map(a -> a.get(MetadataKeys.INSTALL_CHECK))
                    .orElse("");
            if (answer.startsWith(InstallCheck.ANSWERED_BY)) {
                return WebhookReach.reached("the API server called the webhook for a dry-run object (" + answer + ")");
            }
            return unanswered(namespace, "the API server did not send a dry-run object to the webhook");
        } catch (KubernetesClientException e) {
            String said = e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage()
                    : e.getMessage();
            if (said != null && said.contains("failed calling webhook")) {
                return unanswered(namespace, "the API server could not call the webhook: " + said);
            }
            LOG.debug("the webhook check in namespace {} failed: {}", namespace, said);
            return WebhookReach.unknown("CheckFailed", "the dry run that checks the webhook failed: " + said);
        } catch (RuntimeException e) {
            return WebhookReach.unknown("CheckFailed", "the dry run that checks the webhook failed: " + e);
        }
    }

    /** Not answered: a verdict only once the webhook has had its grace and the configuration selects the namespace. */
    private WebhookReach unanswered(String namespace, String seen) {
        MutatingWebhookConfiguration configuration =
                settings.configuration(client).get();
        Optional<MutatingWebhook> entry = configuration == null
                ? Optional.empty()
                : configuration.getWebhooks().stream()
                        .filter(w -> ENTRY.equals(w.getName()))
                        .findFirst();
        if (entry.isEmpty()) {
            return WebhookReach.unknown(
                    "NoInstallCheckEntry",
                    "MutatingWebhookConfiguration " + settings.configurationName + " has no webhook " + ENTRY
                            + " (made by an older chart?), so the operator cannot check that the API server calls"
                            + " the webhook; upgrade the chart, or run make verify-install");
        }
        if (!PolicyNamespaceSelector.selects(entry.get(), namespace)) {
            return WebhookReach.checking("the webhook configuration does not select namespace " + namespace + " yet");
        }
        if (clock.instant().isBefore(servingSince.plus(settings.reachGrace))) {
            return WebhookReach.checking(
                    seen + "; the webhook began serving " + servingSince + ", its Service may not route yet");
        }
        LOG.warn("the API server does not call the webhook in namespace {}: {}", namespace, seen);
        return WebhookReach.unreached(seen + ". Pods created in this namespace now start without the agent, so the"
                + " operator rolls none; " + WHAT_TO_CHECK);
    }

    /** The dry-run object the check creates (a test awaits the webhook's answer to it the same way). */
    static ConfigMap probe() {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withGenerateName("streams-memory-install-check-")
                // Only the operator's own ConfigMaps may be written under its write policy (writepolicy.yaml).
                .withLabels(Map.of(
                        MetadataKeys.MANAGED_BY_LABEL, MetadataKeys.MANAGED_BY, MetadataKeys.INSTALL_CHECK, "asked"))
                .withAnnotations(Map.of(MetadataKeys.INSTALL_CHECK, "asked"))
                .endMetadata()
                .build();
    }
}
