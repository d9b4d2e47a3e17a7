package io.streamsmemory.operator.workload;

import java.time.Duration;

/**
 * Whether the API server itself calls the pod webhook for a namespace, as the operator last checked it with a dry run
 * (the webhook's readiness cannot tell: its warm-up goes over 127.0.0.1). A {@code status} of {@code "False"} means
 * pods created there now are admitted without the agent, so the operator starts no rollout there.
 *
 * @param status {@code True}, {@code False} or {@code Unknown}, as the policy's {@code WebhookReachable} condition
 * @param reason the condition's reason
 * @param message what was seen, and for {@code False} what to check
 * @param checkAgainIn when the check runs again (the condition is worth refreshing then); null when it does not
 */
public record WebhookReach(String status, String reason, String message, Duration checkAgainIn) {
    private static final String CHECKING = "Checking";

    /** Where no webhook runs in this process (tests of the reconciler alone, the webhook disabled). */
    public static final WebhookReach NOT_CHECKED = new WebhookReach(
            "Unknown",
            "NotChecked",
            "the admission webhook does not run in this operator process, so it was not checked",
            null);

    public static WebhookReach reached(String message) {
        return new WebhookReach("True", "ApiServerCalledWebhook", message, null);
    }

    public static WebhookReach unreached(String message) {
        return new WebhookReach("False", "ApiServerCannotReachWebhook", message, null);
    }

    /** No verdict yet: the webhook has just begun serving, or the configuration does not select the namespace yet. */
    public static WebhookReach checking(String message) {
        return new WebhookReach("Unknown", CHECKING, message, null);
    }

    public static WebhookReach unknown(String reason, String message) {
        return new WebhookReach("Unknown", reason, message, null);
    }

    /** This result, to be checked again in {@code period}. */
    public WebhookReach checkAgainIn(Duration period) {
        return new WebhookReach(status, reason, message, period);
    }

    /** True when the check proved the API server does not call the webhook: a rollout would only lose the agent. */
    public boolean unreachable() {
        return "False".equals(status);
    }

    /** True while the check waits for its first verdict ({@link #checking}). */
    public boolean checking() {
        return CHECKING.equals(reason);
    }
}
