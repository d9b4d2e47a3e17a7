package io.streamsmemory.agent.report;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The report endpoint as its tests reach it: a port on this machine, free or taken, and a GET to it. */
public final class LocalHttp {
    private LocalHttp() {}

    /**
     * GET {@code path} on 127.0.0.1:{@code port}, waiting at most {@code timeout} for the answer; sent once more when
     * the connection closed without an answer. The client keeps connections per port, and a port a finished test's
     * application served may come back for the next one: its first GET then goes out on the dead connection
     * ("HTTP/1.1 header parser received no bytes", .ci/run 2026-12-06).
     */
    public static HttpResponse<String> get(HttpClient http, int port, String path, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(timeout)
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException closedWithoutAnswer) {
            Thread.sleep(500);
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    /** A port no one listened on a moment ago (on any interface, where the endpoint listens). */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A port held on every interface, as another process of the pod would hold it; the caller closes it. */
    public static ServerSocket takenPort() throws IOException {
        ServerSocket taken = new ServerSocket();
        try {
            taken.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
            return taken;
        } catch (IOException e) {
            taken.close();
            throw e;
        }
    }
}
