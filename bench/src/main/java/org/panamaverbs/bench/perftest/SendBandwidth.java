package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

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

    @Option(names = "--recv_post_list", defaultValue = "1", paramLabel = "N",
            description = "the receiving side posts its receives in lists of N, one ibv_post_recv per list, and"
                    + " reposts a list once N of a queue pair's receives completed (default: ${DEFAULT-VALUE})")
    int recvPostList;

    /** perftest's {@code MIN_SRQ_UD_RX_DEPTH}: the receives of a UD test with an SRQ and no more iterations. */
    static final int MIN_SRQ_UD_RX_DEPTH = 100;

    @Override
    public Integer call() {
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
        o.sharedReceiveQueue = useSrq;
        o.recvPostList = recvPostList;
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
        // a queue pair's receives: its queue's depth, or its share of the SRQ's
        checkRecvPostList(recvPostList, iterations, uncounted, useSrq ? rxDepth / o.queuePairs : rxDepth);
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
            if (o.bidirectional) {
                bidirectional(s, sizes, iterations, txDepth, rxDepth, reports);
            } else if (o.isClient()) { // the sender: the side given the address, or with --reversed the other
                try (RdmaRun run = new RdmaRun(WrOpcode.SEND, s.lanes(), s.cq, txDepth,
                        o.cqModeration(), s.cycleBuffer, s.cacheLine, o.postList, o.inlineSize(), o.events)) {
                    run.addressing(s::address);
                    if (forever) { // send_bw.c: the handshake, then a line per period until Ctrl-C
                        s.handshake("handshake before the run", s.runTimeout());
                        o.sendForever(run, (int) sizes[0], this::printed, stdout);
                        sizes = new long[0];
                    }
                    for (long size : sizes) {
                        s.handshake("handshake before the run", s.runTimeout());
                        reports.add(printed(timed
                                ? run.executeFor(Duration.ofSeconds(o.duration).toNanos(), o.marginNanos(), (int) size,
                                        o.reportGbits, o.cpuSampler())
                                : run.execute(iterations, (int) size).report(size, o.reportGbits, o.noPeak)));
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
                        recvs.add(RecvChain.allocate(recvPostList, 1));
                    }
                    if (forever) { // run_iter_bw_infinitely_server: a line per period until a signal
                        postReceives(s, recvs, sizes[0], rxDepth);
                        s.handshake("handshake before the run", s.runTimeout());
                        receiveForever(s, recvs, wcs, sizes[0], Interrupt.onSigint());
                        sizes = new long[0];
                    }
                    for (long size : sizes) {
                        postReceives(s, recvs, size, rxDepth);
                        s.handshake("handshake before the run", s.runTimeout());
                        reports.add(printed(timed ? receiveFor(s, recvs, wcs, size)
                                : receive(s, recvs, wcs, iterations, size, rxDepth)));
                        if (o.allSizes) {
                            s.handshake("handshake after the run", s.runTimeout());
                        }
                    }
                } finally {
                    recvs.forEach(RecvChain::close);
                }
            }
            out.println(BandwidthReport.RESULT_LINE);
            // after --run_infinitely a side waits for the other's end as long as a socket can, as perftest's
            s.wire.closeConnection(s.mine, forever ? RdmaBandwidth.FOREVER : s.runTimeout());
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
        List<RecvChain> recvs = new ArrayList<>();
        try (RdmaRun run = new RdmaRun(WrOpcode.SEND, s.lanes(), s.cq, txDepth, o.cqModeration(),
                s.cycleBuffer, s.cacheLine, o.postList, o.inlineSize(), false);
                CompletionArray wcs = CompletionArray.allocate(16)) {
            run.addressing(s::address);
            for (int q = 0; q < s.qps.size(); q++) {
                recvs.add(RecvChain.allocate(recvPostList, 1));
            }
            for (long size : sizes) {
                postReceives(s, recvs, size, rxDepth);
                s.handshake("handshake before the bidirectional run", s.runTimeout());
                Receives incoming = new Receives(s, recvs, wcs, iterations, rxDepth, recvPostList, false);
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
        } finally {
            recvs.forEach(RecvChain::close);
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

    /**
     * Posts each queue pair's receives for messages of {@code size} (its whole receive queue, or its share of the
     * SRQ, in whole lists of {@code --recv_post_list}), each into the slot offered for its queue pair.
     */
    static void postReceives(PerftestSession s, List<RecvChain> recvs, long size, int rxDepth) {
        for (int q = 0; q < s.qps.size(); q++) {
            // wr_id: the queue pair the receive is for, which with an SRQ may not be the one it serves
            RecvChain chain = recvs.get(q);
            int list = s.options.recvPostList;
            for (int j = 0; j < list; j++) {
                chain.get(j).sge(s.buffers.get(q), s.receiveOffset(q), s.receiveLength(size)).wrId(q);
            }
            for (int i = 0; i < initialReceives(s, q, rxDepth, list); i += list) {
                postReceiveList(s, recvs, q, list, i);
            }
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

    /**
     * {@code run_iter_bw_server}: counts the receives of every queue pair ({@code iterations} each); times the first
     * and the end.
     */
    static BandwidthReport receive(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, int iterations,
            long size, int rxDepth) {
        Receives incoming = new Receives(s, recvs, wcs, iterations, rxDepth, s.options.recvPostList, s.options.events);
        while (incoming.received < incoming.total) {
            incoming.poll();
        }
        long end = System.nanoTime();
        double factor = s.options.reportGbits ? BandwidthReport.GBITS_FACTOR : BandwidthReport.MBYTES_FACTOR;
        double seconds = (end - incoming.first) / 1e9;
        long total = incoming.total;
        return new BandwidthReport(size, total, 0, size * (double) total / seconds / factor, total / seconds / 1e6);
    }

    /**
     * The receiving side of a counted run: takes receive completions, reposting on the queue pair a receive came
     * from while more messages will come to it (as perftest: only as many receives as messages), a list of
     * {@code --recv_post_list} once that many of its receives completed, and gives up when the messages stop coming
     * for the run's timeout.
     */
    private static final class Receives {
        private final PerftestSession s;
        private final List<RecvChain> recvs;
        private final CompletionArray wcs;
        private final int iterations;
        /** wait for completion events instead of polling (-e) */
        private final boolean events;
        /** the receives posted per queue pair so far */
        private final long[] posted;
        /** --recv_post_list */
        private final int list;
        /** per queue pair, the receives completed and not posted again yet (perftest's unused_recv_for_qp) */
        private final long[] unused;
        /** the messages expected: -n per queue pair */
        final long total;
        /** the messages received so far */
        long received;
        /** when the first message arrived (System.nanoTime), or 0 */
        long first;
        /** when the run is given up if no message arrives before */
        private long deadline;
        /** empty polls, to read the clock only every 1024th */
        private int spins;

        Receives(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, int iterations, int rxDepth,
                int list, boolean events) {
            this.s = s;
            this.recvs = recvs;
            this.wcs = wcs;
            this.iterations = iterations;
            this.events = events;
            this.list = list;
            this.posted = new long[s.qps.size()];
            this.unused = new long[s.qps.size()];
            for (int q = 0; q < posted.length; q++) {
                posted[q] = initialReceives(s, q, rxDepth, list);
            }
            this.total = (long) iterations * posted.length;
            this.deadline = System.nanoTime() + s.runTimeout().toNanos();
        }

        /** Takes the receives completed by now; how many. */
        int poll() {
            int n = Completions.reap(s.recvCq, wcs, events);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, "receive " + (received + 1));
                }
                if (received++ == 0) {
                    first = System.nanoTime();
                }
                int q = queuePairOf(s, wc);
                if (++unused[q] >= list && posted[q] + list <= iterations) {
                    postReceiveList(s, recvs, q, list, received);
                    unused[q] -= list;
                    posted[q] += list;
                }
            }
            if (n > 0) {
                deadline = System.nanoTime() + s.runTimeout().toNanos();
            } else if (received < total && ((++spins & 0x3ff) == 0 || events) && System.nanoTime() - deadline > 0) {
                throw new PerftestException("only " + received + " of " + total + " messages arrived within "
                        + s.runTimeout().toSeconds() + " s");
            }
            return n;
        }
    }

    /**
     * {@code run_iter_bw_server} with {@code -D}: the clock starts at the first receive, the messages received
     * between the margins are counted over the time between them, and every receive is reposted until the
     * duration ends (no count of messages is known); what the sender still sends then finds no one polling, as
     * perftest's.
     */
    private BandwidthReport receiveFor(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, long size) {
        long durationNanos = Duration.ofSeconds(o.duration).toNanos();
        long marginNanos = o.marginNanos();
        CpuUtilization cpu = o.cpuSampler();
        long first = 0;
        long sampleStart = 0;
        long sampleEnd = 0;
        long sampled = 0;
        long deadline = System.nanoTime() + s.runTimeout().toNanos();
        int spins = 0;
        long[] unused = new long[s.qps.size()]; // receives completed and not posted again, per queue pair
        while (true) {
            long now = System.nanoTime();
            if (first != 0) {
                if (sampleStart == 0 && now - (first + marginNanos) >= 0) {
                    sampleStart = now;
                    sampleStarts(cpu);
                }
                if (sampleEnd == 0 && now - (first + durationNanos - marginNanos) >= 0) {
                    sampleEnd = now;
                    if (cpu != null) {
                        cpu.sampleEnds();
                    }
                }
                if (now - (first + durationNanos) >= 0) {
                    break;
                }
            }
            int n = Completions.reap(s.recvCq, wcs, false);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, "receive");
                }
                if (first == 0) {
                    first = System.nanoTime();
                    if (marginNanos == 0) { // perftest samples from the first receive on, counting it
                        sampleStart = first;
                        sampleStarts(cpu);
                    }
                }
                if (sampleStart != 0 && sampleEnd == 0) {
                    sampled++;
                }
                int q = queuePairOf(s, wc);
                if (++unused[q] >= recvPostList) {
                    postReceiveList(s, recvs, q, recvPostList, sampled);
                    unused[q] -= recvPostList;
                }
            }
            if (first == 0 && n == 0 && (++spins & 0x3ff) == 0 && System.nanoTime() - deadline > 0) {
                throw new PerftestException("no message arrived within " + s.runTimeout().toSeconds() + " s");
            }
        }
        double factor = o.reportGbits ? BandwidthReport.GBITS_FACTOR : BandwidthReport.MBYTES_FACTOR;
        double seconds = (sampleEnd - sampleStart) / 1e9;
        return new BandwidthReport(size, sampled, 0, size * (double) sampled / seconds / factor, sampled / seconds / 1e6);
    }

    /**
     * perftest's {@code run_iter_bw_infinitely_server}: reposts every receive (a list at a time with
     * {@code --recv_post_list}) and prints a line at the end of every period of {@code -D} seconds (default 5): the
     * messages received in it over its length, no peak. perftest's server runs until a signal kills it; this one
     * ends its loop at SIGINT and then closes the connection with the peer (so a client stopped first, which waits
     * in that exchange, ends cleanly too).
     */
    private void receiveForever(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, long size,
            BooleanSupplier stopped) {
        long periodNanos = o.reportPeriodNanos();
        long[] unused = new long[s.qps.size()];
        long periodStart = System.nanoTime();
        long periodEnd = periodStart + periodNanos;
        long done = 0;
        while (!stopped.getAsBoolean()) {
            int n = Completions.reap(s.recvCq, wcs, false);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, "receive");
                }
                done++;
                int q = queuePairOf(s, wc);
                if (++unused[q] >= recvPostList) {
                    postReceiveList(s, recvs, q, recvPostList, done);
                    unused[q] -= recvPostList;
                }
            }
            long now = System.nanoTime();
            if (now - periodEnd >= 0) {
                printed(BandwidthReport.ofPeriod(size, done, now - periodStart, o.reportGbits));
                periodStart = now;
                periodEnd = now + periodNanos;
                done = 0;
            }
        }
    }

    private static void sampleStarts(CpuUtilization cpu) {
        if (cpu != null) {
            cpu.sampleStarts();
        }
    }

    /**
     * The receives posted for queue pair {@code q} before the run, in whole lists of {@code list}: its receive
     * queue's depth, or with an SRQ its share of the SRQ's {@code rxDepth} (perftest's {@code rx_depth /
     * recv_post_list / num_of_qps} lists).
     */
    private static int initialReceives(PerftestSession s, int q, int rxDepth, int list) {
        int depth = s.srq != null ? rxDepth / s.qps.size() : s.qps.get(q).capabilities().maxRecvWr();
        return depth / list * list;
    }

    /**
     * Posts queue pair {@code q}'s list of {@code list} receives: to the SRQ when there is one, else to its own queue;
     * {@code at} (the messages so far) goes into the error.
     */
    private static void postReceiveList(PerftestSession s, List<RecvChain> recvs, int q, int list, long at) {
        Completions.check(s.srq != null ? s.srq.postRecv(recvs.get(q), list) : s.qps.get(q).postRecv(recvs.get(q), list),
                "ibv_post_recv", at);
    }

    /**
     * The queue pair a receive completion is for: with an SRQ the one its wr_id names (it gets the receive back, as
     * perftest's {@code rwr[wr_id]}), else the one it arrived on.
     */
    private static int queuePairOf(PerftestSession s, WorkCompletion wc) {
        return s.srq != null ? (int) wc.wrId() : queuePairOf(s, wc.qpNumber());
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
