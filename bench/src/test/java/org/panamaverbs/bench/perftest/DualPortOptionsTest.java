package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code -O} and {@code --report-per-port}: what perftest refuses with them, before any device opens. */
class DualPortOptionsTest {
    @Test
    void dualPortDoublesTheQueuePairs() {
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs("-O", "-q", "3");
        assertTrue(options.dualPort);
        assertEquals(6, options.queuePairCount());
        PerftestOptions single = new PerftestOptions();
        new CommandLine(single).parseArgs("-q", "3");
        assertEquals(3, single.queuePairCount());
        assertTrue(DualPort.onSecondPort(3, 6));
        assertFalse(DualPort.onSecondPort(2, 6));
    }

    @Test
    void theCombinationsPerftestRefusesAreRefusedInItsWords() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "-O", "-R", "127.0.0.1"), 1,
                "Perftest still doesn't support Dual Port with rdma_cm");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--report-per-port", "-O", "127.0.0.1"), 1,
                "report per port feature work only with Duration and Dualport");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--report-per-port", "-D", "4", "127.0.0.1"), 1,
                "report per port feature work only with Duration and Dualport");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_lat", "-O", "127.0.0.1"), 1,
                "Dual-port mode only supports BW tests", "ib_write_lat");
    }
}
