package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Mtu;
import org.panamaverbs.verbs.QpConnectOptions;

/** Bad input ends in one line naming what is wrong and a non-zero exit, before any device or peer is touched. */
class CommandLineTest {
    record Outcome(int exit, String err) {
    }

    static Outcome run(String... args) {
        StringWriter err = new StringWriter();
        int exit = Perftest.run(new PrintWriter(err, true), args);
        return new Outcome(exit, err.toString());
    }

    static void assertOneLine(Outcome o, int exit, String contains) {
        assertOneLine(o, exit, contains, "ib_write_bw");
    }

    static void assertOneLine(Outcome o, int exit, String contains, String tool) {
        assertEquals(exit, o.exit(), o.err());
        assertEquals(1, o.err().lines().count(), o.err());
        assertTrue(o.err().startsWith(tool + ": "), o.err());
        assertTrue(o.err().contains(contains), o.err());
        assertFalse(o.err().contains("\tat "), o.err());
    }

    @Test
    void unknownFlagsAndBadNumbersAreCommandLineErrors() {
        assertOneLine(run("ib_write_bw", "--no-such-flag"), 2, "--no-such-flag");
        assertOneLine(run("ib_write_bw", "-s", "lots"), 2, "lots");
    }

    @Test
    void invalidValuesAreRefused() {
        assertOneLine(run("ib_write_bw", "-s", "0"), 1, "-s must be at least 1");
        assertOneLine(run("ib_write_bw", "-n", "0"), 1, "-n must be at least 1");
        assertOneLine(run("ib_write_bw", "-t", "-5"), 1, "-t must be at least 1");
        assertOneLine(run("ib_write_bw", "-m", "1500"), 1, "-m must be 256");
        assertOneLine(run("ib_write_bw", "-p", "70000"), 1, "-p must be a TCP port");
        assertOneLine(run("ib_write_bw", "-a", "-s", "64"), 1, "-a runs every size");
        // as getopt: the last of a repeated flag counts (here the valid -s 64 would be overridden by 0)
        assertOneLine(run("ib_write_bw", "-s", "64", "-s", "0"), 1, "-s must be at least 1");
        assertOneLine(run("ib_write_bw", "-R", "--loopback"), 1, "-R connects to a peer");
        assertOneLine(run("ib_write_bw", "--negotiation-size", "316"), 1, "--negotiation-size must be 320 or 312, not 316");
    }

    @Test
    void queuePairAttributesOutsideTheirFieldsAreRefused() {
        assertOneLine(run("ib_write_bw", "-u", "32"), 1, "-u must be 0 to 31 (the queue pair's 5-bit timeout exponent), not 32");
        assertOneLine(run("ib_write_bw", "--retry_count", "8"), 1, "--retry_count must be 0 to 7");
        assertOneLine(run("ib_write_bw", "-S", "16"), 1, "-S must be a service level from 0 to 15, not 16");
        assertOneLine(run("ib_write_bw", "--tclass", "256"), 1, "--tclass must be 0 to 255, not 256");
    }

    /** perftest's checks of -X, -T, --flow_label, --pkey_index and --cqe_poll, before any device is opened. */
    @Test
    void completionVectorTypeOfServiceFlowLabelsAndPkeyIndexAreChecked() {
        assertOneLine(run("ib_send_bw", "-X", "1"), 1, "Events must be enabled to select a completion vector", "ib_send_bw");
        assertOneLine(run("ib_send_bw", "-e", "-X", "2049"), 1, "EQN should be between 0 and 2048", "ib_send_bw");
        assertOneLine(run("ib_write_bw", "-T", "32"), 1, "TOS only valid for rdma_cm based QP");
        assertOneLine(run("ib_write_bw", "-R", "-T", "256"), 1, "TOS should be between 0 and 255");
        assertOneLine(run("ib_write_bw", "--flow_label", "1,0x100000"), 1, "each label must be 0 to 0xFFFFF");
        assertOneLine(run("ib_write_bw", "--flow_label", "1,two"), 1, "\"two\" is not a number");
        assertOneLine(run("ib_write_bw", "--pkey_index", "-1"), 1, "--pkey_index must not be negative");
        assertOneLine(run("ib_write_bw", "--cqe_poll", "0"), 1, "CQE Poll should be between 1 and 65535");
        PerftestOptions batch = new PerftestOptions();
        new picocli.CommandLine(batch).parseArgs("--cqe_poll", "64");
        assertEquals(64, batch.pollBatch());
        assertEquals(PerftestOptions.POLL_BATCH, new PerftestOptions().pollBatch());
        PerftestOptions labels = new PerftestOptions();
        new picocli.CommandLine(labels).parseArgs("--flow_label", "0x10,020,3");
        assertArrayEquals(new int[] {16, 16, 3}, labels.flowLabelList(), "strtol's bases: hex, octal, decimal");
        assertArrayEquals(new int[0], new PerftestOptions().flowLabelList());
    }

