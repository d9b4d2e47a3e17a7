package io.streamsmemory.agent.report;

import io.streamsmemory.agent.log.AgentLog;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Whether and where the report is served: {@code STREAMS_MEMORY_REPORT_PORT} (off when unset or empty; anything but
 * a port number 1..65535 is one warning and off). Free of {@code com.sun.net.httpserver} types, so that it loads
 * on a runtime without the {@code jdk.httpserver} module and can say so once.
 *
 * <p>Everything runs on one daemon thread (a one-thread executor with a short queue): binding the port, and every
 * request. The HTTP server's own dispatcher thread is started from that thread, so it is a daemon too and never
 * keeps the JVM alive. Nothing runs on the application's threads; a failure is one warning, never an exception.
 */
public final class ReportEndpoint {
    static final String PORT_ENV = "STREAMS_MEMORY_REPORT_PORT";
    static final String THREAD_NAME = "streams-memory-report";
    /** Requests waiting beyond this many are refused (the connection is closed): a scrape never piles up work. */
    static final int QUEUED_REQUESTS = 4;

    static final String HTTP_MODULE = "jdk.httpserver";

    private ReportEndpoint() {}

    /** Starts the endpoint when the environment asks for it; returns the executor it runs on, or null when off. */
    public static ThreadPoolExecutor start(Map<String, String> env) {
        try {
            Integer port = port(env.get(PORT_ENV));
            if (port == null) {
                return null;
            }
            if (ModuleLayer.boot().findModule(HTTP_MODULE).isEmpty()) {
                AgentLog.warnOnce(
                        "report-no-httpserver",
                        "the memory report is not served on port " + port + ": this Java runtime has no " + HTTP_MODULE
                                + " module (add it to the jlink image)");
                return null;
            }
            ThreadPoolExecutor executor = new ThreadPoolExecutor(
                    1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUED_REQUESTS), runnable -> {
                        Thread thread = new Thread(runnable, THREAD_NAME);
                        thread.setDaemon(true);
                        return thread;
                    });
            executor.execute(() -> bind(port, executor));
            return executor;
        } catch (Throwable t) {
            AgentLog.warnOnce("report-start", "could not start the memory report endpoint: " + t);
            return null;
        }
    }

    private static void bind(int port, ThreadPoolExecutor executor) {
        try {
            ReportHttpServer.start(port, executor);
            AgentLog.info("memory report on http://0.0.0.0:" + port + "/report and /metrics");
        } catch (Throwable t) {
            AgentLog.warnOnce(
                    "report-bind",
                    "the memory report is not served: cannot listen on port " + port + " (" + t
                            + "); the application runs as before");
            executor.shutdown();
        }
    }

    /** The port to listen on, or null for off (unset, empty, or invalid: then one warning). */
    static Integer port(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            int port = Integer.parseInt(value.trim());
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // warned below
        }
        AgentLog.warnOnce(
                "report-port",
                PORT_ENV + "=" + value + " is not a port number (1 to 65535): the memory " + "report is not served");
        return null;
    }
}
