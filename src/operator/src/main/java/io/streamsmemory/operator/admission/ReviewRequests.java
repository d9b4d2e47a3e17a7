package io.streamsmemory.operator.admission;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The webhook's HTTP requests, read without holding a thread: a body is collected on the event loop up to
 * {@link #MAX_BODY_BYTES} and within the request timeout, and only a complete review goes to a worker
 * thread ({@link PodAdmission#review}). A client that sends more is answered 413 and disconnected; one that
 * sends no request within the timeout of connecting, or too slow a body, is disconnected. (A real review that
 * met either would be admitted unchanged by {@code failurePolicy: Ignore} and reported as drift.)
 */
final class ReviewRequests implements Handler<HttpServerRequest> {
    /**
     * The API server refuses request bodies over 3 MiB ({@code --max-request-bytes}) and etcd objects over
     * 1.5 MiB; a CREATE review carries the pod once (no oldObject) plus the user and options, so a pod the
     * API server can store makes a review well under this. Anything larger is not from the API server.
     */
    static final int MAX_BODY_BYTES = 4 << 20;

    private final Vertx vertx;
    private final PodAdmission admission;
    private final long timeoutMillis;
    /** Connections that have not sent their first request yet, with the timer that closes them. */
    private final Map<HttpConnection, Long> awaitingFirstRequest = new ConcurrentHashMap<>();

    ReviewRequests(Vertx vertx, PodAdmission admission, long timeoutMillis) {
        this.vertx = vertx;
        this.admission = admission;
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
        if (length != null && parse(length) > MAX_BODY_BYTES) {
            tooLarge(request);
            return;
        }
        Buffer body = Buffer.buffer();
        long deadline = vertx.setTimer(timeoutMillis, id -> request.connection().close());
        request.handler(chunk -> {
            if (body.length() + chunk.length() > MAX_BODY_BYTES) {
                vertx.cancelTimer(deadline);
                tooLarge(request);
            } else {
                body.appendBuffer(chunk);
            }
        });
        request.endHandler(end -> {
            vertx.cancelTimer(deadline);
            if (!request.response().ended()) {
                answer(request, body);
            }
        });
        request.exceptionHandler(e -> vertx.cancelTimer(deadline));
    }

    private void answer(HttpServerRequest request, Buffer body) {
        vertx.executeBlocking(() -> admission.review(body.getBytes()), false).onComplete(result -> {
            if (result.succeeded()) {
                request.response()
                        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .end(Buffer.buffer(result.result()));
            } else {
                request.response().setStatusCode(500).end();
            }
        });
    }

    private void tooLarge(HttpServerRequest request) {
        if (!request.response().ended()) {
            request.response()
                    .setStatusCode(413)
                    .putHeader(HttpHeaders.CONNECTION, "close")
                    .end()
                    .onComplete(done -> request.connection().close());
        }
    }

    private static long parse(String length) {
        try {
            return Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
