package io.streamsmemory.operator;

import static io.streamsmemory.operator.Fixtures.WAIT;
import static io.streamsmemory.operator.Fixtures.configMap;
import static io.streamsmemory.operator.Fixtures.deployment;
import static io.streamsmemory.operator.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.app.LeaseLeaderElection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two operator instances with the operator's own {@link LeaseLeaderElection} (its Lease name, timings and no
 * release on stop): while the leader lives the follower neither reconciles nor writes anything; when the leader stops,
 * the follower takes the Lease once it expires and reconciles.
 */
@EnableLocalControlPlane
class LeaderElectionTest {
    KubernetesClient client;

    @Test
    void onlyTheLeaderReconcilesAndTheFollowerTakesOver() throws Exception {
        Fixtures.installCrd(client);
        String lockNamespace = "operators";
        Fixtures.namespace(client, lockNamespace);
        String ns = "apps";
        Fixtures.namespace(client, ns);

        InProcessLeaseLeaderElection firstElection = new InProcessLeaseLeaderElection(lockNamespace, "first");
        RunningOperator first = RunningOperator.startWithLeaderElection(client, firstElection);
        await().atMost(WAIT).until(() -> holder(lockNamespace) != null);
        WriteLog followerWrites = new WriteLog();
        try (KubernetesClient followerClient = new KubernetesClientBuilder()
                .withConfig(client.getConfiguration())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("write-log", followerWrites))
                .build()) {
            RunningOperator second = RunningOperator.startWithLeaderElection(
                    followerClient, new InProcessLeaseLeaderElection(lockNamespace, "second"));
            try {
                assertThat(holder(lockNamespace)).isEqualTo("first");
                client.resource(policy(ns, "orders", "2Gi")).create();
                client.resource(deployment(ns, "one", "orders", 3, "2Gi")).create();
                await().atMost(WAIT).until(() -> configMap(client, ns, "one") != null);
                await().atMost(WAIT).until(() -> {
                    var status = client.resources(StreamsMemoryPolicy.class)
                            .inNamespace(ns)
                            .withName("orders")
                            .get()
                            .getStatus();
                    return status != null
                            && status.getWorkloads() != null
                            && !status.getWorkloads().isEmpty();
                });

                // The follower stays idle for as long as the leader holds the Lease.
                await().during(Duration.ofSeconds(3))
                        .atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> {
                            assertThat(second.reconciles())
                                    .as("the follower's reconciles")
                                    .isZero();
                            assertThat(followerWrites.writes())
                                    .as("the follower's writes other than the Lease")
                                    .isEmpty();
                        });
                assertThat(first.reconciles()).isPositive();

                // Stopped, the leader does not release the Lease: the follower takes it once it expires.
                first.close();
                await().atMost(WAIT).until(() -> firstElection.stoppedLeading.get() == 1);
                await().atMost(LeaseLeaderElection.LEASE_DURATION_DEFAULT_VALUE.plus(WAIT))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> "second".equals(holder(lockNamespace)));
                client.resource(deployment(ns, "two", "orders", 3, "2Gi")).create();
                await().atMost(WAIT).until(() -> configMap(client, ns, "two") != null);
                assertThat(second.reconciles()).isPositive();
                assertThat(followerWrites.writes()).anyMatch(w -> w.contains("/configmaps"));
            } finally {
                second.close();
            }
        }
    }

    private String holder(String namespace) {
        var lease = client.leases()
                .inNamespace(namespace)
                .withName(LeaseLeaderElection.LEASE_NAME)
                .get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }

    /**
     * The operator's leader election, given here what a pod's environment gives it (the namespace from POD_NAMESPACE,
     * the identity from POD_NAME). Losing the Lease is counted instead of exiting: in a pod the replica exits to
     * restart as a follower; here that would end the test JVM.
     */
    static final class InProcessLeaseLeaderElection extends LeaseLeaderElection {
        final AtomicInteger stoppedLeading = new AtomicInteger();
        private final String namespace;
        private final String identity;

        InProcessLeaseLeaderElection(String namespace, String identity) {
            this.namespace = namespace;
            this.identity = identity;
        }

        @Override
        public Optional<String> getLeaseNamespace() {
            return Optional.of(namespace);
        }

        @Override
        public Optional<String> getIdentity() {
            return Optional.of(identity);
        }

        @Override
        public Optional<LeaderCallbacks> getLeaderCallbacks() {
            return Optional.of(new LeaderCallbacks(() -> {}, stoppedLeading::incrementAndGet, leader -> {}));
        }
    }

    /**
     * Every request of one client that changes something (not a GET), except on the Lease it competes for and the
     * SelfSubjectRulesReview java-operator-sdk posts at start to check it may use Leases (a question, stored nowhere).
     */
    static final class WriteLog implements Interceptor {
        private final List<String> writes = new CopyOnWriteArrayList<>();

        @Override
        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            String path = request.uri().getPath();
            if (!"GET".equals(request.method())
                    && !path.contains("/leases")
                    && !path.endsWith("/selfsubjectrulesreviews")) {
                writes.add(request.method() + " " + path);
            }
        }

        List<String> writes() {
            return List.copyOf(writes);
        }
    }
}
