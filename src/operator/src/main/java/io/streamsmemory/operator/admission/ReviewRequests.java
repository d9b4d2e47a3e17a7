package io.streamsmemory.operator.admission;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The webhook's HTTP requests, read without holding a thread: a body is collected on the event loop up to
 * {@link #MAX_BODY_BYTES} and within the request timeout, and only a complete review goes to a worker
 * thread ({@link PodAdmission#review}). A client that sends more is answered 413 and disconnected; one that
 * sends no request within the timeout of connecting, or too slow a body, is disconnected. (A real review that
 * met either would be admitted unchanged by {@code failurePolicy: Ignore} and reported as drift.) Across all
 * connections, {@link WebhookLoad} caps the reviews in flight and the body bytes they hold; a review above
 * either cap is shed ({@link #shed}).
 */
final class ReviewRequests implements Handler<HttpServerRequest> {
    /**
     * The API server refuses request bodies over 3 MiB ({@code --max-request-bytes}) and etcd objects over
     * 1.5 MiB; a CREATE review carries the pod once (no oldObject) plus the user and options, so a pod the
     * API server can store makes a review well under this. Anything larger is not from the API server.
     */
    static final int MAX_BODY_BYTES = 4 << 20;

    /** What a shed review is answered (with 429): allowed, unchanged; the uid is unknown, the body unread. */
    private static final byte[] SHED_ANSWER = PodAdmission.allowedUnchanged("");

    private final Vertx vertx;
    private final PodAdmission admission;
    private final WebhookLoad load;
    private final long timeoutMillis;
    /** Connections that have not sent their first request yet, with the timer that closes them. */
    private final Map<HttpConnection, Long> awaitingFirstRequest = new ConcurrentHashMap<>();

    ReviewRequests(Vertx vertx, PodAdmission admission, WebhookLoad load, long timeoutMillis) {
        this.vertx = vertx;
        this.admission = admission;
        this.load = load;
        this.timeoutMillis = timeoutMillis;
    }

    /** A new connection (TLS already negotiated) must send a request within the timeout. */
    void connected(HttpConnection connection) {
        awaitingFirstRequest.put(connection, vertx.setTimer(timeoutMillis, id -> connection.close()));
        connection.closeHandler(closed -> firstRequestArrived(connection));
    }

    private void firstRequestArrived(HttpConnection connection) {
        Long timer = awaitingFirstRequest.remove(connection);
        if (timer != null) {
            vertx.cancelTimer(timer);
        }
    }

    @Override
    public void handle(HttpServerRequest request) {
        firstRequestArrived(request.connection());
        if (request.method() != HttpMethod.POST || !WebhookSettings.PATH.equals(request.path())) {
            request.response()
                    .setStatusCode(request.method() != HttpMethod.POST ? 405 : 404)
                    .end();
            return;
        }
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        long announced = length == null ? 0 : parse(length);
        if (announced > MAX_BODY_BYTES) {
            tooLarge(request);
            return;
        }
        WebhookLoad.Slot slot = load.admit(announced);
        if (slot == null) {
            shed(request);
            return;
        }
        read(request, slot);
    }

    /** Collects the body under the slot, which every way the request can end gives back. */
    private void read(HttpServerRequest request, WebhookLoad.Slot slot) {
        request.response().endHandler(ended -> slot.requestDone()).closeHandler(closed -> slot.requestDone());
        Buffer body = Buffer.buffer();
        long deadline = vertx.setTimer(timeoutMillis, id -> {
            slot.requestDone();
            request.connection().close();
        });
        request.handler(chunk -> {
            if (request.response().ended()) {
                return;
            }
            int total = body.length() + chunk.length();
            if (total > MAX_BODY_BYTES) {
                vertx.cancelTimer(deadline);
                tooLarge(request);
            } else if (!slot.received(total)) {
                vertx.cancelTimer(deadline);
                shed(request);
            } else {
                body.appendBuffer(chunk);
            }
        });
        request.endHandler(end -> {
            vertx.cancelTimer(deadline);
            if (!request.response().ended()) {
                answer(request, body, slot);
            }
        });
        request.exceptionHandler(e -> {
            vertx.cancelTimer(deadline);
            slot.requestDone();
        });
    }

    private void answer(HttpServerRequest request, Buffer body, WebhookLoad.Slot slot) {
        slot.toWorker();
        vertx.executeBlocking(() -> admission.review(body.getBytes()), false).onComplete(result -> {
            try {
                if (result.succeeded()) {
                    request.response()
                            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                            .end(Buffer.buffer(result.result()));
                } else {
                    request.response().setStatusCode(500).end();
                }
            } finally {
                slot.release();
            }
        });
    }

    private void tooLarge(HttpServerRequest request) {
        answerAndClose(request, 413, null);
    }

    /**
     * Answers a review the webhook is too loaded to read: 429, the body unread, the connection closed (nothing
     * more can be read from it). Why this is fail-open: the API server checks that {@code response.uid} is the
     * request's uid, and the uid is in the body, which the caps exist not to read; a 200 without it would fail
     * that check as "an invalid webhook response", the same outcome reported as a webhook bug. A 429 is a failed
     * webhook call, which {@code failurePolicy: Ignore} (deploy/webhook.yaml) turns into the pod admitted
     * unchanged, exactly as when the webhook is down: the API server counts it in
     * {@code apiserver_admission_webhook_fail_open_count} and the operator reports the pod as drift. No
     * {@code Retry-After}: client-go retries a 429 that carries one (up to 10 times), which would bring the load
     * straight back within the 2 s the call may take. (With {@code failurePolicy: Fail} the pod is refused, the
     * choice that setting makes for a webhook that cannot answer.) The body, allowed and unchanged with an
     * empty uid, says the same to anything else that reads it.
     */
    private void shed(HttpServerRequest request) {
        answerAndClose(request, 429, Buffer.buffer(SHED_ANSWER));
    }

    private static void answerAndClose(HttpServerRequest request, int status, Buffer body) {
        if (!request.response().ended()) {
            HttpServerResponse response =
                    request.response().setStatusCode(status).putHeader(HttpHeaders.CONNECTION, "close");
            if (body != null) {
                response.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
            }
            (body == null ? response.end() : response.end(body))
                    .onComplete(done -> request.connection().close());
        }
    }

    /** A Content-Length; one that is not a length reads as too large. */
    private static long parse(String length) {
        try {
            long value = Long.parseLong(length.trim());
            return value < 0 ? Long.MAX_VALUE : value;
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
