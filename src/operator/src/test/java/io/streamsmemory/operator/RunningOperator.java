package io.streamsmemory.operator;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.streamsmemory.operator.app.LeaseLeaderElection;
import io.streamsmemory.operator.observe.MemoryObserver;
import io.streamsmemory.operator.observe.ObserveSettings;
import io.streamsmemory.operator.reconcile.PolicyReconciler;
import io.streamsmemory.operator.reconcile.StatusSettings;
import io.streamsmemory.operator.reconcile.act.AllocationMetrics;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;
import io.streamsmemory.operator.reconcile.decide.WebhookServing;
import io.streamsmemory.operator.workload.EventRecorder;
import io.streamsmemory.operator.workload.WorkloadCache;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operator's reconciler on a plain java-operator-sdk {@link Operator}, as the Quarkus app runs it,
 * against whatever API server (and identity) the client points at.
 */
public final class RunningOperator implements AutoCloseable {
    final Operator operator;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** The workloads and ConfigMaps, one cache for the reconciler and the webhook as the operator keeps it. */
    private final WorkloadCache cache;

    private final EventRecorder events;
    private final MemoryObserver observer;
    private final AtomicInteger reconciles = new AtomicInteger();
    /** Times this instance stopped leading, with the short test election of {@link #startWithLeaderElection}. */
    private final AtomicInteger leadershipLost;

    private RunningOperator(
            KubernetesClient client,
            LeaderElectionConfiguration leaderElection,
            RolloutGate gate,
            ObserveSettings observe) {
        this(client, leaderElection, gate, observe, new AtomicInteger(), WebhookServing.NOT_HERE);
    }

    private RunningOperator(
            KubernetesClient client,
            LeaderElectionConfiguration leaderElection,
            RolloutGate gate,
            ObserveSettings observe,
            AtomicInteger leadershipLost,
            WebhookServing webhook) {
        this.leadershipLost = leadershipLost;
        observer = new MemoryObserver(client, observe);
        events = new EventRecorder(client);
        cache = new WorkloadCache(client);
        operator = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withCacheSyncTimeout(Duration.ofSeconds(30))
                    .withReconciliationTerminationTimeout(Duration.ofSeconds(2))
                    .withMetrics(new Metrics() {
                        @Override
                        public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
                            reconciles.incrementAndGet();
                        }
                    });
            if (leaderElection != null) {
                o.withLeaderElectionConfiguration(leaderElection);
            }
        });
        operator.register(new PolicyReconciler(
                client,
                events,
                new AllocationMetrics(registry),
                webhook,
                gate,
                observer,
                new StatusSettings(100),
                cache));
        operator.start();
    }

    static RunningOperator start(KubernetesClient client) {
        return start(client, new RolloutGate(Duration.ZERO));
    }

    /** With operator-initiated rollouts rate-limited by {@code gate}. */
    static RunningOperator start(KubernetesClient client, RolloutGate gate) {
        return new RunningOperator(client, null, gate, ObserveSettings.OFF);
    }

    /** With the webhook of this process serving or not, as {@code webhook} says. */
    static RunningOperator start(KubernetesClient client, WebhookServing webhook) {
        return new RunningOperator(
                client, null, new RolloutGate(Duration.ZERO), ObserveSettings.OFF, new AtomicInteger(), webhook);
    }

    /** Reading the pods' memory reports as {@code observe} says, rollouts at most once per {@code minInterval}. */
    public static RunningOperator start(KubernetesClient client, ObserveSettings observe, Duration minInterval) {
        return new RunningOperator(client, null, new RolloutGate(minInterval), observe);
    }

    /**
     * With a short leader election (4 s lease, renewed every 0.5 s within 3 s) that counts a lost leadership instead
     * of exiting: a client that may take the Lease but not renew it (RBAC without the verb fabric8 renews with) would
     * lead for 3 s and then lose it, which {@link #leadershipLost()} shows.
     */
    static RunningOperator startWithLeaderElection(KubernetesClient client, String namespace, String identity) {
        AtomicInteger lost = new AtomicInteger();
        return new RunningOperator(
                client,
                new LeaderElectionConfiguration(
                        LeaseLeaderElection.LEASE_NAME,
                        namespace,
                        Duration.ofSeconds(4),
                        Duration.ofSeconds(3),
                        Duration.ofMillis(500),
                        identity,
                        new LeaderCallbacks(() -> {}, lost::incrementAndGet, leader -> {}),
                        false),
                new RolloutGate(Duration.ZERO),
                ObserveSettings.OFF,
                lost,
                WebhookServing.NOT_HERE);
    }

    /**
     * Leading means renewing: waits past the renew deadline of the 3-argument {@code startWithLeaderElection} and
     * fails if leadership was lost meanwhile (fabric8 renews with PATCH, so RBAC without it loses the Lease).
     */
    void awaitKeepsLeading() {
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(8)).until(() -> leadershipLost.get() == 0);
    }

    /** With the leader election the operator runs with ({@code LeaseLeaderElection} or a test's subclass of it). */
    static RunningOperator startWithLeaderElection(
            KubernetesClient client, LeaderElectionConfiguration leaderElection) {
        return new RunningOperator(client, leaderElection, new RolloutGate(Duration.ZERO), ObserveSettings.OFF);
    }

    /** How many reconciles this instance has started (java-operator-sdk's own count, before the reconciler runs). */
    int reconciles() {
        return reconciles.get();
    }

    @Override
    public void close() {
        operator.stop();
        observer.close();
        events.close();
        cache.close();
    }
}
