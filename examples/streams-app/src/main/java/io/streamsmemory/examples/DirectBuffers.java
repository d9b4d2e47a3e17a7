package io.streamsmemory.examples;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds direct buffers for the life of the JVM, as Netty's pools, gRPC or a web server's NIO buffers do: what
 * {@code -XX:MaxDirectMemorySize} has to hold besides the Kafka clients' read copies. Started by {@code DIRECT_MIB};
 * 0 holds none. A cap too small stops the JVM here with {@code OutOfMemoryError: Direct buffer memory}.
 */
final class DirectBuffers {
    private static final Logger LOG = LoggerFactory.getLogger(DirectBuffers.class);
    private static final int CHUNK = 1024 * 1024;
    /** Kept, so the buffers are never freed. */
    private static final List<ByteBuffer> HELD = new ArrayList<>();

    private DirectBuffers() {}

    static void hold(int mib) {
        for (int i = 0; i < mib; i++) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK); // zeroed by the JDK: resident at once
            HELD.add(buffer);
        }
        if (mib > 0) {
            LOG.info("holding {} MiB of direct buffers (DIRECT_MIB)", mib);
        }
    }
}
