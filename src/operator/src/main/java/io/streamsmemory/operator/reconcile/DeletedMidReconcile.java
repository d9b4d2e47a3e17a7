package io.streamsmemory.operator.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import java.net.HttpURLConnection;

/**
 * A policy deleted while it was reconciled fails the status patch with 404. Reported as an error, that failure makes
 * java-operator-sdk 5.2 forget the delete event when a workload event came in meanwhile (its retry marks a plain
 * event over the delete), so the workloads would never be told. Ended without an error, the delete event that waits
 * is reconciled next.
 *
 * <p>This leans on how the SDK's event processing treats an error and a retry, which is not its documented contract:
 * {@code DeletedMidReconcileTest} pins the SDK's version, so an upgrade is a decision (re-run
 * {@code PolicyReconcilerTest#deletingThePolicyLeavesWorkloadsRunningAndTellsThem} several times, then move the pin)
 * and never silent.
 */
final class DeletedMidReconcile {
    private DeletedMidReconcile() {}

    /** What {@code Reconciler#updateErrorStatus} answers to {@code e}. */
    static <P extends HasMetadata> ErrorStatusUpdateControl<P> errorStatus(Exception e) {
        if (isGone(e)) {
            return ErrorStatusUpdateControl.<P>noStatusUpdate().withNoRetry();
        }
        return ErrorStatusUpdateControl.defaultErrorProcessing();
    }

    static boolean isGone(Exception e) {
        return e instanceof KubernetesClientException failure && failure.getCode() == HttpURLConnection.HTTP_NOT_FOUND;
    }
}
