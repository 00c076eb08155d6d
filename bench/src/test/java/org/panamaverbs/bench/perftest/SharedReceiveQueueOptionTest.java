package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * {@code --use-srq} without a device: only the SEND tools take it, perftest's own limits are refused in one line
 * before a peer is contacted, and the option reaches the session through the shared options.
 */
class SharedReceiveQueueOptionTest {
    @Test
    void onlyIbSendBwDeclaresIt() {
        CommandLine tools = Perftest.commandLine(null);
        assertTrue(tools.getSubcommands().get("ib_send_bw").getCommandSpec().findOption("--use-srq") != null);
        CommandLine parsed = new CommandLine(new SendBandwidth());
        parsed.parseArgs("--use-srq", "10.0.0.1");
        SendBandwidth tool = parsed.getCommand();
        assertTrue(tool.useSrq);
        assertFalse(tool.o.sharedReceiveQueue, "set by the tool when it runs, not by the parser");
    }

    /** ib_send_lat: both sides receive in a latency test, so both sides' sessions create an SRQ (perftest's srq_exists). */
    @Test
    void ibSendLatDeclaresItAndPassesItOnWhenItRuns() {
        CommandLine tools = Perftest.commandLine(null);
        assertTrue(tools.getSubcommands().get("ib_send_lat").getCommandSpec().findOption("--use-srq") != null);
        CommandLine parsed = new CommandLine(new Latency.Send());
        parsed.parseArgs("--use-srq", "10.0.0.1");
        Latency.Send tool = parsed.getCommand();
        assertTrue(tool.useSrq);
        assertFalse(tool.o.sharedReceiveQueue, "set by the tool when it runs, not by the parser");
        tool.validate();
        assertTrue(tool.o.sharedReceiveQueue);
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_lat", "--use-srq", "-R", "127.0.0.1"), 1,
                "--use-srq with -R", "ib_send_lat");
    }

    @Test
    void theOtherToolsRefuseItInOneLine() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_read_bw", "--use-srq", "127.0.0.1"), 1,
                "(C perftest has it on ib_send_bw, ib_send_lat only)", "ib_read_bw");
    }

    @Test
    void perftestsLimitsAreRefused() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--use-srq", "-q", "4", "-r", "2", "127.0.0.1"),
                1, "Using SRQ depth should be greater than number of QPs (-q 4, -r 2", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--use-srq", "-R", "127.0.0.1"), 1,
                "--use-srq with -R", "ib_send_bw");
    }
}
