package io.streamsmemory.examples;

import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JVM that never builds Kafka Streams and runs until stopped: what an opted-in pod's tool or sidecar JVM looks like
 * to the agent, which must then change nothing and say so once. Run in a pod of the example image with
 * {@code command: [java, -cp, "/app/*:/app/lib/*", io.streamsmemory.examples.NoStreamsJvm]}.
 */
public final class NoStreamsJvm {
    private static final Logger LOG = LoggerFactory.getLogger(NoStreamsJvm.class);

    private NoStreamsJvm() {}

    public static void main(String[] args) throws InterruptedException {
        LOG.info("a JVM without Kafka Streams, running until stopped");
        new CountDownLatch(1).await();
    }
}
