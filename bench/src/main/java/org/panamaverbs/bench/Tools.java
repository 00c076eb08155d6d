package org.panamaverbs.bench;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.panamaverbs.bench.perftest.Perftest;
import org.panamaverbs.bench.report.DeviceReport;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaUnavailableException;

/**
 * The bench jar's entry point, so that the tools run as {@code java -jar panama-verbs-bench.jar TOOL [options]} on
 * any Linux with a JDK 22+ and the distribution's rdma-core (the manifest enables native access; nothing else is
 * needed): {@code write-bw}, {@code cmtime}, {@code cmscale}, {@code perftest TOOL} (or the perftest tool's own name, e.g. {@code ib_send_lat}),
 * {@code device-report} and {@code rdma-core}. Any other first argument goes to JMH's own main, as before this
 * class existed ({@code java -jar panama-verbs-bench.jar 'DataPathCritical.*' -f 1 ...}), and {@code jmh} names it
 * explicitly.
 */
public final class Tools {
    /** perftest's tool names, accepted as the first argument on their own. */
    static final Set<String> PERFTEST_TOOLS = Set.of("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat",
            "ib_read_lat", "ib_send_lat");

    private Tools() {
    }

    public static void main(String[] args) throws Exception {
        Integer exit = run(System.out, args);
        if (exit == null) {
            org.openjdk.jmh.Main.main(args.length > 0 && args[0].equals("jmh") ? rest(args) : args);
        } else {
            System.exit(exit);
        }
    }

    /**
     * Runs the tool {@code args} name, printing to {@code out} (the tools print their own errors on stderr).
     *
     * @return the tool's exit code, or null when {@code args} are for JMH
     */
    static Integer run(PrintStream out, String... args) {
        String tool = args.length == 0 ? "--help" : args[0];
        if (PERFTEST_TOOLS.contains(tool)) {
            return Perftest.run(args);
        }
        return switch (tool) {
            case "write-bw" -> WriteBw.run(rest(args));
            case "cmtime" -> CmTime.run(rest(args));
            case "cmscale" -> CmScale.run(rest(args));
            case "perftest" -> Perftest.run(rest(args));
            case "device-report" -> DeviceReport.run(new java.io.PrintWriter(out, true),
                    new java.io.PrintWriter(System.err, true), rest(args));
            case "rdma-core" -> rdmaCore(out);
            case "--help", "help" -> {
                out.print(usage());
                yield 0;
            }
            default -> null;
        };
    }

    /** Prints the rdma-core this process loaded, with any fallback it takes; exit 1 with one line if none loads. */
    private static int rdmaCore(PrintStream out) {
        try {
            out.println(Rdma.rdmaCore());
            return 0;
        } catch (RdmaUnavailableException | UnsupportedOperationException e) {
            System.err.println("rdma-core: " + e.getMessage());
            return 1;
        }
    }

    static String usage() {
        return String.join("\n", List.of(
                "Usage: java -jar panama-verbs-bench.jar TOOL [options]      (JDK 22 or later; TOOL --help for its options)",
                "  write-bw [ib_write_bw options]   RDMA WRITE bandwidth between two queue pairs of one device (loopback)",
                "  perftest TOOL [flags] [SERVER]   perftest's tools in Java, wire-compatible with C perftest:",
                "                                   " + String.join(", ", PERFTEST_TOOLS.stream().sorted().toList())
                        + " (also as the first argument)",
                "  cmtime [-s SERVER] [-c N] ...    rdma_cm connection setup, step by step (rdmacm-utils' cmtime)",
                "  cmscale server|client ...        one thread holding thousands of rdma_cm connections (bench/cm-scale)",
                "  device-report [options]          what each RDMA device allows a Panama Verbs program",
                "  rdma-core                        the rdma-core (libibverbs) this JVM loads, and the fallbacks it takes",
                "  jmh [JMH options]                the JMH benchmarks (any other first argument goes to JMH too)",
                ""));
    }

    private static String[] rest(String[] args) {
        return Arrays.copyOfRange(args, 1, args.length);
    }
}
