package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ib_send_bw} over RC, wire-compatible with perftest 4.5 to 26.04 ({@code send_bw.c}): the client sends, the server
 * keeps {@code -r} receives posted and reposts each one as it completes; both print their own result line (the
 * server's peak is 0, as perftest's, which measures no peak on the receiving side), and no report is exchanged.
 */
@Command(name = "ib_send_bw", mixinStandardHelpOptions = true, sortOptions = false,
        description = "SEND bandwidth, client/server, wire-compatible with perftest's ib_send_bw.")
public final class SendBandwidth implements Callable<Integer> {
    static final String TOOL = "ib_send_bw";

    @Mixin
    PerftestOptions o;
    private final PrintStream stdout = System.out;
    /** stdout, or nowhere with --output (set by call) */
    private PrintStream out = stdout;
    /** --out_json's file, or null (set by call) */
    private PerftestJsonFile jsonFile;
    /** -w and -y (set by call) */
    private VerifierLimits limits;
    @Option(names = "--use-srq", description = "the server's queue pairs draw their receives from one shared receive"
            + " queue of -r receives, each a whole number of MTUs long (as perftest)")
    boolean useSrq;

    /** perftest's {@code MIN_SRQ_UD_RX_DEPTH}: the receives of a UD test with an SRQ and no more iterations. */
    static final int MIN_SRQ_UD_RX_DEPTH = 100;

    @Override
    public Integer call() {
        o.validate(RdmaBandwidth.DEFAULT_SIZE);
        limits = new VerifierLimits(o);
        o.refuseUnimplemented(TOOL);
        o.checkBandwidthOutput();
        out = o.verbose(stdout);
        PerftestOptions.refuse(TOOL, o.bidirectional, "-b (bidirectional; ib_write_bw, ib_read_bw and ib_atomic_bw have it)");
        PerftestOptions.refuse(TOOL, o.reportBoth, "--report-both (it reports -b's two directions; ib_write_bw,"
                + " ib_read_bw and ib_atomic_bw have it)");
        PerftestOptions.refuse(TOOL, o.duration != null, "-D (duration; ib_write_bw, ib_read_bw and ib_atomic_bw have it)");
        PerftestOptions.refuse(TOOL, o.runInfinitely, "--run_infinitely (ib_write_bw, ib_read_bw and ib_atomic_bw"
                + " have it)");
        PerftestOptions.refuse(TOOL, o.histogram, "-H (a latency histogram; this is a bandwidth test)");
        if (o.unsorted) {
            throw new PerftestException("-U is Available only on Latency tests (as perftest)");
        }
        if (o.latencyGapMicros > 0) {
            throw new PerftestException("--latency_gap: Latency gap feature is only for latency tests (as perftest)");
        }
        PerftestOptions.refuse(TOOL, o.loopback, "--loopback");
        int iterations = o.iterations != null ? o.iterations : PerftestOptions.DEFAULT_ITERATIONS;
        int txDepth = Math.min(o.txDepth != null ? o.txDepth : RdmaBandwidth.DEFAULT_TX_DEPTH, iterations);
        int rxDepth = PerftestOptions.sendRxDepth(o.rxDepth, iterations);
        o.sharedReceiveQueue = useSrq;
        if (useSrq) {
            PerftestOptions.refuse(TOOL, o.rdmaCm, "--use-srq with -R");
            if (o.isUd() && iterations <= MIN_SRQ_UD_RX_DEPTH) { // perftest's force_dependecies
                rxDepth = MIN_SRQ_UD_RX_DEPTH;
            }
            if (o.queuePairs > rxDepth) {
                throw new PerftestException("Using SRQ depth should be greater than number of QPs (-q " + o.queuePairs
                        + ", -r " + rxDepth + "; as perftest)");
            }
        }
        long largest = o.bufferMessageSize(RdmaBandwidth.DEFAULT_SIZE);
        o.checkPostList(iterations, txDepth, out);
        try (PerftestSession s = new PerftestSession(o, "Send BW", true, true, largest, iterations, txDepth, rxDepth, false,
                -1, out, Access.LOCAL_WRITE)) {
            // send_bw.c: addresses, connect, handshake, local, remote, the header; the server posts its receives;
            // a handshake so no send comes before them; the run; each side's own line; close
            s.exchangeAddress();
            s.connect();
            s.handshake("handshake after connect");
            s.printLocal();
            s.handshakeAndPrintRemote();
            s.printBandwidthHeader();
            jsonFile = PerftestJsonFile.of(o, s);
            List<BandwidthReport> reports = new ArrayList<>();
            // send_bw.c's RUN_ALL: per size, the server posts its receives, a handshake, the run, the line, and
            // one more handshake so no send of the next size comes before its receives; a single size has no
            // handshake after the run
            long[] sizes = o.allSizes ? s.allSizes() : new long[] {o.size != null ? o.size : RdmaBandwidth.DEFAULT_SIZE};
            if (o.isClient()) { // the sender: the side given the address, or with --reversed the other
                try (RdmaRun run = new RdmaRun(WrOpcode.SEND, s.lanes(), s.cq, s.buffer, txDepth,
                        o.cqModeration(), s.cycleBuffer, s.cacheLine, o.postList, o.inlineSize(), o.events)) {
                    run.addressing(s::address);
                    for (long size : sizes) {
                        s.handshake("handshake before the run", s.runTimeout());
                        reports.add(printed(run.execute(iterations, (int) size).report(size, o.reportGbits, o.noPeak)));
                        if (o.allSizes) {
                            s.handshake("handshake after the run", s.runTimeout());
                        }
                    }
                }
            } else {
                // one receive chain per queue pair, into the slot offered for it
                List<RecvChain> recvs = new ArrayList<>();
                try (CompletionArray wcs = CompletionArray.allocate(16)) {
                    for (int q = 0; q < s.qps.size(); q++) {
                        recvs.add(RecvChain.allocate(1, 1));
                    }
                    for (long size : sizes) {
                        for (int q = 0; q < s.qps.size(); q++) {
                            // wr_id: the queue pair the receive is for, which with an SRQ may not be the one it serves
                            RecvChain chain = recvs.get(q);
                            chain.get(0).sge(s.buffer, s.half + q * s.slot, s.receiveLength(size)).wrId(q);
                            for (int i = 0; i < initialReceives(s, q, rxDepth); i++) {
                                Completions.check(s.srq != null ? s.srq.postRecv(chain, 1)
                                        : s.qps.get(q).postRecv(chain, 1), "ibv_post_recv", i);
                            }
                        }
                        s.handshake("handshake before the run", s.runTimeout());
                        reports.add(printed(receive(s, recvs, wcs, iterations, size, rxDepth)));
                        if (o.allSizes) {
                            s.handshake("handshake after the run", s.runTimeout());
                        }
                    }
                } finally {
                    recvs.forEach(RecvChain::close);
                }
            }
            out.println(BandwidthReport.RESULT_LINE);
            s.wire.closeConnection(s.mine, s.runTimeout());
            String failure = limits.failure(); // both sides, after the connection is closed, as send_bw.c
            if (o.json) {
                stdout.println(Json.bandwidth(TOOL, o.isClient() ? "client" : "server", s.context.name(), s.pathMtu.bytes(), o, reports));
            }
            out.flush();
            o.waitBeforeDestroy(stdout); // perftest's destroy_ctx, after the limits' check, before the failure
            if (failure != null) {
                throw new PerftestException(failure);
            }
        }
        return 0;
    }

