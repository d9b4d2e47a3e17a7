package io.streamsmemory.agent.report;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/**
 * The JDK's HTTP server serving {@link MemoryReport}: {@code GET /report} (JSON), {@code GET /metrics} (Prometheus
 * text), 404 for anything else. Loaded only once {@link ReportEndpoint} has seen the {@code jdk.httpserver} module.
 */
final class ReportHttpServer {
    static final String JSON_TYPE = "application/json; charset=utf-8";
    static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private ReportHttpServer() {}

    /** Binds 0.0.0.0:{@code port} and serves on {@code executor}; throws when the port cannot be bound. */
    static HttpServer start(int port, Executor executor) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
        server.createContext("/", ReportHttpServer::handle);
        server.setExecutor(executor);
        server.start();
        return server;
    }

    static void handle(HttpExchange exchange) {
        try {
            InertNotice.onReport();
            String path = exchange.getRequestURI().getPath();
            boolean get = "GET".equals(exchange.getRequestMethod());
            if (get && "/report".equals(path)) {
                send(exchange, 200, JSON_TYPE, MemoryReport.build().toJson());
            } else if (get && "/metrics".equals(path)) {
                send(exchange, 200, PROMETHEUS_TYPE, MemoryReport.build().toPrometheus());
            } else {
                send(exchange, 404, "text/plain; charset=utf-8", "not found: GET /report or /metrics\n");
            }
        } catch (Throwable t) {
            try {
                send(exchange, 500, "text/plain; charset=utf-8", "report failed: " + t + "\n");
            } catch (Throwable ignored) {
                // the client went away
            }
        } finally {
            exchange.close();
        }
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
