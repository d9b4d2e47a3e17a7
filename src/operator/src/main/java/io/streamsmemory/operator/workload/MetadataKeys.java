package io.streamsmemory.operator.workload;

import io.streamsmemory.operator.reconcile.decide.PodDrift;
import io.streamsmemory.operator.reconcile.decide.RolloutGate;

/**
 * Every annotation, label and data key the operator and its users write on Kubernetes objects, and the operator's
 * own object names and field manager: one table, because several keys go on more than one kind of object (the
 * policy's name on a workload and on its ConfigMap, the allocation hash on a ConfigMap and on the pods injected
 * from it).
 */
public final class MetadataKeys {
    /** On a Deployment or StatefulSet: the StreamsMemoryPolicy (same namespace) that sizes it. */
    public static final String POLICY = "streamsmemory.io/policy";
    /** On a workload: num.stream.threads of its pods, overriding the policy's. */
    public static final String STREAM_THREADS = "streamsmemory.io/stream-threads";
    /** On a workload: the container running Kafka Streams (default: the first). */
    public static final String CONTAINER = "streamsmemory.io/container";
    /** On a pod template: the restart hash of the allocation its pods must run with. Changing it rolls the pods. */
    public static final String RESTART_HASH = "streamsmemory.io/restart-hash";

    /**
     * Labels on published ConfigMaps, so the operator finds its own. Policy and workload names longer than a label
     * value may be are hashed there ({@link KubernetesNames#labelValue}); the annotations {@link #POLICY} and
     * {@link #WORKLOAD} on the ConfigMap carry them whole.
     */
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

    public static final String MANAGED_BY = "streams-memory-operator";
    public static final String POLICY_LABEL = "streamsmemory.io/policy";
    public static final String WORKLOAD_KIND_LABEL = "streamsmemory.io/workload-kind";
    public static final String WORKLOAD_NAME_LABEL = "streamsmemory.io/workload-name";
    /** ConfigMap annotation: the name of the workload it was published for, whole. */
    public static final String WORKLOAD = "streamsmemory.io/workload";

    /** ConfigMap key holding the allocation document the agent reads. */
    public static final String ALLOCATION_KEY = "allocation.json";
    /** ConfigMap annotations: hashes of what it holds and the facts it was computed from. */
    public static final String ALLOCATION_HASH = "streamsmemory.io/allocation-hash";

    public static final String FACTS = "streamsmemory.io/facts";
    /**
     * ConfigMap annotation: the topology facts the plan learned from the pods' reports ("threads=2,partitions=8"),
     * the floor of the next plan's, so a restarted operator re-plans what it published.
     */
    public static final String LEARNED = "streamsmemory.io/learned-facts";
    /**
     * ConfigMap annotation: where the split tuning of the workload stands (the tuned fractions, the step being judged),
     * so a restarted operator goes on where it was; absent while the split is the model's.
     */
    public static final String SPLIT_TUNING = "streamsmemory.io/split-tuning";
    /** On the allocation ConfigMap: the fingerprint of the model that planned it (ModelFingerprint). */
    public static final String MODEL = "streamsmemory.io/model";
    /**
     * ConfigMap annotation: the container the webhook injects, chosen by the operator from the workload's pod
     * template (the {@link #CONTAINER} annotation, else the template's first container), never from the pod.
     */
    public static final String TARGET_CONTAINER = "streamsmemory.io/target-container";
    /** ConfigMap annotation: SHA-256 of the target container and the data, so the webhook sees hand edits. */
    public static final String DATA_HASH = "streamsmemory.io/data-hash";

    /**
     * On a pod template: the restart hash for which the operator already rolled the workload once because
     * its pods ran without the agent (drift). It rolls at most once per allocation, never in a loop.
     */
    public static final String DRIFT_ROLLOUT = "streamsmemory.io/drift-rollout";

    /**
     * On a workload's own metadata (not its template, so writing it rolls nothing): when the operator last rolled it,
     * for {@link RolloutGate}'s rate limit.
     */
    public static final String LAST_ROLLOUT = "streamsmemory.io/last-rollout";

    /**
     * On a workload's own metadata: the restart hash its pods already ran when it opted in (the admission webhook
     * injected them with its first allocation), recorded instead of stamping {@link #RESTART_HASH} on the template,
     * which would have rolled pods that needed nothing. A stamp on the template, made by any later rollout, wins.
     */
    public static final String ADMITTED_RESTART_HASH = "streamsmemory.io/admitted-restart-hash";

    /**
     * On a pod, written by the admission webhook: the restart hash of the allocation it applied (the allocation
     * hash is in {@link #ALLOCATION_HASH}); {@link PodDrift} counts a pod whose value differs from the current
     * allocation's restart hash as outdated.
     */
    public static final String APPLIED_RESTART_HASH = "streamsmemory.io/applied-restart-hash";
    /**
     * Label on a pod the webhook injected, so the operator finds the pods whose memory report it reads with one
     * list (a new key: no selector of the user's can start or stop matching because of it).
     */
    public static final String INJECTED_LABEL = "streamsmemory.io/injected";
    /** On a pod: the container the webhook injected. */
    public static final String INJECTED_CONTAINER = "streamsmemory.io/injected-container";
    /** On a pod: why the webhook saw the pod of an opted-in workload and left it as it was. */
    public static final String INJECTION_SKIPPED = "streamsmemory.io/injection-skipped";
    /**
     * On a pod ({@code make verify-install}) or a ConfigMap (the operator's own check, which also labels it so the
     * webhook configuration's install-check entry selects it) sent as a dry run: the webhook answers by setting this
     * annotation to {@code answered by <operator pod>}, which proves the API server reached it.
     */
    public static final String INSTALL_CHECK = "streamsmemory.io/install-check";

    /** The MutatingWebhookConfiguration of the pod webhook (deploy/webhook.yaml). */
    public static final String WEBHOOK_CONFIGURATION = "streams-memory-operator";

    /** The field manager of every server-side apply the operator makes. */
    public static final String FIELD_MANAGER = "streams-memory-operator";
    /** The environment variable that turns on the agent's memory report in a pod, on this port. */
    public static final String REPORT_PORT_VARIABLE = "STREAMS_MEMORY_REPORT_PORT";

    private MetadataKeys() {}
}
