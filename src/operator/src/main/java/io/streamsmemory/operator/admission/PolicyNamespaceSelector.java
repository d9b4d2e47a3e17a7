package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the webhook away from namespaces that hold no StreamsMemoryPolicy: every webhook of the operator's
 * MutatingWebhookConfiguration carries the namespaceSelector requirement
 * {@code kubernetes.io/metadata.name In [namespaces with a policy]}, which this class keeps in step with the
 * policies (on every policy added or deleted, and every refresh period in case someone re-applied the
 * shipped configuration). The API server then never calls the webhook for any other pod.
 *
 * <p>Why this and not a label on the users' namespaces: {@code kubernetes.io/metadata.name} is set by the
 * API server on every namespace, so the operator writes nothing it does not own (no namespace patch
 * permission) and needs only the patch on its own configuration it already has for the caBundle. With no
 * policy anywhere the list holds {@link #NO_NAMESPACE}, a value no namespace can be named ({@code In} needs
 * at least one value), so the shipped configuration matches nothing until the operator says otherwise.
 */
final class PolicyNamespaceSelector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyNamespaceSelector.class);
    static final String NAME_LABEL = "kubernetes.io/metadata.name";
    /** A valid label value that is no valid namespace name (namespaces are DNS labels: no dots). */
    static final String NO_NAMESPACE = "no-policy.streamsmemory.io";
    /** How long the webhook's start waits for the policies to be listed and the selector written. */
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final WebhookSettings settings;
    private volatile SharedIndexInformer<StreamsMemoryPolicy> policies;
    private ScheduledExecutorService syncer;

    PolicyNamespaceSelector(KubernetesClient client, WebhookSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    void start() {
        syncer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "webhook-namespace-selector");
            thread.setDaemon(true);
            return thread;
        });
        // Assigned before it starts: its first events run sync on another thread, which reads the field.
        SharedIndexInformer<StreamsMemoryPolicy> informer =
                client.resources(StreamsMemoryPolicy.class).inAnyNamespace().runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(StreamsMemoryPolicy policy) {
                syncer.execute(PolicyNamespaceSelector.this::syncSafely);
            }

            @Override
            public void onUpdate(StreamsMemoryPolicy before, StreamsMemoryPolicy after) {}

            @Override
            public void onDelete(StreamsMemoryPolicy policy, boolean finalStateUnknown) {
                syncer.execute(PolicyNamespaceSelector.this::syncSafely);
            }
        });
        policies = informer;
        // The first sync before the webhook reports serving: until then a new policy's namespace is not in the
        // selector, the API server does not call the webhook for its pods, and an operator rollout would be lost.
        try {
            informer.start().toCompletableFuture().get(SYNC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn(
                    "the policies of the webhook's namespaceSelector not listed within {}: {}",
                    SYNC_TIMEOUT,
                    e.toString());
        }
        long period = Math.max(100, settings.refreshPeriod.toMillis());
        try {
            syncer.submit(this::syncSafely).get(SYNC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("the webhook's namespaceSelector not updated within {}: {}", SYNC_TIMEOUT, e.toString());
        }
        syncer.scheduleWithFixedDelay(this::syncSafely, period, period, TimeUnit.MILLISECONDS);
    }

    /** The namespaces holding at least one policy, sorted; {@link #NO_NAMESPACE} alone when there is none. */
    List<String> namespaces() {
        TreeSet<String> namespaces = new TreeSet<>();
        policies.getStore().list().forEach(p -> namespaces.add(p.getMetadata().getNamespace()));
        return namespaces.isEmpty() ? List.of(NO_NAMESPACE) : List.copyOf(namespaces);
    }

    private void syncSafely() {
        try {
            sync();
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not update the namespaceSelector of MutatingWebhookConfiguration {} (will retry in {}): {}",
                    settings.configurationName,
                    settings.refreshPeriod,
                    e.toString());
        }
    }

    private void sync() {
        if (!policies.hasSynced()) {
            return;
        }
        List<String> wanted = namespaces();
        MutatingWebhookConfiguration configuration =
                settings.configuration(client).get();
        if (configuration == null || configuration.getWebhooks().stream().allMatch(w -> current(w, wanted))) {
            return;
        }
        settings.configuration(client).edit(c -> {
            c.getWebhooks().forEach(w -> restrict(w, wanted));
            return c;
        });
        LOG.info("webhook called for pods in namespaces {} only (those with a StreamsMemoryPolicy)", wanted);
    }

    private static boolean current(MutatingWebhook webhook, List<String> wanted) {
        LabelSelector selector = webhook.getNamespaceSelector();
        return selector != null
                && selector.getMatchExpressions() != null
                && selector.getMatchExpressions().stream()
                        .anyMatch(r -> isPolicyRequirement(r) && wanted.equals(r.getValues()));
    }

    /** Replaces (or adds) the {@code In} requirement on the namespace name; every other requirement stays. */
    private static void restrict(MutatingWebhook webhook, List<String> wanted) {
        LabelSelector selector =
                webhook.getNamespaceSelector() != null ? webhook.getNamespaceSelector() : new LabelSelector();
        List<LabelSelectorRequirement> requirements =
                new ArrayList<>(selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions());
        requirements.removeIf(PolicyNamespaceSelector::isPolicyRequirement);
        requirements.add(new LabelSelectorRequirement(NAME_LABEL, "In", new ArrayList<>(wanted)));
        selector.setMatchExpressions(requirements);
        webhook.setNamespaceSelector(selector);
    }

    /** Whether {@code webhook}'s namespaceSelector lists {@code namespace} among the namespaces holding a policy. */
    static boolean selects(MutatingWebhook webhook, String namespace) {
        LabelSelector selector = webhook.getNamespaceSelector();
        return selector != null
                && selector.getMatchExpressions() != null
                && selector.getMatchExpressions().stream()
                        .anyMatch(r -> isPolicyRequirement(r)
                                && r.getValues() != null
                                && r.getValues().contains(namespace));
    }

    private static boolean isPolicyRequirement(LabelSelectorRequirement requirement) {
        return NAME_LABEL.equals(requirement.getKey()) && "In".equals(requirement.getOperator());
    }

    @Override
    public void close() {
        if (syncer != null) {
            syncer.shutdownNow();
        }
        if (policies != null) {
            policies.close();
        }
    }
}
