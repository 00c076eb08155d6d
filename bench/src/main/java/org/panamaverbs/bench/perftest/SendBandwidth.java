package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.RecvChain;
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
    @Mixin
    Multicast multicast;
    @Mixin
    RateLimit rateLimit;
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

    @Option(names = "--recv_post_list", defaultValue = "1", paramLabel = "N",
            description = "the receiving side posts its receives in lists of N, one ibv_post_recv per list, and"
                    + " reposts a list once N of a queue pair's receives completed (default: ${DEFAULT-VALUE})")
    int recvPostList;

    @Option(names = "--send_with_imm", description = "SEND with immediate: each receive must complete with an"
            + " immediate (perftest 26; 4.5 and 25.01 lack it)")
    boolean sendWithImm;

    @Option(names = "--connectionless", description = "a multicast receiver with no peer: the server only, with -g,"
            + " -c UD and --run_infinitely, it joins the group and reports what arrives from the group's senders"
            + " without exchanging anything (perftest 25.01; 4.5 lacks it)")
    boolean connectionless;

    /** perftest's {@code MIN_SRQ_UD_RX_DEPTH}: the receives of a UD test with an SRQ and no more iterations. */
    static final int MIN_SRQ_UD_RX_DEPTH = 100;

    @Override
    public Integer call() {
        multicast.applyTo(o, TOOL, !o.isClient()); // the server receives
        if (connectionless && (o.isClient() || !o.multicast || !o.isUd() || !o.runInfinitely)) {
            throw new PerftestException("Using Connectionless server only available in Multicast, UD BW with RUN"
                    + " INFINITELY tests (--connectionless: the server side, with -g, -c UD and --run_infinitely; as"
                    + " perftest)");
        }
        o.connectionless = connectionless;
        o.validate(RdmaBandwidth.DEFAULT_SIZE);
        limits = new VerifierLimits(o);
        o.refuseUnimplemented(TOOL);
        o.checkBandwidthOutput();
        o.warnCpuUtilWithoutDuration(stdout, System.err);
        out = o.verbose(stdout);
        // perftest caps the queues at -n only when it counts iterations: -D runs for a time, --run_infinitely
        // without end (its -D is the period of its lines)
        boolean forever = o.runInfinitely;
        boolean timed = o.duration != null && !forever;
        boolean uncounted = timed || forever;
        PerftestOptions.refuse(TOOL, o.bidirectional && timed, "-b with -D (perftest's duplex SEND counts sends and"
                + " receives in one figure, which this ib_send_bw does not)");
        PerftestOptions.refuse(TOOL, o.bidirectional && o.events, "-b with -e");
        PerftestOptions.refuse(TOOL, o.bidirectional && o.reversed, "-b with --reversed");
        if (forever && o.bidirectional) {
            throw new PerftestException("run_infinitely mode is not supported in SEND Bidirectional BW test"
                    + " (--run_infinitely with -b; perftest refuses it too)");
        }
        PerftestOptions.refuse(TOOL, forever && o.reversed, "--run_infinitely with --reversed");
        PerftestOptions.refuse(TOOL, forever && o.rdmaCm, "--run_infinitely with -R");
        if (forever && !o.noPeak) { // perftest 25.01 and later say so as they parse the command line
            stdout.println(" WARNING: BW peak won't be measured in this run.");
        }
        PerftestOptions.refuse(TOOL, o.histogram, "-H (a latency histogram; this is a bandwidth test)");
        if (o.unsorted) {
            throw new PerftestException("-U is Available only on Latency tests (as perftest)");
        }
        if (o.latencyGapMicros > 0) {
            throw new PerftestException("--latency_gap: Latency gap feature is only for latency tests (as perftest)");
        }
        PerftestOptions.refuse(TOOL, o.loopback, "--loopback");
        int iterations = o.iterations != null ? o.iterations : PerftestOptions.DEFAULT_ITERATIONS;
        int txDepth = o.txDepth != null ? o.txDepth : RdmaBandwidth.DEFAULT_TX_DEPTH;
        int rxDepth = uncounted ? PerftestOptions.sendRxDepth(o.rxDepth, Integer.MAX_VALUE)
                : PerftestOptions.sendRxDepth(o.rxDepth, iterations);
        if (!uncounted) {
            txDepth = Math.min(txDepth, iterations);
        }
        RateLimit limiter = rateLimit.resolve(o, TOOL, false, true, txDepth, System.err);
        o.sharedReceiveQueue = useSrq;
        o.recvPostList = recvPostList;
        o.sendWithImm = sendWithImm;
        if (useSrq) {
            PerftestOptions.refuse(TOOL, o.rdmaCm, "--use-srq with -R");
            if (o.isUd() && iterations <= MIN_SRQ_UD_RX_DEPTH) { // perftest's force_dependecies
                rxDepth = MIN_SRQ_UD_RX_DEPTH;
            }
            if (o.queuePairCount() > rxDepth) {
                throw new PerftestException("Using SRQ depth should be greater than number of QPs (-q " + o.queuePairCount()
                        + ", -r " + rxDepth + "; as perftest)");
            }
        }
        // a queue pair's receives: its queue's depth, or its share of the SRQ's
        checkRecvPostList(recvPostList, iterations, uncounted, useSrq ? rxDepth / o.queuePairCount() : rxDepth);
        long largest = o.bufferMessageSize(RdmaBandwidth.DEFAULT_SIZE);
        o.checkPostList(iterations, txDepth, out);
        // perftest's testsStr[SEND_IMM]
        try (PerftestSession s = new PerftestSession(o, sendWithImm ? "Send_imm BW" : "Send BW", true, true, largest, iterations, txDepth, rxDepth, false,
                -1, out, Access.LOCAL_WRITE)) {
            // send_bw.c: addresses, connect, handshake, local, remote, the header; the server posts its receives;
            // a handshake so no send comes before them; the run; each side's own line; close
            if (connectionless) { // send_bw.c without a peer: ready to receive, its own address, the header
                s.connect();
                s.print.local();
            } else {
                s.exchangeAddress();
                s.connect();
                s.handshake("handshake after connect");
                s.print.local();
                s.print.handshakeAndRemote();
            }
            s.print.bandwidthHeader();
            jsonFile = PerftestJsonFile.of(o, s);
            List<BandwidthReport> reports = new ArrayList<>();
            // send_bw.c's RUN_ALL: per size, the server posts its receives, a handshake, the run, the line, and
            // one more handshake so no send of the next size comes before its receives; a single size has no
            // handshake after the run
            long[] sizes = o.allSizes ? s.allSizes()
                    : new long[] {s.runSize(o.size != null ? o.size : RdmaBandwidth.DEFAULT_SIZE)};
            if (o.bidirectional) {
                bidirectional(s, sizes, iterations, txDepth, rxDepth, reports);
            } else if (o.isClient()) { // the sender: the side given the address, or with --reversed the other
                try (RdmaRun run = new RdmaRun(o.sendOpcode(), s.lanes(), s.cq, txDepth,
                        o.cqModeration(), s.cycleBuffer, s.cacheLine, o.postList, o.inlineSize(), o.events)) {
                    run.pollBatch(o.pollBatch());
                    run.addressing(s::address);
                    run.limit(limiter);
                    if (forever) { // send_bw.c: the handshake, then a line per period until Ctrl-C
                        s.handshake("handshake before the run", s.runTimeout());
                        o.sendForever(run, (int) sizes[0], this::printed, stdout);
                        sizes = new long[0];
                    }
                    for (long size : sizes) {
                        s.handshake("handshake before the run", s.runTimeout());
                        reports.add(printed(timed
                                ? s.perPort(run.executeFor(Duration.ofSeconds(o.duration).toNanos(), o.marginNanos(),
                                        (int) size, o.reportGbits, o.cpuSampler()), run.sampledPerQueuePair())
                                : run.execute(iterations, (int) size).report(size, o.reportGbits, o.noPeak)));
                        if (o.allSizes) {
                            s.handshake("handshake after the run", s.runTimeout());
                        }
                    }
                }
            } else {
                // one receive chain per queue pair, into the slot offered for it
                try (SendReceiver.Chains chains = SendReceiver.Chains.allocate(s);
                        CompletionArray wcs = CompletionArray.allocate(o.pollBatch())) {
                    List<RecvChain> recvs = chains.each();
                    if (forever) { // run_iter_bw_infinitely_server: a line per period until a signal
                        SendReceiver.postReceives(s, recvs, sizes[0], rxDepth);
                        if (!connectionless) {
                            s.handshake("handshake before the run", s.runTimeout());
                        }
                        SendReceiver.receiveForever(s, recvs, wcs, sizes[0], this::printed, Interrupt.onSigint());
                        sizes = new long[0];
                    }
                    for (long size : sizes) {
                        SendReceiver.postReceives(s, recvs, size, rxDepth);
                        s.handshake("handshake before the run", s.runTimeout());
                        reports.add(printed(timed ? SendReceiver.receiveFor(s, recvs, wcs, size)
                                : SendReceiver.receive(s, recvs, wcs, iterations, size, rxDepth)));
                        if (o.allSizes) {
                            s.handshake("handshake after the run", s.runTimeout());
                        }
                    }
                }
            }
            out.println(o.bandwidthRule());
            // after --run_infinitely a side waits for the other's end as long as a socket can, as perftest's
            if (!connectionless) {
                s.wire.closeConnection(s.mine, forever ? RdmaBandwidth.FOREVER : s.runTimeout());
            }
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

    /**
     * {@code -b}, send_bw.c's duplex run: per size both sides post their receives, a handshake, then each sends
     * and receives in one loop ({@code run_iter_bi}; the server's first send waits for the client's first message),
     * the reports are exchanged and each side prints the two summed (with {@code --report-both} then its own and
     * the peer's), and with {@code -a} one more handshake.
     */
    private void bidirectional(PerftestSession s, long[] sizes, int iterations, int txDepth, int rxDepth,
            List<BandwidthReport> reports) {
        try (RdmaRun run = new RdmaRun(o.sendOpcode(), s.lanes(), s.cq, txDepth, o.cqModeration(),
                s.cycleBuffer, s.cacheLine, o.postList, o.inlineSize(), false);
                SendReceiver.Chains chains = SendReceiver.Chains.allocate(s);
                CompletionArray wcs = CompletionArray.allocate(o.pollBatch())) {
            run.pollBatch(o.pollBatch());
            run.addressing(s::address);
            List<RecvChain> recvs = chains.each();
            for (long size : sizes) {
                SendReceiver.postReceives(s, recvs, size, rxDepth);
                s.handshake("handshake before the bidirectional run", s.runTimeout());
                SendReceiver.Receives incoming = new SendReceiver.Receives(s, recvs, wcs, iterations, rxDepth, recvPostList, false);
                BandwidthReport mine = run.executeBidirectional(iterations, (int) size, incoming::poll,
                        incoming.total, !o.isClient()).report(size, o.reportGbits, o.noPeak);
                BandwidthReport theirs = RdmaBandwidth.exchangeReports(s, mine, s.runTimeout());
                reports.add(printed(mine.plus(theirs)));
                if (o.reportBoth && !o.allSizes) {
                    printSide("Local", mine);
                    printSide("Remote", theirs);
                }
                if (o.allSizes) {
                    s.handshake("handshake after the bidirectional run", s.runTimeout());
                }
            }
        }
    }

    /** {@code --report-both}'s part for one side: perftest's header and the side's own line (not verified by -w). */
    private void printSide(String side, BandwidthReport report) {
        stdout.println(BandwidthReport.RESULT_LINE);
        stdout.println();
        stdout.println(" " + side + " results: ");
        stdout.println(BandwidthReport.RESULT_LINE);
        stdout.println(o.bandwidthHeader());
        if (jsonFile != null) {
            jsonFile.write(report);
        }
        stdout.println(o.bandwidthResult(report));
        stdout.flush();
    }

    /**
     * perftest's checks of {@code --recv_post_list} (made on both sides, as perftest's parser makes them): whole
     * lists in a counted run, and room for a list in the receive queue (perftest would post none and wait).
     */
    static void checkRecvPostList(int recvPostList, int iterations, boolean timed, int rxDepth) {
        if (recvPostList < 1) {
            throw new PerftestException("--recv_post_list must be at least 1, not " + recvPostList);
        }
        if (!timed && iterations % recvPostList != 0) {
            throw new PerftestException("Number of iterations must be a multiple of receive post list size (-n "
                    + iterations + ", --recv_post_list " + recvPostList + "; as perftest)");
        }
        if (recvPostList > rxDepth) {
            throw new PerftestException("--recv_post_list " + recvPostList + " is above the receive depth (-r "
                    + rxDepth + "): not one list of receives would be posted");
        }
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

}
