package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code -D} on the latency tools: the sample's states from the clock, and perftest's line. */
class TimedSampleTest {
    @Test
    void nothingEndsBeforeTheClockStartsAndTheSampleLiesBetweenTheMargins() throws InterruptedException {
        TimedSample clock = new TimedSample(60_000_000L, 20_000_000L, null);
        assertFalse(clock.over()); // not started: a SEND side waits for its first message
        clock.start();
        clock.count(); // inside the first margin: not counted
        assertEquals(0, clock.counted());
        Thread.sleep(25);
        clock.count();
        clock.count();
        assertEquals(2, clock.counted());
        Thread.sleep(45);
        clock.count(); // past the duration
        assertTrue(clock.over());
        assertEquals(2, clock.counted());
    }

    @Test
    void withoutAMarginTheSampleStartsAtOnce() throws InterruptedException {
        TimedSample clock = new TimedSample(20_000_000L, 0, null);
        clock.start();
        clock.count();
        assertEquals(1, clock.counted());
        Thread.sleep(25);
        assertTrue(clock.over());
        // latency: the sample's time (ended where the clock was read past it) over the count, halved for a ping-pong
        assertTrue(clock.latencyMicros(2) >= 10_000, clock.line(2, 2));
        assertEquals(clock.latencyMicros(2) * 2, clock.latencyMicros(1), 1e-6);
        assertTrue(clock.line(64, 2).startsWith(" 64            1            "), clock.line(64, 2));
    }
}
