package io.streamsmemory.operator;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Everything the operator running in this JVM logs (through java.util.logging, where slf4j's JBoss LogManager
 * binding writes), formatted as a log line would be, with the stack traces, for a test to search.
 */
public final class CapturedLog extends Handler implements AutoCloseable {
    private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
    private final SimpleFormatter formatter = new SimpleFormatter();

    private CapturedLog() {
        setLevel(Level.ALL);
    }

    /** Starts capturing every record of the root logger. */
    public static CapturedLog start() {
        CapturedLog log = new CapturedLog();
        Logger.getLogger("").addHandler(log);
        return log;
    }

    /** What was logged so far, one record after another. */
    public String text() {
        return String.join("", lines);
    }

    public int records() {
        return lines.size();
    }

    @Override
    public void publish(LogRecord record) {
        lines.add(formatter.format(record));
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
