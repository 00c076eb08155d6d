package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.RecvWorkRequests;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WorkCompletions;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code ib_send_bw} over RC, wire-compatible with perftest 4.5 ({@code send_bw.c}): the client sends, the server
 * keeps {@code -r} receives posted and reposts each one as it completes; both print their own result line (the
 * server's peak is 0, as perftest's, which measures no peak on the receiving side), and no report is exchanged.
 */
@Command(name = "ib_send_bw", mixinStandardHelpOptions = true, sortOptions = false,
        description = "SEND bandwidth, client/server, wire-compatible with perftest's ib_send_bw.")
public final class SendBandwidth implements Callable<Integer> {
    static final String TOOL = "ib_send_bw";

    @Mixin
    PerftestOptions o;
    private final PrintStream out = System.out;

    @Override
    public Integer call() {
        o.validate(RdmaBandwidth.DEFAULT_SIZE);
        o.refuseUnimplemented(TOOL);
        PerftestOptions.refuse(TOOL, o.bidirectional, "-b (bidirectional; ib_write_bw and ib_read_bw have it)");
        PerftestOptions.refuse(TOOL, o.duration != null, "-D (duration; ib_write_bw and ib_read_bw have it)");
        PerftestOptions.refuse(TOOL, o.histogram, "-H (a latency histogram; this is a bandwidth test)");
        PerftestOptions.refuse(TOOL, o.allSizes, "-a (every size)");
        PerftestOptions.refuse(TOOL, o.loopback, "--loopback");
        int iterations = o.iterations != null ? o.iterations : RdmaBandwidth.DEFAULT_ITERATIONS;
        int txDepth = Math.min(o.txDepth != null ? o.txDepth : RdmaBandwidth.DEFAULT_TX_DEPTH, iterations);
        int rxDepth = PerftestOptions.sendRxDepth(o.rxDepth, iterations);
        long size = o.size != null ? o.size : RdmaBandwidth.DEFAULT_SIZE;
        o.checkPostList(iterations, txDepth, out);
        try (PerftestSession s = new PerftestSession(o, "Send BW", true, true, size, txDepth, rxDepth, false,
                out, Access.LOCAL_WRITE)) {
            // send_bw.c: addresses, connect, handshake, local, remote, the header; the server posts its receives;
            // a handshake so no send comes before them; the run; each side's own line; close
            s.exchangeAddress();
            s.connect();
            s.handshake("handshake after connect");
            s.printLocal();
            s.handshakeAndPrintRemote();
            s.printBandwidthHeader();
            List<BandwidthReport> reports = new ArrayList<>();
            if (s.wire.isClient()) {
                s.handshake("handshake before the run", s.runTimeout());
                try (RdmaRun run = new RdmaRun(s.qp, WrOpcode.SEND, s.cq, s.buffer, 0, 0, 0, txDepth,
                        o.cqModeration(), s.cycleBuffer, s.cacheLine, o.postList, o.inlineSize(), o.events)) {
                    run.addressing(s::address);
                    reports.add(run.execute(iterations, (int) size).report(size, o.reportGbits));
                }
            } else {
                try (RecvWorkRequests recvs = RecvWorkRequests.allocate(1, 1); WorkCompletions wcs = WorkCompletions.allocate(16)) {
                    recvs.get(0).sge(s.buffer, s.half, s.receiveLength(size));
                    for (int i = 0; i < s.qp.capabilities().maxRecvWr(); i++) {
                        Completions.check(s.qp.postRecv(recvs, 1), "ibv_post_recv", i);
                    }
                    s.handshake("handshake before the run");
                    reports.add(receive(s, recvs, wcs, iterations, size));
                }
            }
            out.println(reports.getFirst().line(o.reportGbits));
            out.println(BandwidthReport.RESULT_LINE);
            s.wire.closeConnection(s.mine, s.runTimeout());
            if (o.json) {
                out.println(Json.bandwidth(TOOL, s.wire.isClient() ? "client" : "server", s.context.name(), s.pathMtu.bytes(), o, reports));
            }
            out.flush();
        }
        return 0;
    }

    /** {@code run_iter_bw_server}: counts receives, reposting each; times the first and the end. */
    private BandwidthReport receive(PerftestSession s, RecvWorkRequests recvs, WorkCompletions wcs, int iterations,
            long size) {
        long first = 0;
        int received = 0;
        int posted = s.qp.capabilities().maxRecvWr();
        long deadline = System.nanoTime() + s.runTimeout().toNanos();
        int spins = 0;
        while (received < iterations) {
            int n = Completions.reap(s.recvCq, wcs, o.events);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, "receive " + (received + 1));
                }
                if (received++ == 0) {
                    first = System.nanoTime();
                }
                if (posted < iterations) { // as perftest: only as many receives as messages will come
                    Completions.check(s.qp.postRecv(recvs, 1), "ibv_post_recv", received);
                    posted++;
                }
            }
            if (n == 0 && ((++spins & 0x3ff) == 0 || o.events) && System.nanoTime() - deadline > 0) {
                throw new PerftestException("only " + received + " of " + iterations + " messages arrived within "
                        + s.runTimeout().toSeconds() + " s");
            }
        }
        long end = System.nanoTime();
        double factor = o.reportGbits ? BandwidthReport.GBITS_FACTOR : BandwidthReport.MBYTES_FACTOR;
        double seconds = (end - first) / 1e9;
        return new BandwidthReport(size, iterations, 0, size * (double) iterations / seconds / factor,
                iterations / seconds / 1e6);
    }
}
