package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * The latency tools' {@code -C} and {@code ib_write_lat}'s {@code --write_with_imm} without a device: which tools
 * declare them, what reaches the session, and the one-line refusals elsewhere.
 */
class LatencyOptionsTest {
    @Test
    void theLatencyToolsDeclareMinusC() {
        CommandLine tools = Perftest.commandLine(null);
        for (String tool : new String[] {"ib_write_lat", "ib_read_lat", "ib_send_lat", "ib_atomic_lat"}) {
            assertTrue(tools.getSubcommands().get(tool).getCommandSpec().findOption("-C") != null, tool);
            assertTrue(tools.getSubcommands().get(tool).getCommandSpec().findOption("--report-cycles") != null, tool);
        }
        CommandLine parsed = new CommandLine(new Latency.Read());
        parsed.parseArgs("-C", "10.0.0.1");
        assertTrue(((Latency) parsed.getCommand()).reportCycles);
    }

    @Test
    void theBandwidthToolsRefuseMinusCInOneLine() {
        for (String tool : new String[] {"ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_atomic_bw"}) {
            CommandLineTest.assertOneLine(CommandLineTest.run(tool, "-C", "127.0.0.1"), 1,
                    "-C, --report-cycles is refused", tool);
        }
    }

    @Test
    void ibWriteLatDeclaresWriteWithImmAndPassesItOn() {
        CommandLine parsed = new CommandLine(new WriteLatency());
        parsed.parseArgs("--write_with_imm", "10.0.0.1");
        WriteLatency tool = parsed.getCommand();
        assertTrue(tool.writeWithImm);
        assertFalse(tool.o.writeWithImm, "set by the tool when it runs, not by the parser");
        tool.validate();
        assertTrue(tool.o.writeWithImm);
        assertEquals("RDMA_Write_imm Latency", tool.title()); // perftest's banner
        assertEquals("RDMA_Write Latency", new WriteLatency().title());
    }

    @Test
    void writeWithImmIsRefusedOnTheOtherTools() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_read_lat", "--write_with_imm", "127.0.0.1"), 1,
                "(C perftest has it on ib_write_bw, ib_write_lat only)", "ib_read_lat");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_lat", "--write_with_imm", "127.0.0.1"), 1,
                "--write_with_imm is refused: RDMA WRITE with immediate", "ib_send_lat");
    }
}
