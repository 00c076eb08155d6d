package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** perftest's rate limiter options: its checks and messages, and the bursts of the software limiter. */
class RateLimitTest {
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private static RateLimit limit(String rate, String units, String type, Integer burst) {
        RateLimit r = new RateLimit();
        r.rate = rate;
        r.units = units;
        r.type = type;
        r.burstSize = burst;
        return r;
    }

    private static PerftestOptions options() {
        PerftestOptions o = new PerftestOptions();
        o.connection = "RC";
        return o;
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void noLimitIsNoLimiterAndABurstAloneIsRefused() {
        assertNull(limit(null, null, null, null).resolve(options(), "ib_write_bw", false, false, 128, err));
        PerftestException e = assertThrows(PerftestException.class,
                () -> limit(null, null, null, 16).resolve(options(), "ib_write_bw", false, false, 128, err));
        assertTrue(e.getMessage().startsWith("Can't enable burst mode when rate limiter is off"), e.getMessage());
    }

    @Test
    void anImplicitHwLimitFallsBackToSoftwareAsPerftestsQueuePairsDo() {
        RateLimit r = limit("10", null, null, null);
        assertSame(r, r.resolve(options(), "ib_write_bw", false, false, 128, err));
        assertTrue(err().contains("The QP failed to accept HW rate limit, providing SW rate limit"), err());
        assertFalse(err().contains("Setting burst size"), "perftest says so for SW only");
        PerftestException explicit = assertThrows(PerftestException.class,
                () -> limit("10", null, "HW", null).resolve(options(), "ib_write_bw", false, false, 128, err));
        assertTrue(explicit.getMessage().startsWith("The QP failed to accept HW rate limit"), explicit.getMessage());
        PerftestException value = assertThrows(PerftestException.class,
                () -> limit("11", null, null, null).resolve(options(), "ib_write_bw", false, false, 128, err));
        assertTrue(value.getMessage().startsWith("Failed: Unknown rate limit value"), value.getMessage());
        PerftestException pps = assertThrows(PerftestException.class,
                () -> limit("10", "p", null, null).resolve(options(), "ib_write_bw", false, false, 128, err));
        assertTrue(pps.getMessage().startsWith("Failed: pps rate limit units is not supported"), pps.getMessage());
    }

    @Test
    void perftestsOtherRefusals() {
        String[][] cases = {{"0", null, "SW", "Rate limit must be non-negative"}, {"5", "k", "SW", "Invalid rate limit units"},
            {"5", null, "XX", "Invalid rate limit type flag"}, {"5", null, "PP", "Packet Pacing is only supported for Raw"},
            {null, null, "SW", "--rate_limit_type SW needs --rate_limit"}};
        for (String[] c : cases) {
            PerftestException e = assertThrows(PerftestException.class,
                    () -> limit(c[0], c[1], c[2], null).resolve(options(), "ib_write_bw", false, false, 128, err));
            assertTrue(e.getMessage().startsWith(c[3]), e.getMessage());
        }
        PerftestException atomic = assertThrows(PerftestException.class,
                () -> limit("5", "p", "SW", null).resolve(options(), "ib_write_bw", true, false, 128, err));
        assertTrue(atomic.getMessage().startsWith("SW Rate limiter cann't be executed"), atomic.getMessage());
        PerftestOptions events = options();
        events.events = true;
        PerftestException wait = assertThrows(PerftestException.class,
                () -> limit("5", "p", "SW", null).resolve(events, "ib_write_bw", false, false, 128, err));
        assertTrue(wait.getMessage().startsWith("-e with --rate_limit"), wait.getMessage());
        PerftestOptions forever = options();
        forever.runInfinitely = true;
        assertThrows(PerftestException.class, () -> limit("5", "p", "SW", null).resolve(forever, "ib_write_bw", false, false, 128, err));
    }

    @Test
    void aSoftwareLimitSendsABurstThenWaitsItsGap() {
        RateLimit r = limit("1", "p", "SW", null).resolve(options(), "ib_write_bw", false, false, 2, err); // 1 packet/s, bursts of 2
        assertTrue(err().contains(" Setting burst size to tx depth = 2"), err());
        r.start(64);
        assertTrue(r.mayPost());
        assertFalse(r.posted(1));
        assertTrue(r.mayPost(), "inside the burst");
        assertTrue(r.posted(1), "the burst of 2 is complete");
        assertFalse(r.mayPost(), "the next burst waits 2 s");
        RateLimit tooSlow = limit("1", "M", "SW", 4).resolve(options(), "ib_write_bw", false, false, 128, err);
        PerftestException e = assertThrows(PerftestException.class, () -> tooSlow.start(8 << 20));
        assertTrue(e.getMessage().contains("below one"), e.getMessage());
    }
}
