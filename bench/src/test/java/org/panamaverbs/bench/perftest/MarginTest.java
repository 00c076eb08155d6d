package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code -f}: -D's margin, and perftest's check that the duration exceeds twice it, with or without -D. */
class MarginTest {
    private static PerftestOptions parse(String... args) {
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    @Test
    void theMarginIsFOrAQuarterOfD() {
        assertEquals(2_000_000_000L, parse("-D", "10").marginNanos());
        assertEquals(1_000_000_000L, parse("-D", "10", "-f", "1").marginNanos());
        assertEquals(0, parse("-D", "10", "-f", "0").marginNanos());
    }

    @Test
    void aDurationNotAboveTwiceTheMarginIsRefused() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "-D", "4", "-f", "2", "127.0.0.1"), 1,
                "please check that DURATION > 2*MARGIN (-D 4, -f 2");
        // without -D perftest checks against its default duration, 5 s, on every tool
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_lat", "-f", "3", "127.0.0.1"), 1,
                "please check that DURATION > 2*MARGIN (-D 5, -f 3", "ib_send_lat");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "-f", "-1", "127.0.0.1"), 1,
                "Margin must be non-negative");
    }
}
