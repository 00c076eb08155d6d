package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

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
        assertOneLine(run("ib_send_bw", "-D", "5"), 1, "-D (duration; ib_write_bw and ib_read_bw have it)", "ib_send_bw");
        assertOneLine(run("ib_write_bw", "-D", "0"), 1, "-D must be at least 1", "ib_write_bw");
        assertOneLine(run("ib_send_bw", "-b"), 1, "-b (bidirectional; ib_write_bw and ib_read_bw have it)", "ib_send_bw");
        assertOneLine(run("ib_read_lat", "-b"), 1, "bidirectional is only available in BW tests", "ib_read_lat");
        assertOneLine(run("ib_write_bw", "-b", "-D", "4"), 1, "-b with -D", "ib_write_bw");
        assertOneLine(run("ib_read_bw", "-D", "5", "-e"), 1, "Duration mode doesn't work with events", "ib_read_bw");
        assertOneLine(run("ib_write_bw", "-D", "5", "-a"), 1, "cannot be combined with -a", "ib_write_bw");
        assertOneLine(run("ib_send_bw", "-c", "UC"), 1, "-c UC (RC or UD)", "ib_send_bw");
        assertOneLine(run("ib_send_lat", "-c", "UD", "-R"), 1, "-R with -c UD", "ib_send_lat");
    }
}
