package io.streamsmemory.operator.admission;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook's load as a whole, where {@link ReviewRequests} bounds each request: the reviews in flight (being read,
 * waiting for a worker or answered) and the request-body bytes they hold, each under a cap
 * ({@link WebhookSettings#maxInFlight}, {@link WebhookSettings#maxBufferedBytes}). A review above either cap is
 * shed: {@link #admit} or {@link Slot#hold} says no, the shed is counted ({@code streamsmemory_webhook_shed_total},
 * by reason) and reported in at most one log line every {@link #LOG_EVERY}, so abuse cannot flood the log.
 */
final class WebhookLoad {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookLoad.class);
    static final Duration LOG_EVERY = Duration.ofSeconds(10);

    /** Why a review was shed; the value of the shed counter's {@code reason} tag. */
    enum Reason {
        IN_FLIGHT("in-flight"),
        BYTES("bytes");

        final String tag;

        Reason(String tag) {
            this.tag = tag;
        }
    }

    private final int maxInFlight;
    private final long maxBytes;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong bytes = new AtomicLong();
    private final LongAdder shedInFlight = new LongAdder();
    private final LongAdder shedBytes = new LongAdder();
    private final LongAdder unlogged = new LongAdder();
    private final AtomicLong nextLogNanos = new AtomicLong(System.nanoTime());

    WebhookLoad(int maxInFlight, long maxBytes) {
        this.maxInFlight = maxInFlight;
        this.maxBytes = maxBytes;
    }

    /** Publishes the gauges and the shed counter (once the webhook serves: one registration per app). */
    void register(MeterRegistry registry) {
        Gauge.builder("streamsmemory.webhook.reviews.in.flight", inFlight, AtomicInteger::get)
                .description("Admission reviews being read, waiting for a worker or answered")
                .register(registry);
        Gauge.builder("streamsmemory.webhook.buffered.bytes", bytes, AtomicLong::get)
                .description("Request-body bytes the webhook holds (announced by Content-Length, or received)")
                .register(registry);
        for (Reason reason : Reason.values()) {
            FunctionCounter.builder("streamsmemory.webhook.shed", counter(reason), LongAdder::sum)
                    .description("Reviews answered 429 without being reviewed because the webhook was at a global"
                            + " cap; the API server admits their pods unchanged (failurePolicy: Ignore)")
                    .tag("reason", reason.tag)
                    .register(registry);
        }
    }

    /**
     * A slot for a review whose headers just arrived, holding its announced body length ({@code announcedBytes}, 0
     * when chunked); null, counted as shed, when {@code maxInFlight} reviews are in flight or the body would not fit.
     */
    Slot admit(long announcedBytes) {
        if (!reserve(inFlight, maxInFlight)) {
            shed(Reason.IN_FLIGHT);
            return null;
        }
        Slot slot = new Slot();
        if (!slot.hold(announcedBytes)) {
            slot.release();
            return null;
        }
        return slot;
    }

    int inFlight() {
        return inFlight.get();
    }

    long bufferedBytes() {
        return bytes.get();
    }

    long shed() {
        return shedInFlight.sum() + shedBytes.sum();
    }

    private LongAdder counter(Reason reason) {
        return reason == Reason.IN_FLIGHT ? shedInFlight : shedBytes;
    }

    private void shed(Reason reason) {
        counter(reason).increment();
        unlogged.increment();
        long now = System.nanoTime();
        long next = nextLogNanos.get();
        if (now - next >= 0 && nextLogNanos.compareAndSet(next, now + LOG_EVERY.toNanos())) {
            LOG.warn(
                    "admission webhook over capacity: {} reviews answered 429 without being reviewed since the last report (last:"
                            + " {}; {} of {} in flight, {} of {} body bytes held); the API server admits their pods"
                            + " unchanged (failurePolicy: Ignore)",
                    unlogged.sumThenReset(),
                    reason.tag,
                    inFlight.get(),
                    maxInFlight,
                    bytes.get(),
                    maxBytes);
        }
    }

    private static boolean reserve(AtomicInteger used, int max) {
        int now;
        do {
            now = used.get();
            if (now >= max) {
                return false;
            }
        } while (!used.compareAndSet(now, now + 1));
        return true;
    }

    /**
     * One review's share: its place in flight and the body bytes it holds; given back once, by {@link #release}. Its
     * connection's event loop and the worker that answers it both use it, hence the locking.
     */
    final class Slot {
        private boolean released;
        private long held;
        /** Once a worker has the body, only the worker's answer releases the slot. */
        private boolean withWorker;

        private Slot() {}

        /**
         * Holds {@code count} more body bytes; false when the slot was released (its connection is gone) or,
         * counted as shed, when the webhook's total would pass its cap.
         */
        synchronized boolean hold(long count) {
            if (released) {
                return false;
            }
            long now;
            do {
                now = bytes.get();
                if (now + count > maxBytes) {
                    shed(Reason.BYTES);
                    return false;
                }
            } while (!bytes.compareAndSet(now, now + count));
            held += count;
            return true;
        }

        /** Holds a body's bytes past its announced length (chunked, or sent without a length): {@code total} so far. */
        synchronized boolean received(long total) {
            return total <= held || hold(total - held);
        }

        synchronized void toWorker() {
            withWorker = true;
        }

        /** The request ended on the connection's side (closed, failed, timed out, answered without a worker). */
        synchronized void requestDone() {
            if (!withWorker) {
                release();
            }
        }

        synchronized void release() {
            if (!released) {
                released = true;
                bytes.addAndGet(-held);
                held = 0;
                inFlight.decrementAndGet();
            }
        }
    }
}
