package io.streamsmemory.operator.workload;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts Kubernetes Events for the decisions a user wants to see. Posting is asynchronous so a slow API server never
 * holds up a reconcile, and the same message on the same object is posted once.
 *
 * <p>Bounded, as client-go's recorder is: at most {@link #MAX_QUEUED} Events wait to be posted (each as the small
 * Event it will post, not the object it names), and the repeat filter remembers the last {@link #MAX_REMEMBERED}
 * objects and reasons. A policy of thousands of workloads produces Events faster than one thread posts them; past
 * the bound an Event is dropped, counted, and not remembered as said, so the workload's next reconcile offers it
 * again. The operator's heap never grows with the queue.
 */
public class EventRecorder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    private static final String COMPONENT = "streams-memory-operator";
    /** Events waiting to be posted; client-go's {@code maxQueuedEvents}. */
    static final int MAX_QUEUED = 1000;
    /** Objects and reasons whose last message is remembered (about three per workload at 5,000 workloads). */
    static final int MAX_REMEMBERED = 16_384;

    public enum Type {
        Normal,
        Warning
    }

    /** Posts one Event to the API server; a test's may block. */
    private final Consumer<Event> post;

    private final ThreadPoolExecutor poster =
            new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(MAX_QUEUED), r -> {
                Thread thread = new Thread(r, "event-recorder");
                thread.setDaemon(true);
                return thread;
            });
    /** Object uid and reason -> the hash of the last gist said, least recently said first. */
    private final Map<String, Integer> lastGist = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > MAX_REMEMBERED;
        }
    };

    private final AtomicLong dropped = new AtomicLong();

    public EventRecorder(KubernetesClient client) {
        this(event -> client.v1()
                .events()
                .inNamespace(event.getMetadata().getNamespace())
                .resource(event)
                .create());
    }

    EventRecorder(Consumer<Event> post) {
        this.post = post;
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
        Integer said = gist.hashCode();
        synchronized (lastGist) {
            if (said.equals(lastGist.put(key, said))) {
                return;
            }
        }
        Event event = event(object, type, reason, message);
        try {
            poster.execute(() -> post(event));
        } catch (RejectedExecutionException full) {
            synchronized (lastGist) {
                lastGist.remove(key); // not said: offered again by the object's next reconcile
            }
            long count = dropped.incrementAndGet();
            if (count == 1 || count % MAX_QUEUED == 0) {
                LOG.warn("{} Events not posted so far: {} were waiting to be posted", count, MAX_QUEUED);
            }
            return;
        }
        LOG.info(
                "{} {} {}/{}: {} {}",
                type,
                object.getKind(),
                object.getMetadata().getNamespace(),
                object.getMetadata().getName(),
                reason,
                message);
    }

    /** Events not posted because {@link #MAX_QUEUED} were waiting. */
    public long dropped() {
        return dropped.get();
    }

    private static Event event(HasMetadata object, Type type, String reason, String message) {
        String now = Instant.now().toString();
        return new EventBuilder()
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
                .build();
    }

    private void post(Event event) {
        try {
            post.accept(event);
        } catch (RuntimeException e) {
            // An event is a courtesy: losing one must never fail a reconcile.
            LOG.warn(
                    "could not post event {} on {} {}: {}",
                    event.getReason(),
                    event.getInvolvedObject().getKind(),
                    event.getInvolvedObject().getName(),
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        poster.shutdown();
    }
}
