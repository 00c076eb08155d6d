package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * {@code --run_infinitely} and {@code --reversed} without a device: the figures of a period, the request counts a
 * long run's 32-bit {@code wr_id} halves stand for, which side sends and which connects, and the combinations
 * refused in one line before any peer is contacted.
 */
class RunInfinitelyAndReversedTest {
    private static PerftestOptions parse(String... args) {
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    @Test
    void aPeriodsReportIsItsMessagesOverItsLengthWithoutPeak() {
        // 1000 messages of 65536 bytes in 2 s: 31.25 MB/s (MiB as perftest's), 0.0005 Mpps
        BandwidthReport mbytes = BandwidthReport.ofPeriod(65536, 1000, 2_000_000_000L, false);
        assertEquals(65536, mbytes.size());
        assertEquals(1000, mbytes.iterations());
        assertEquals(0, mbytes.peak());
        assertEquals(31.25, mbytes.average(), 1e-9);
        assertEquals(0.0005, mbytes.messageRate(), 1e-12);
        assertEquals(" 65536      1000             0.00               31.25  \t\t   0.000500", mbytes.line(false));
        // Gb/s: 65536 * 1000 * 8 bits / 2 s = 0.262144 Gb/s
        assertEquals(0.262144, BandwidthReport.ofPeriod(65536, 1000, 2_000_000_000L, true).average(), 1e-12);
    }

    @Test
    void completionsPastTwoToThe32ndRequestsCountOn() {
        assertEquals(10, RdmaRun.completedThrough(5, 9));
        assertEquals(1, RdmaRun.completedThrough(0, 0));
        long before = (1L << 32) - 2; // the wr_id's low half wrapped: request 2^32 + 3 carries 3
        assertEquals((1L << 32) + 4, RdmaRun.completedThrough(before, 3));
        long far = 5L << 32; // and again, many wraps later
        assertEquals(far + 100, RdmaRun.completedThrough(far + 1, 99));
    }

    @Test
    void reportsComeEveryDurationOrEveryFiveSeconds() {
        assertEquals(5_000_000_000L, parse("--run_infinitely").reportPeriodNanos());
        assertEquals(2_000_000_000L, parse("--run_infinitely", "-D", "2").reportPeriodNanos());
    }

    @Test
    void reversedSwapsTheRolesNotTheConnection() {
        PerftestOptions client = parse("10.0.0.1");
        assertTrue(client.isClient());
        assertTrue(client.connects());
        PerftestOptions reversedClient = parse("--reversed", "10.0.0.1");
        assertFalse(reversedClient.isClient(), "given the address, --reversed receives");
        assertTrue(reversedClient.connects(), "and still connects");
        PerftestOptions reversedServer = parse("--reversed");
        assertTrue(reversedServer.isClient(), "the listening side sends");
        assertFalse(reversedServer.connects());
    }

    @Test
    void combinationsWithoutMeaningAreRefusedInOneLine() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--run_infinitely", "-a", "127.0.0.1"), 1,
                "--run_infinitely runs one size until it is stopped");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_read_bw", "--run_infinitely", "-e", "127.0.0.1"), 1,
                "run_infinitely does not support events", "ib_read_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--run_infinitely", "-b", "127.0.0.1"), 1,
                "-b with --run_infinitely");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--run_infinitely", "--loopback"), 1,
                "--run_infinitely with --loopback");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--run_infinitely", "-b", "127.0.0.1"), 1,
                "run_infinitely mode is not supported in SEND Bidirectional BW test", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--run_infinitely", "--reversed",
                "127.0.0.1"), 1, "--run_infinitely with --reversed", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_lat", "--run_infinitely", "127.0.0.1"), 1,
                "--run_infinitely exists only in BW tests", "ib_write_lat");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_lat", "--reversed", "127.0.0.1"), 1,
                "--reversed", "ib_send_lat");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--reversed", "--loopback"), 1,
                "--reversed swaps the roles of two peers");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--reversed", "-R", "127.0.0.1"), 1,
                "--reversed with -R", "ib_send_bw");
    }
}