    /** perftest's ctx_chk_pkey_index: an index past max_pkeys - 1 becomes 0 with its three lines; 0 is never checked. */
    @Test
    void aPkeyIndexPastTheDevicesMaximumBecomesZero() {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        PrintStream err = System.err;
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        System.setErr(new PrintStream(stderr, true));
        try {
            PrintStream out = new PrintStream(stdout, true);
            assertEquals(3, PerftestSession.pkeyIndex(3, 64, out));
            assertEquals(0, PerftestSession.pkeyIndex(0, 0, out));
            assertEquals("", stdout.toString() + stderr);
            assertEquals(0, PerftestSession.pkeyIndex(64, 64, out));
        } finally {
            System.setErr(err);
        }
        assertEquals(BandwidthReport.RESULT_LINE + System.lineSeparator(), stdout.toString());
        assertEquals(" Specified PKey Index, 64, greater than allowed max, 63" + System.lineSeparator() + " Changing to 0"
                + System.lineSeparator(), stderr.toString());
    }

    /** Several UD queue pairs: ib_send_bw has them, as perftest; the latency tools take one queue pair. */
    @Test
    void severalDatagramQueuePairsOnlyOnTheBandwidthTool() {
        PerftestOptions bandwidth = new PerftestOptions();
        new picocli.CommandLine(bandwidth).parseArgs("-c", "UD", "-q", "2");
        assertDoesNotThrow(() -> bandwidth.refuseUnimplemented("ib_send_bw"));
        assertOneLine(run("ib_send_lat", "-c", "UD", "-q", "2"), 1, "-q with -c UD", "ib_send_lat");
    }

    /** -u, -S and --tclass reach the RC queue pair's RTR and RTS attributes as perftest sets them; retries stay 7. */
    @Test
    void queuePairAttributesReachTheConnection() {
        PerftestOptions options = new PerftestOptions();
        new picocli.CommandLine(options).parseArgs("-u", "20", "-S", "3", "--tclass", "96", "--retry_count", "2",
                "10.0.0.1");
        QpConnectOptions set = PerftestSession.connectOptions(options, Mtu.MTU_1024, 7, 16, 4, 8);
        assertEquals(20, set.timeout());
        assertEquals(3, set.serviceLevel());
        assertEquals(96, set.trafficClass());
        assertEquals(7, set.retryCount(), "perftest's --retry_count reaches rdma_cm only");
        assertEquals(Mtu.MTU_1024, set.pathMtu());
        assertEquals(16, set.maxDestReadAtomic());
        assertEquals(4, set.maxReadAtomic());
        assertEquals(2, options.retryCount);

        PerftestOptions defaults = new PerftestOptions();
        new picocli.CommandLine(defaults).parseArgs("10.0.0.1");
        QpConnectOptions plain = PerftestSession.connectOptions(defaults, Mtu.MTU_1024, 7, 16, 4, 8);
        assertEquals(14, plain.timeout());
        assertEquals(0, plain.serviceLevel());
        assertEquals(0, plain.trafficClass());
        assertEquals(7, defaults.retryCount);
    }

