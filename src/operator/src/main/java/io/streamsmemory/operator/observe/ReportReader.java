package io.streamsmemory.operator.observe;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.time.Duration;

/**
 * Reads one pod's agent report over plain HTTP within a deadline: a pod that does not answer, answers slowly (even
 * a byte at a time) or sends more than {@link #MAX_BYTES} is a failure, never a wait longer than the timeout.
 */
final class ReportReader {
    static final int MAX_BYTES = 1 << 20;
    private final Duration timeout;

    ReportReader(Duration timeout) {
        this.timeout = timeout;
    }

    AgentReport read(String host, int port) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpURLConnection connection =
                (HttpURLConnection) URI.create("http://" + bracketed(host) + ":" + port + "/report")
                        .toURL()
                        .openConnection(Proxy.NO_PROXY); // pod IPs: never through an egress proxy
        connection.setConnectTimeout((int) timeout.toMillis());
        connection.setReadTimeout((int) timeout.toMillis());
        connection.setInstanceFollowRedirects(false);
        try {
            int status = connection.getResponseCode();
            if (status != 200) {
                throw new IOException("HTTP " + status);
            }
            try (InputStream in = connection.getInputStream()) {
                return AgentReport.parse(readBounded(in, deadline));
            }
        } finally {
            connection.disconnect();
        }
    }

    private static byte[] readBounded(InputStream in, long deadline) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            body.write(buffer, 0, n);
            if (body.size() > MAX_BYTES) {
                throw new IOException("report larger than " + MAX_BYTES + " bytes");
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("report not read within the timeout");
            }
        }
        return body.toByteArray();
    }

    private static String bracketed(String host) {
        return host.contains(":") ? "[" + host + "]" : host;
    }
}
