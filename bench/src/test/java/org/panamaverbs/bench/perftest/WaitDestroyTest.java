package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code --wait_destroy}: perftest's line and sleep before the resources go, refused where it is not implemented. */
class WaitDestroyTest {
    private static String waited(String... args) {
        PerftestOptions options = new PerftestOptions();
        new CommandLine(options).parseArgs(args);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        options.waitBeforeDestroy(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void itSaysSoAndSleeps() {
        assertEquals("", waited(), "no wait without it");
        long start = System.nanoTime();
        assertEquals(" Waiting 1 seconds before releasing resources...\n", waited("--wait_destroy", "1"));
        assertTrue(System.nanoTime() - start >= 1_000_000_000L);
    }

    @Test
    void aNegativeWaitAndTheLatencyToolsAreRefused() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--wait_destroy", "-1", "127.0.0.1"), 1,
                "--wait_destroy must not be negative");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_lat", "--wait_destroy", "1", "127.0.0.1"), 1,
                "--wait_destroy", "ib_write_lat");
    }
}
