package io.streamsmemory.operator.workload;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts Kubernetes Events for the decisions a user wants to see. Posting is asynchronous so a slow API
 * server never holds up a reconcile, and the same message on the same object is posted once.
 */
public class EventRecorder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    private static final String COMPONENT = "streams-memory-operator";
    /** Enough recent keys to suppress repeats; an entry is small. */
    private static final int MAX_REMEMBERED = 10_000;

    public enum Type {
        Normal,
        Warning
    }

    private final KubernetesClient client;
    private final ExecutorService poster = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "event-recorder");
        thread.setDaemon(true);
        return thread;
    });
    private final Map<String, String> lastMessage = new ConcurrentHashMap<>();

    public EventRecorder(KubernetesClient client) {
        this.client = client;
    }

    /** Posts an event on {@code object} unless the last event of this reason on it said the same. */
    public void record(HasMetadata object, Type type, String reason, String message) {
        record(object, type, reason, message, message);
    }

    /**
     * As {@link #record(HasMetadata, Type, String, String)}, where "said the same" compares {@code gist}, not the
     * message: for a message that tells more the first time (a re-split folded into its restart's Event).
     */
    public void record(HasMetadata object, Type type, String reason, String message, String gist) {
        String key = object.getMetadata().getUid() + "/" + reason;
        if (gist.equals(lastMessage.put(key, gist))) {
            return;
        }
        if (lastMessage.size() > MAX_REMEMBERED) {
            lastMessage.clear();
        }
        LOG.info(
                "{} {} {}/{}: {} {}",
                type,
                object.getKind(),
                object.getMetadata().getNamespace(),
                object.getMetadata().getName(),
                reason,
                message);
        poster.execute(() -> post(object, type, reason, message));
    }

    private void post(HasMetadata object, Type type, String reason, String message) {
        String now = Instant.now().toString();
        try {
            client.v1()
                    .events()
                    .inNamespace(object.getMetadata().getNamespace())
                    .resource(new EventBuilder()
                            .withNewMetadata()
                            .withGenerateName(object.getMetadata().getName() + ".")
                            .withNamespace(object.getMetadata().getNamespace())
                            .endMetadata()
                            .withInvolvedObject(new ObjectReferenceBuilder()
                                    .withApiVersion(object.getApiVersion())
                                    .withKind(object.getKind())
                                    .withName(object.getMetadata().getName())
                                    .withNamespace(object.getMetadata().getNamespace())
                                    .withUid(object.getMetadata().getUid())
                                    .withResourceVersion(object.getMetadata().getResourceVersion())
                                    .build())
                            .withType(type.name())
                            .withReason(reason)
                            .withMessage(message)
                            .withNewSource(COMPONENT, null)
                            .withReportingComponent(COMPONENT)
                            .withFirstTimestamp(now)
                            .withLastTimestamp(now)
                            .withCount(1)
                            .build())
                    .create();
        } catch (RuntimeException e) {
            // An event is a courtesy: losing one must never fail a reconcile.
            LOG.warn(
                    "could not post event {} on {} {}: {}",
                    reason,
                    object.getKind(),
                    object.getMetadata().getName(),
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        poster.shutdown();
    }
}
