package io.streamsmemory.agent.rocksdb;

import java.util.function.LongSupplier;

/**
 * Wall-clock time during which at least one column family of the JVM was in a write stall (delayed or stopped), from
 * RocksDB's per-column-family transitions: the stalled column families are counted, the clock runs while the count is
 * above 0. Stalls of several column families at once count once, so the figure stays within the JVM's uptime and two
 * reports a window apart give the share of the window writes were held back. Free of RocksDB types (the report reads
 * it where RocksDB is absent).
 */
public final class WriteStallClock {
    private final LongSupplier nanoTime;
    private int stalled;
    private long stalledSince;
    private long endedNanos;

    WriteStallClock(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /**
     * One column family's transition. Synchronized, as the count and the start time change together; the section is a
     * few instructions, so a flush or compaction thread calling it never waits long.
     */
    public synchronized void changed(boolean wasStalled, boolean isStalled) {
        if (wasStalled == isStalled) {
            return; // delayed to stopped and back: still stalled
        }
        if (isStalled) {
            if (stalled++ == 0) {
                stalledSince = nanoTime.getAsLong();
            }
        } else if (stalled > 0) { // an end without its start (never seen) is ignored
            if (--stalled == 0) {
                endedNanos += nanoTime.getAsLong() - stalledSince;
            }
        }
    }

    /** The stall time so far, a stall in progress included. */
    public synchronized long millis() {
        long nanos = endedNanos + (stalled > 0 ? nanoTime.getAsLong() - stalledSince : 0);
        return nanos / 1_000_000;
    }

    /** Column families stalled now. */
    synchronized int stalledNow() {
        return stalled;
    }

    synchronized void reset() {
        stalled = 0;
        stalledSince = 0;
        endedNanos = 0;
    }
}
