package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code -w} and {@code -y} as perftest's verifier checks them: any counted line passing passes, -y only with -w. */
class VerifierLimitsTest {
    private static VerifierLimits limits(String... args) {
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs(args);
        return new VerifierLimits(options);
    }

    private static BandwidthReport line(double average, double rate) {
        return new BandwidthReport(4096, 1000, 0, average, rate);
    }

    @Test
    void noLimitNoCheck() {
        assertDoesNotThrow(limits()::check, "nothing counted, nothing asked");
    }

    @Test
    void aBandwidthBelowTheLimitFails() {
        VerifierLimits l = limits("-w", "100");
        l.count(line(99.5, 1));
        assertEquals("Error: BW result is below bw limit", assertThrows(PerftestException.class, l::check).getMessage());
        VerifierLimits reached = limits("-w", "100");
        reached.count(line(100, 1)); // perftest fails only when the limit is above the figure
        assertDoesNotThrow(reached::check);
    }

    @Test
    void oneLinePassingIsEnough() {
        VerifierLimits l = limits("-w", "100");
        l.count(line(50, 1)); // -a: one size reaching the limit passes the run, as perftest's |=
        l.count(line(150, 1));
        assertDoesNotThrow(l::check);
    }

    @Test
    void theMessageRateCountsOnlyWithW() {
        VerifierLimits alone = limits("-y", "5");
        alone.count(line(10, 1));
        assertDoesNotThrow(alone::check, "perftest tests is_limit_bw before the message rate's error");
        VerifierLimits both = limits("-w", "1", "-y", "5");
        both.count(line(10, 1));
        assertEquals("Error: Msg rate  is below msg_rate limit",
                assertThrows(PerftestException.class, both::check).getMessage());
    }

    @Test
    void noLineCountedFailsAGivenLimit() {
        assertThrows(PerftestException.class, limits("-w", "0")::check);
    }

    @Test
    void negativeLimitsAndTheLatencyToolsAreRefusedInOneLine() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "-w", "-1", "127.0.0.1"), 1,
                "Invalid Minimum BW Limit");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "-y", "-2", "127.0.0.1"), 1,
                "Invalid Minimum msgRate Limit", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_read_lat", "-w", "5", "127.0.0.1"), 1, "-w and -y",
                "ib_read_lat");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "-w", "5", "--loopback"), 1,
                "-w and -y with --loopback");
    }
}
