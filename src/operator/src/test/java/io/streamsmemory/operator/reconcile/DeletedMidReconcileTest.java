package io.streamsmemory.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.Utils;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import org.junit.jupiter.api.Test;

class DeletedMidReconcileTest {
    @Test
    void aPolicyGoneMidReconcileEndsItWithoutAnErrorAndEveryOtherFailureIsTheSdks() {
        ErrorStatusUpdateControl<StreamsMemoryPolicy> gone =
                DeletedMidReconcile.errorStatus(new KubernetesClientException("gone", 404, null));
        assertThat(gone.isNoRetry()).isTrue();
        assertThat(gone.isDefaultErrorProcessing()).isFalse();
        assertThat(gone.getResource()).isEmpty();

        ErrorStatusUpdateControl<StreamsMemoryPolicy> conflict =
                DeletedMidReconcile.errorStatus(new KubernetesClientException("conflict", 409, null));
        assertThat(conflict.isDefaultErrorProcessing()).isTrue();
        assertThat(DeletedMidReconcile.<StreamsMemoryPolicy>errorStatus(new IllegalStateException("x"))
                        .isDefaultErrorProcessing())
                .isTrue();
    }

    /**
     * The workaround answers java-operator-sdk 5.2's event processing (see {@link DeletedMidReconcile}): a new SDK
     * version is checked against it before this pin moves.
     */
    @Test
    void theSdkIsTheVersionTheWorkaroundWasMadeFor() {
        assertThat(Utils.VERSION.getSdkVersion())
                .as("java-operator-sdk changed: re-run PolicyReconcilerTest#deletingThePolicyLeavesWorkloadsRunning"
                        + "AndTellsThem several times, check DeletedMidReconcile still holds, then move this pin")
                .startsWith("5.2.");
    }
}