    /** {@code -o}: the reads asked for, the device's maximum when none or too many (with perftest's warning). */
    @Test
    void outstandingReadsAreCappedByTheDevice() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true);
        assertEquals(4, PerftestSession.outstandingReads(4, 16, out));
        assertEquals(16, PerftestSession.outstandingReads(0, 16, out));
        assertEquals("", printed.toString());
        assertEquals(16, PerftestSession.outstandingReads(64, 16, out));
        assertEquals("-".repeat(87) + System.lineSeparator(), printed.toString());
    }

    @Test
    void latencyOnlyOptionsAreRefusedByTheBandwidthTools() {
        assertOneLine(run("ib_write_lat", "--latency_gap", "-1"), 1, "--latency_gap must not be negative", "ib_write_lat");
        assertOneLine(run("ib_write_bw", "--latency_gap", "5"), 1, "Latency gap feature is only for latency tests");
        assertOneLine(run("ib_send_bw", "-U"), 1, "-U is Available only on Latency tests", "ib_send_bw");
    }

    /** {@code --latency_gap}: a side waits at least the gap before each post (perftest counts it in the latency). */
    @Test
    void theLatencyGapIsSpentBeforeAPost() {
        PingPongSide side = new PingPongSide(null, null, null, null, 0, 0, 0, true, null, false, wr -> { }, 3_000_000, null, false);
        long start = System.nanoTime();
        side.gap();
        assertTrue(System.nanoTime() - start >= 3_000_000);
        PingPongSide none = new PingPongSide(null, null, null, null, 0, 0, 0, true, null, false, wr -> { }, 0, null, false);
        start = System.nanoTime();
        none.gap();
        assertTrue(System.nanoTime() - start < 3_000_000);
    }

    @Test
    void outputNamesAFigureTheToolMeasures() {
        assertOneLine(run("ib_write_bw", "--output", "speed"), 1, "Invalid verbosity level output flag (--output speed)");
        assertOneLine(run("ib_write_bw", "--output", "latency"), 1, "Output verbosity level for BW can be: bandwidth, message_rate");
        assertOneLine(run("ib_send_lat", "--output", "bandwidth"), 1, "Output verbosity level for LAT can be: latency", "ib_send_lat");
    }

    /** {@code --output}: the one figure asked for, as C's {@code %lf}; without it perftest's whole line. */
    @Test
    void outputPrintsOnlyTheFigureAskedFor() {
        BandwidthReport bandwidth = new BandwidthReport(65536, 5000, 812.345, 790.5, 0.012648);
        LatencyReport latency = LatencyReport.of(2, new long[] {0, 2000, 4000, 6000, 8000, 10000}, 2);
        PerftestOptions options = new PerftestOptions();
        new picocli.CommandLine(options).parseArgs("10.0.0.1");
        assertEquals(bandwidth.line(false, true), options.bandwidthResult(bandwidth));
        assertEquals(latency.line(), options.latencyResult(latency));
        new picocli.CommandLine(options).parseArgs("--output", "bandwidth", "10.0.0.1");
        assertEquals("790.500000", options.bandwidthResult(bandwidth));
        new picocli.CommandLine(options).parseArgs("--output", "message_rate", "10.0.0.1");
        assertEquals("0.012648", options.bandwidthResult(bandwidth));
        new picocli.CommandLine(options).parseArgs("--output", "latency", "10.0.0.1");
        assertEquals("1.000000", options.latencyResult(latency));
    }

    @Test
    void flagsNotImplementedAreRefusedNotIgnored() {
        assertOneLine(run("ib_write_bw", "-q", "2", "-R"), 1, "-q with -R is not implemented");
        assertOneLine(run("ib_send_lat", "-q", "2"), 1, "-q (several queue pairs; the bandwidth tools have it)", "ib_send_lat");
        assertOneLine(run("ib_write_bw", "-q", "0"), 1, "-q must be at least 1");
        assertOneLine(run("ib_write_bw", "-c", "UD"), 1, "-c UD (only RC)");
        assertOneLine(run("ib_write_bw", "-H"), 1, "-H");
    }

    @Test
    void eachToolRefusesWhatItCannotRun() {
        assertOneLine(run("ib_write_lat", "-n", "3"), 1, "at least 4", "ib_write_lat");
        assertOneLine(run("ib_send_lat", "-t", "4"), 1, "-t other than 1", "ib_send_lat");
        assertOneLine(run("ib_read_bw", "-I", "64"), 1, "-I (RDMA READ carries no payload", "ib_read_bw");
        assertOneLine(run("ib_write_lat", "-l", "4"), 1, "-l (post lists are supported in bandwidth tests only)", "ib_write_lat");
        assertOneLine(run("ib_write_bw", "-l", "4", "-n", "10"), 1, "multiple of post list size", "ib_write_bw");
        assertOneLine(run("ib_write_bw", "-l", "4", "-Q", "3"), 1, "multiple of CQ moderation", "ib_write_bw");
        assertOneLine(run("ib_read_bw", "--loopback", "-e"), 1, "-e with --loopback", "ib_read_bw");
        assertOneLine(run("ib_write_lat", "-e"), 1, "events feature not available on WRITE verb", "ib_write_lat");
        assertOneLine(run("ib_send_lat", "-D", "5", "--json"), 1, "--json with -D is not implemented", "ib_send_lat");
        assertOneLine(run("ib_write_lat", "-D", "5", "--out_json"), 1, "--out_json with -D (the file of a timed",
                "ib_write_lat");
        assertOneLine(run("ib_read_lat", "-D", "5", "-e"), 1, "Duration mode doesn't work with events", "ib_read_lat");
        assertOneLine(run("ib_send_bw", "-D", "5", "-e"), 1, "Duration mode doesn't work with events", "ib_send_bw");
        assertOneLine(run("ib_send_bw", "-D", "5", "-a"), 1, "cannot be combined with -a", "ib_send_bw");
        assertOneLine(run("ib_send_bw", "-D", "4", "-f", "2"), 1, "DURATION > 2*MARGIN", "ib_send_bw");
        assertOneLine(run("ib_write_bw", "-D", "0"), 1, "-D must be at least 1", "ib_write_bw");
        assertOneLine(run("ib_send_bw", "-b", "-D", "4"), 1, "-b with -D (perftest's duplex SEND counts", "ib_send_bw");
        assertOneLine(run("ib_send_bw", "-b", "-e"), 1, "-b with -e is not implemented", "ib_send_bw");
        assertOneLine(run("ib_read_lat", "-b"), 1, "bidirectional is only available in BW tests", "ib_read_lat");
        assertOneLine(run("ib_write_bw", "-b", "-D", "4"), 1, "-b with -D", "ib_write_bw");
        assertOneLine(run("ib_read_bw", "-D", "5", "-e"), 1, "Duration mode doesn't work with events", "ib_read_bw");
        assertOneLine(run("ib_write_bw", "-D", "5", "-a"), 1, "cannot be combined with -a", "ib_write_bw");
        assertOneLine(run("ib_send_bw", "-c", "UC"), 1, "-c UC (RC or UD)", "ib_send_bw");
        assertOneLine(run("ib_send_lat", "-c", "UD", "-R"), 1, "-R with -c UD", "ib_send_lat");
    }
}
