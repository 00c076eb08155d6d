package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code -O} and {@code --report-per-port} end to end: a server and a client process of the Java tool on the stand-in
 * libibverbs (src/test/c/stand-in, built by scripts/lib/panama-verbs.sh's pv_build_stand_in), whose "stub0" has two
 * ports and completes every request at once.
 * rxe and PVRDMA have one port per device, so this is where the second port's queue pairs, addresses and counts run.
 */
class DualPortStandInTest {
    private static final Path DIRECTORY = Path.of("target/stand-in");

    @BeforeAll
    static void buildTheStandIn() throws Exception {
        boolean required = Boolean.parseBoolean(System.getProperty("panamaverbs.requireTools"))
                || Boolean.parseBoolean(System.getenv("PANAMA_VERBS_REQUIRE_TOOLS"));
        boolean present = Files.exists(Path.of("/usr/include/infiniband/verbs.h")) && onPath("cc");
        String missing = "a C compiler (cc: Debian/Ubuntu gcc) and rdma-core's headers (libibverbs-dev) are needed to"
                + " build the stand-in";
        if (!present && required) {
            throw new AssertionError(missing);
        }
        assumeTrue(present, missing);
        // the project's own build of it (scripts/lib/panama-verbs.sh), run from the repository's root
        Process build = new ProcessBuilder("bash", "-c", ". scripts/lib/panama-verbs.sh && pv_build_stand_in bench/"
                + DIRECTORY).directory(Path.of("..").toFile()).redirectErrorStream(true).start();
        String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(build.waitFor(120, TimeUnit.SECONDS) && build.exitValue() == 0, output);
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code ib_write_bw -O -q 2 -D 2 --report-per-port}: four queue pairs, the last two on port 2 with its GID; the
     * client's line has the per-port columns, each port half the total (two queue pairs each, the same load), and the
     * server prints the client's report, the per-port figures exchanged after the totals.
     */
    @Test
    void writeBandwidthRunsHalfItsQueuePairsOnPortTwoAndReportsEachPort() throws Exception {
        int port = 20000 + ThreadLocalRandom.current().nextInt(10000);
        List<String> flags = List.of("ib_write_bw", "-d", "stub0", "-x", "0", "-O", "-q", "2", "-D", "2",
                "--report-per-port", "-p", Integer.toString(port));
        Process server = tool(flags);
        Thread.sleep(1500); // the server listens before its banner; the client retries its connect for a while too
        List<String> clientFlags = new ArrayList<>(flags);
        clientFlags.add("127.0.0.1");
        Process client = tool(clientFlags);
        String clientOut = finish(client);
        String serverOut = finish(server);

        assertTrue(clientOut.contains(" Dual-port       : ON"), clientOut);
        assertTrue(clientOut.contains(" Number of qps   : 4"), clientOut);
        assertTrue(clientOut.contains(" GID index2      : 0"), clientOut);
        assertTrue(clientOut.contains("-".repeat(163)), clientOut);
        assertTrue(clientOut.contains("BW Port1[MiB/sec]   MsgRate Port1[Mpps]   BW Port2[MiB/sec]   MsgRate Port2[Mpps]"),
                clientOut);
        // both sides' addresses: two queue pairs on port 1 (LID 1, GID ...:94:237), two on port 2 (LID 2, ...:94:238)
        for (String side : List.of("local", "remote")) {
            assertEquals(2, count(clientOut, " " + side + " address: LID 0x01 "), clientOut);
            assertEquals(2, count(clientOut, " " + side + " address: LID 0x02 "), clientOut);
        }
        assertEquals(4, count(clientOut, ":00:94:238\n"), clientOut);
        double[] mine = resultFigures(clientOut);
        double[] theirs = resultFigures(serverOut);
        assertEquals(8, mine.length, clientOut);
        assertTrue(mine[3] > 0, clientOut);
        // iterations, peak, average, rate, then port 1's average and rate, port 2's
        assertEquals(mine[2], mine[4] + mine[6], mine[2] * 1e-5 + 0.02, "average = port 1 + port 2: " + clientOut);
        assertEquals(mine[3], mine[5] + mine[7], mine[3] * 1e-5 + 2e-6, "message rate = port 1 + port 2: " + clientOut);
        assertEquals(mine[5], mine[7], mine[3] * 0.2, "two queue pairs on each port, the same load: " + clientOut);
        for (int i = 0; i < mine.length; i++) {
            assertEquals(mine[i], theirs[i], Math.abs(mine[i]) * 1e-5 + 0.01, "the server prints the client's report: "
                    + serverOut);
        }
    }

    /** The numbers of the tool's result line: #bytes, #iterations, peak, average, rate, then the ports' four. */
    private static double[] resultFigures(String output) {
        for (String line : output.lines().toList()) {
            String[] words = line.trim().split("\\s+");
            if (words.length == 9 && words[0].equals("65536")) {
                double[] figures = new double[8];
                for (int i = 1; i < 9; i++) {
                    figures[i - 1] = Double.parseDouble(words[i]);
                }
                return figures;
            }
        }
        return new double[0];
    }

    private static int count(String text, String what) {
        return text.split(java.util.regex.Pattern.quote(what), -1).length - 1;
    }

    private static Process tool(List<String> args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", classPath,
                Perftest.class.getName()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        String inherited = System.getenv("LD_LIBRARY_PATH");
        builder.environment().put("LD_LIBRARY_PATH", DIRECTORY.toAbsolutePath()
                + (inherited == null ? "" : ":" + inherited));
        return builder.start();
    }

    private static String finish(Process process) throws Exception {
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        assertTrue(ended, "the tool did not end within a minute: " + output);
        assertEquals(0, process.exitValue(), output.toLowerCase(Locale.ROOT));
        return output;
    }
}
