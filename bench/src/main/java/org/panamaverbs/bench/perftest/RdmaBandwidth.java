package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code ib_write_bw} and {@code ib_read_bw}: RDMA WRITE or READ bandwidth between a server and a client over RC,
 * wire-compatible with perftest 4.5 in both directions (a Java client against a C server and the reverse). The
 * client writes into (or reads from) the server's buffer {@code -n} times {@code -s} bytes (or every size with
 * {@code -a}) and prints perftest's result line; the server waits, receives the client's report and prints the
 * same line, as C's server does.
 */
abstract class RdmaBandwidth implements Callable<Integer> {
    static final long DEFAULT_SIZE = 65536;
    static final int DEFAULT_ITERATIONS = 5000;
    static final int DEFAULT_TX_DEPTH = 128;

    @Mixin
    PerftestOptions o;
    private final PrintStream out;
    private final String tool;
    private final WrOpcode opcode;
    private final String title;

    RdmaBandwidth(String tool, WrOpcode opcode, String title) {
        this.tool = tool;
        this.opcode = opcode;
        this.title = title;
        this.out = System.out;
    }

    /** {@code ib_write_bw}. */
    @Command(name = "ib_write_bw", mixinStandardHelpOptions = true, sortOptions = false,
            description = "RDMA WRITE bandwidth, client/server, wire-compatible with perftest's ib_write_bw.")
    public static final class Write extends RdmaBandwidth {
        public Write() {
            super("ib_write_bw", WrOpcode.RDMA_WRITE, "RDMA_Write BW");
        }
    }

    /** {@code ib_read_bw}. */
    @Command(name = "ib_read_bw", mixinStandardHelpOptions = true, sortOptions = false,
            description = "RDMA READ bandwidth, client/server, wire-compatible with perftest's ib_read_bw.")
    public static final class Read extends RdmaBandwidth {
        public Read() {
            super("ib_read_bw", WrOpcode.RDMA_READ, "RDMA_Read BW");
        }
    }

    @Override
    public Integer call() {
        o.validate(tool, DEFAULT_SIZE);
        o.refuseUnimplemented(tool);
        PerftestOptions.refuse(tool, o.histogram, "-H (a latency histogram; this is a bandwidth test)");
        int iterations = o.iterations != null ? o.iterations : DEFAULT_ITERATIONS;
        int txDepth = o.txDepth != null ? o.txDepth : DEFAULT_TX_DEPTH;
        long largest = o.bufferMessageSize(DEFAULT_SIZE);
        boolean read = opcode == WrOpcode.RDMA_READ;
        try (PerftestSession s = new PerftestSession(o, tool, title, true, false, largest, txDepth, 1, read, out,
                read ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_READ}
                        : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE})) {
            s.connectAndPrint();
            s.printBandwidthHeader();
            Duration timeout = o.timeout();
            List<BandwidthReport> reports = new ArrayList<>();
            if (!s.wire.isClient()) {
                // the server only waits for the client's run, then prints the client's report
                s.handshake("end-of-run handshake", s.runTimeout());
                BandwidthReport theirs = exchangeReports(s, new BandwidthReport(0, 0, 0, 0, 0), timeout);
                out.println(theirs.line(o.reportGbits));
                reports.add(theirs);
                s.wire.closeConnection(s.mine, timeout);
                out.println(BandwidthReport.RESULT_LINE);
            } else {
                try (RdmaRun run = new RdmaRun(s.qp, opcode, s.cq, s.buffer, 0, s.peer.vaddr(), s.peer.rkey(), txDepth,
                        o.cqModeration, s.cycleBuffer, s.cacheLine)) {
                    long[] sizes = o.allSizes ? allSizes() : new long[] {o.size != null ? o.size : DEFAULT_SIZE};
                    for (long size : sizes) {
                        int warmup = o.warmup < 0 ? iterations : o.warmup;
                        if (warmup > 0) {
                            run.execute(warmup, (int) size);
                        }
                        BandwidthReport report = run.execute(iterations, (int) size).report(size, o.reportGbits);
                        out.println(report.line(o.reportGbits));
                        out.flush();
                        reports.add(report);
                    }
                }
                out.println(BandwidthReport.RESULT_LINE);
                s.handshake("end-of-run handshake");
                exchangeReports(s, reports.getLast(), timeout);
                s.wire.closeConnection(s.mine, timeout);
            }
            if (o.json) {
                out.println(Json.bandwidth(tool, s, o, reports));
            }
            out.flush();
        }
        return 0;
    }

    /** perftest's {@code xchg_bw_reports}: size, iterations (u64), peak, average, message rate, each its own exchange. */
    static BandwidthReport exchangeReports(PerftestSession s, BandwidthReport mine, Duration timeout) {
        long size = s.wire.exchangeLong("report: size", mine.size(), timeout);
        long iterations = s.wire.exchangeLong("report: iterations", mine.iterations(), timeout);
        double peak = Double.longBitsToDouble(s.wire.exchangeLong("report: peak", Double.doubleToRawLongBits(mine.peak()), timeout));
        double average = Double.longBitsToDouble(s.wire.exchangeLong("report: average", Double.doubleToRawLongBits(mine.average()), timeout));
        double rate = Double.longBitsToDouble(s.wire.exchangeLong("report: message rate", Double.doubleToRawLongBits(mine.messageRate()), timeout));
        return new BandwidthReport(size, iterations, peak, average, rate);
    }

    /** The sizes of {@code -a}: 2, 4, ... 2^23, as perftest's {@code RUN_ALL}. */
    static long[] allSizes() {
        long[] sizes = new long[23];
        for (int i = 1; i < 24; i++) {
            sizes[i - 1] = 1L << i;
        }
        return sizes;
    }
}
