package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code --data_validation}: what perftest 26.04 refuses with it, before any device opens, in its words. */
class DataValidationOptionsTest {
    private static void refused(String tool, String expected, String... args) {
        String[] line = new String[args.length + 3];
        line[0] = tool;
        line[1] = "--data_validation";
        System.arraycopy(args, 0, line, 2, args.length);
        line[line.length - 1] = "127.0.0.1";
        CommandLineTest.assertOneLine(CommandLineTest.run(line), 1, expected, tool);
    }

    @Test
    void theCombinationsPerftestRefuses() {
        refused("ib_write_bw", "--data_validation is incompatible with --post_list > 1", "-l", "4");
        refused("ib_write_bw", "--data_validation is incompatible with --run_infinitely", "--run_infinitely");
        refused("ib_read_bw", "--data_validation is incompatible with --mr_per_qp", "--mr_per_qp");
        refused("ib_write_bw", "--data_validation is incompatible with -a (run all sizes)", "-a");
        refused("ib_write_bw", "--data_validation is incompatible with --use-null-mr", "--use-null-mr");
        refused("ib_write_bw", "--data_validation requires tx_depth >= 32 (use -t)", "-t", "16");
        // perftest cuts the send queue to -n first, so a short run is refused too
        refused("ib_read_bw", "--data_validation requires tx_depth >= 32 (use -t)", "-n", "20");
        refused("ib_write_bw", "--data_validation is only supported with WRITE or READ verb", "--write_with_imm");
        refused("ib_atomic_bw", "--data_validation is only supported with WRITE or READ verb");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_atomic_bw", "--data_validation_debug", "127.0.0.1"), 1,
                "--data_validation_debug is only supported with WRITE or READ verb", "ib_atomic_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--data_validation", "127.0.0.1"), 1,
                "--data_validation is refused: perftest checks the bytes of WRITE and READ tests only", "ib_send_bw");
    }

    @Test
    void whatTheJavaToolsDoNotCombineWithIt() {
        refused("ib_write_bw", "--data_validation with --loopback is not implemented", "--loopback");
        CommandLineTest.Outcome outcome = CommandLineTest.run("ib_write_bw", "--data_validation", "--loopback");
        assertEquals(1, outcome.exit());
        assertTrue(outcome.err().contains("--loopback"), outcome.err());
    }
}
