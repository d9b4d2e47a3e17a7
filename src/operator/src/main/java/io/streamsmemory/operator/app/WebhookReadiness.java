package io.streamsmemory.operator.app;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of the pod webhook, next to java-operator-sdk's own check of the reconciler: a replica whose
 * webhook is down leaves the webhook Service's endpoints (the API server then calls a replica that serves),
 * and {@code /q/health/ready} names the part that is down and why.
 */
@Readiness
@ApplicationScoped
public class WebhookReadiness implements HealthCheck {
    static final String NAME = "streams-memory-webhook";

    @Inject
    WebhookLifecycle lifecycle;

    @Override
    public HealthCheckResponse call() {
        return lifecycle
                .problem()
                .map(problem -> HealthCheckResponse.named(NAME)
                        .down()
                        .withData("problem", problem)
                        .build())
                .orElseGet(() -> HealthCheckResponse.named(NAME).up().build());
    }
}
