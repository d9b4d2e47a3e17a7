package io.streamsmemory.operator.reconcile.decide;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.streamsmemory.engine.Allocation;
import io.streamsmemory.engine.ModelFingerprint;
import io.streamsmemory.engine.json.AllocationDocument;
import io.streamsmemory.engine.json.AllocationJson;
import io.streamsmemory.operator.workload.AllocationConfigMap;
import io.streamsmemory.operator.workload.MetadataKeys;
import io.streamsmemory.operator.workload.Workload;
import java.util.Objects;

/**
 * Tells a plan that changed only because the operator's model did (an upgrade with new constants or formulas) from one
 * whose facts changed. Only the former may wait: the applied plan was made for today's facts, so it still fits the
 * pod, and rolling every workload the moment the operator is upgraded is a restart nobody asked for.
 */
public final class ModelUpgrade {
    private ModelUpgrade() {}

    /**
     * The applied allocation when {@code planned} differs from it only by the model and needs a restart; null when
     * the change is anything else (new facts, a hand edit under the current model, nothing to restart, pods that do
     * not run the published plan anyway), which goes through the usual publish and rollout.
     */
    static AllocationDocument onlyTheModelChanged(ConfigMap published, Workload workload, Allocation planned) {
        if (published == null
                || ModelFingerprint.current()
                        .equals(AllocationConfigMap.annotation(published, MetadataKeys.MODEL)
                                .orElse(null))) {
            return null;
        }
        AllocationDocument applied = AllocationConfigMap.document(published);
        if (applied == null
                || applied.inputs() == null
                || applied.restartHash() == null
                || applied.restartHash().equals(planned.restartHash())
                || !workload.appliedRestartHash()
                        .filter(applied.restartHash()::equals)
                        .isPresent()) {
            return null;
        }
        // The facts as the published document carries them: compared in the same (JSON) form.
        AllocationDocument plannedDocument = AllocationJson.read(AllocationJson.write(planned));
        return Objects.equals(applied.inputs(), plannedDocument.inputs())
                        && applied.memoryBytes() == plannedDocument.memoryBytes()
                ? applied
                : null;
    }
}