    /** Prints a size's result line as soon as it is known (perftest prints each size as it finishes). */
    private BandwidthReport printed(BandwidthReport report) {
        limits.count(report);
        if (jsonFile != null) { // as perftest's print_full_bw_report: the file first, then the line
            jsonFile.write(report);
        }
        stdout.println(o.bandwidthResult(report));
        stdout.flush();
        return report;
    }

    /**
     * {@code run_iter_bw_server}: counts the receives of every queue pair ({@code iterations} each), reposting on
     * the queue pair a receive came from while more messages will come to it; times the first and the end.
     */
    private BandwidthReport receive(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, int iterations,
            long size, int rxDepth) {
        int queuePairs = s.qps.size();
        long total = (long) iterations * queuePairs;
        long[] posted = new long[queuePairs];
        for (int q = 0; q < queuePairs; q++) {
            posted[q] = initialReceives(s, q, rxDepth);
        }
        long first = 0;
        long received = 0;
        long deadline = System.nanoTime() + s.runTimeout().toNanos();
        int spins = 0;
        while (received < total) {
            int n = Completions.reap(s.recvCq, wcs, o.events);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, "receive " + (received + 1));
                }
                if (received++ == 0) {
                    first = System.nanoTime();
                }
                // with an SRQ the receive's own queue pair (its wr_id) gets it back, as perftest's rwr[wr_id]
                int q = s.srq != null ? (int) wc.wrId() : queuePairOf(s, wc.qpNumber());
                if (posted[q] < iterations) { // as perftest: only as many receives as messages will come
                    Completions.check(s.srq != null ? s.srq.postRecv(recvs.get(q), 1)
                            : s.qps.get(q).postRecv(recvs.get(q), 1), "ibv_post_recv", received);
                    posted[q]++;
                }
            }
            if (n == 0 && ((++spins & 0x3ff) == 0 || o.events) && System.nanoTime() - deadline > 0) {
                throw new PerftestException("only " + received + " of " + total + " messages arrived within "
                        + s.runTimeout().toSeconds() + " s");
            }
        }
        long end = System.nanoTime();
        double factor = o.reportGbits ? BandwidthReport.GBITS_FACTOR : BandwidthReport.MBYTES_FACTOR;
        double seconds = (end - first) / 1e9;
        return new BandwidthReport(size, total, 0, size * (double) total / seconds / factor, total / seconds / 1e6);
    }

    /**
     * The receives posted for queue pair {@code q} before the run: its receive queue's depth, or with an SRQ its
     * share of the SRQ's {@code rxDepth} (perftest's {@code rx_depth / num_of_qps}).
     */
    private static int initialReceives(PerftestSession s, int q, int rxDepth) {
        return s.srq != null ? rxDepth / s.qps.size() : s.qps.get(q).capabilities().maxRecvWr();
    }

    /** The index of the queue pair numbered {@code qpNumber}. */
    private static int queuePairOf(PerftestSession s, int qpNumber) {
        for (int q = 0; q < s.qps.size(); q++) {
            if (s.qps.get(q).qpNumber() == qpNumber) {
                return q;
            }
        }
        throw new PerftestException("a receive completed on queue pair " + qpNumber + ", not one of this test's");
    }
}
