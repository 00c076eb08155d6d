package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * {@code --mr_per_qp}, {@code --recv_post_list} and {@code --write_with_imm} without a device: which tools take them,
 * perftest's checks of them, and the combinations refused in one line before any peer is contacted.
 */
class MrPerQpAndReceiveOptionsTest {
    @Test
    void mrPerQpIsASharedOptionOfTheBandwidthTools() {
        for (String tool : new String[] {"ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_atomic_bw"}) {
            CommandLine cli = Perftest.commandLine(null).getSubcommands().get(tool);
            assertFalse(cli.getCommandSpec().findOption("--mr_per_qp").hidden(), tool);
        }
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs("--mr_per_qp", "-q", "2", "10.0.0.1");
        assertTrue(options.mrPerQp);
        assertEquals(2, options.queuePairs);
    }

    @Test
    void recvPostListIsIbSendBwsAndReachesTheSessionWhenItRuns() {
        CommandLine parsed = new CommandLine(new SendBandwidth());
        parsed.parseArgs("--recv_post_list", "4", "10.0.0.1");
        SendBandwidth tool = parsed.getCommand();
        assertEquals(4, tool.recvPostList);
        assertEquals(1, tool.o.recvPostList, "set by the tool when it runs, not by the parser");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--recv_post_list", "4", "127.0.0.1"), 1,
                "--recv_post_list is refused: only ib_send_bw posts receives");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_lat", "--recv_post_list", "4", "127.0.0.1"), 1,
                "(C perftest has it on ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw only)", "ib_send_lat");
    }

    @Test
    void perftestsChecksOfTheReceiveListAreMade() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--recv_post_list", "3", "-n", "200",
                "127.0.0.1"), 1, "Number of iterations must be a multiple of receive post list size (-n 200,"
                        + " --recv_post_list 3", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--recv_post_list", "8", "-r", "4",
                "127.0.0.1"), 1, "--recv_post_list 8 is above the receive depth (-r 4)", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--recv_post_list", "0", "127.0.0.1"), 1,
                "--recv_post_list must be at least 1, not 0", "ib_send_bw");
        // -D counts no iterations: any list size goes, as in perftest; an SRQ's share per queue pair must hold a list
        SendBandwidth.checkRecvPostList(3, 200, true, 512);
        assertThrows(PerftestException.class, () -> SendBandwidth.checkRecvPostList(4, 200, false, 2));
    }

    @Test
    void writeWithImmIsTheWriteToolsAlone() {
        CommandLine parsed = new CommandLine(new RdmaBandwidth.Write());
        parsed.parseArgs("--write_with_imm", "10.0.0.1");
        RdmaBandwidth.Write tool = parsed.getCommand();
        assertTrue(tool.withImmediate());
        assertFalse(new RdmaBandwidth.Read().withImmediate());
        assertTrue(Perftest.commandLine(null).getSubcommands().get("ib_write_lat").getCommandSpec()
                .findOption("--write_with_imm") != null); // LatencyOptionsTest: what it does there
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_read_bw", "--write_with_imm", "127.0.0.1"), 1,
                "(C perftest has it on ib_write_bw, ib_write_lat only)", "ib_read_bw");
    }

    @Test
    void writeWithImmRefusesWhatItDoesNotImplementInOneLine() {
        for (String[] flags : new String[][] {{"-b"}, {"-D", "2"}, {"--run_infinitely"}, {"-a"}, {"--reversed"}}) {
            String[] args = new String[flags.length + 2];
            args[0] = "ib_write_bw";
            args[1] = "--write_with_imm";
            System.arraycopy(flags, 0, args, 2, flags.length);
            String[] withServer = java.util.Arrays.copyOf(args, args.length + 1);
            withServer[args.length] = "127.0.0.1";
            CommandLineTest.assertOneLine(CommandLineTest.run(withServer), 1, "--write_with_imm with " + flags[0]);
        }
    }
}
