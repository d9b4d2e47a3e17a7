package io.streamsmemory.operator.realnode;

import io.streamsmemory.controlplane.LocalControlPlane;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether a test class that needs a real node may run. A machine that cannot run one (not root, no overlayfs, no runc:
 * the control plane's log says which) skips those tests with the reason; CI sets STREAMS_MEMORY_REQUIRE_REAL_NODE=1,
 * so there a missing real node fails them instead of passing unseen.
 */
final class RealNodeRequirement {
    static final String REQUIRE = "STREAMS_MEMORY_REQUIRE_REAL_NODE";

    private RealNodeRequirement() {}

    static void check(LocalControlPlane controlPlane) {
        if (controlPlane.hasRealNode()) {
            return;
        }
        String why = "no real node in this control plane (kwok's fake node instead; its start-up log says why)";
        if ("1".equals(System.getenv(REQUIRE))) {
            throw new IllegalStateException(why + " and " + REQUIRE + "=1");
        }
        Assumptions.abort(why);
    }
}
