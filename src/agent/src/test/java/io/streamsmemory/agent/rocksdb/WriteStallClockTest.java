package io.streamsmemory.agent.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The stall time from fed transitions, on a clock the test moves. */
class WriteStallClockTest {
    private static final long MS = 1_000_000;
    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final WriteStallClock clock = new WriteStallClock(now::get);

    @Test
    void overlappingStallsOfSeveralColumnFamiliesCountOnce() {
        clock.changed(false, true); // family A: normal to delayed
        now.addAndGet(10 * MS);
        clock.changed(false, true); // family B stalls too
        clock.changed(true, true); // A: delayed to stopped, still stalled
        now.addAndGet(20 * MS);
        clock.changed(true, false); // A back to normal, B still stalled
        now.addAndGet(5 * MS);
        assertThat(clock.millis()).isEqualTo(35); // a stall in progress counts
        clock.changed(true, false); // B back to normal
        now.addAndGet(100 * MS);
        assertThat(clock.millis()).isEqualTo(35);
        assertThat(clock.stalledNow()).isZero();
    }

    @Test
    void anEndWithoutItsStartIsIgnored() {
        clock.changed(true, false);
        clock.changed(false, false);
        now.addAndGet(10 * MS);
        assertThat(clock.millis()).isZero();
        clock.changed(false, true);
        now.addAndGet(7 * MS);
        clock.changed(true, false);
        assertThat(clock.millis()).isEqualTo(7);
    }
}
