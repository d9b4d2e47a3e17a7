package io.streamsmemory.operator.reconcile.decide;

import io.streamsmemory.operator.workload.WebhookReach;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Whether the admission webhook of this operator process serves, so pods created now would be injected. Every
 * rollout the operator starts waits for it ({@link RolloutWaits#mustWait}): rolling while the webhook is down
 * (the operator just restarted, its certificate not yet loaded) only recreates the pods without the agent.
 */
@FunctionalInterface
public interface WebhookServing {
    /** Not known here (the webhook runs elsewhere or is off): only the webhook configuration's presence is checked. */
    WebhookServing NOT_HERE = Optional::empty;

    /** Why the webhook does not serve; empty when it serves or runs in no other place this process knows of. */
    Optional<String> problem();

    /**
     * Whether the API server calls the webhook for pods of {@code namespace}, as the webhook's own install check last
     * saw it ({@link WebhookReach}); {@link WebhookReach#NOT_CHECKED} where no webhook runs in this process.
     */
    default WebhookReach reach(String namespace) {
        return WebhookReach.NOT_CHECKED;
    }

    /**
     * Who hears of a namespace whose install check verdict changed when it ran again on its own (the webhook's
     * lifecycle runs expired checks again); nothing where no webhook runs in this process.
     */
    default void onReachChanged(Consumer<String> namespaces) {}
}
