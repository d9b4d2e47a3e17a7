package io.streamsmemory.operator.app;

import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a Lease, so two operator replicas can run and only one reconciles. In a cluster
 * the Lease lives in the operator's namespace (POD_NAMESPACE from the downward API); the identity is
 * the pod name.
 *
 * <p>A replica that loses the Lease exits so Kubernetes restarts it as a follower. It exits from a
 * thread of its own: java-operator-sdk's built-in exit runs inside the shutdown hook when the operator
 * is stopped, where {@code System.exit} blocks for ever and the process never ends.
 */
@Singleton
public class LeaseLeaderElection extends LeaderElectionConfiguration {
    public static final String LEASE_NAME = "streams-memory-operator";
    private static final Logger LOG = LoggerFactory.getLogger(LeaseLeaderElection.class);

    public LeaseLeaderElection() {
        super(
                LEASE_NAME,
                Optional.ofNullable(System.getenv("POD_NAMESPACE")).orElse("default"),
                LEASE_DURATION_DEFAULT_VALUE,
                RENEW_DEADLINE_DEFAULT_VALUE,
                RETRY_PERIOD_DEFAULT_VALUE,
                System.getenv("POD_NAME"),
                new LeaderCallbacks(() -> {}, LeaseLeaderElection::exitAsFollower, leader -> {}),
                false);
    }

    private static void exitAsFollower() {
        LOG.info(
                "stopped leading on Lease {}: exiting (to restart as a follower, unless already shutting down)",
                LEASE_NAME);
        Thread exit = new Thread(() -> System.exit(1), "exit-on-lost-lease");
        // During a normal shutdown this thread just waits; the shutdown goes on without it.
        exit.setDaemon(true);
        exit.start();
    }
}
