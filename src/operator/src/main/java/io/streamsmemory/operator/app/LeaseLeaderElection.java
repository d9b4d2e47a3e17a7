package io.streamsmemory.operator.app;

import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import jakarta.inject.Singleton;
import java.util.Optional;

/**
 * Leader election on a Lease, so two operator replicas can run and only one reconciles. In a cluster
 * the Lease lives in the operator's namespace (POD_NAMESPACE from the downward API); the identity is
 * the pod name.
 */
@Singleton
public class LeaseLeaderElection extends LeaderElectionConfiguration {
    public static final String LEASE_NAME = "streams-memory-operator";

    public LeaseLeaderElection() {
        super(LEASE_NAME, Optional.ofNullable(System.getenv("POD_NAMESPACE")).orElse("default"),
                System.getenv("POD_NAME"));
    }
}
