package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ib_write_lat}, {@code ib_read_lat} and {@code ib_send_lat} over RC, wire-compatible with perftest 4.5 to 26.04:
 * each follows its C tool's sequence of handshakes ({@code write_lat.c}, {@code read_lat.c}, {@code send_lat.c})
 * and its ping-pong loop ({@code run_iter_lat_write}, {@code run_iter_lat}, {@code run_iter_lat_send}), and prints
 * perftest's latency line ({@link LatencyReport}). Every wait for the peer is bounded by {@code --timeout}.
 * {@code ib_write_lat} is {@link WriteLatency}, {@code ib_atomic_lat} {@link AtomicLatency}.
 */
abstract class Latency implements Callable<Integer> {
    static final long DEFAULT_SIZE = 2;

    @Mixin
    PerftestOptions o;
    @Option(names = {"-C", "--report-cycles"}, description = "report the latencies in CPU cycles, as perftest: the"
            + " nanoseconds measured converted at the CPU's MHz (/proc/cpuinfo's first \"cpu MHz\")")
    boolean reportCycles;
    /** The receives posted per size (perftest's rx_depth; set by call) */
    int rxDepth;
    /** -C's CPU MHz, or 0 for microseconds (set by call) */
    private double cyclesMhz;
    private final PrintStream stdout = System.out;
    /** stdout, or nowhere with --output (set by call) */
    PrintStream out = stdout;
    /** --out_json's file, or null (set by call) */
    private PerftestJsonFile jsonFile;
    final String tool;

    Latency(String tool) {
        this.tool = tool;
    }

    /**
     * {@code ib_read_lat}: only the client reads; the server waits for it to finish. {@code ib_atomic_lat} runs the
     * same sequence with an atomic operation ({@link AtomicLatency}).
     */
    @Command(name = "ib_read_lat", mixinStandardHelpOptions = true, sortOptions = false,
            description = "RDMA READ latency, client/server, wire-compatible with perftest's ib_read_lat.")
    public static class Read extends Latency {
        public Read() {
            super("ib_read_lat");
        }

        Read(String tool) {
            super(tool);
        }

        /** Sets the request's operation and its target, the peer's buffer. */
        void target(SendWorkRequest wr, PingPongSide s) {
            wr.opcode(WrOpcode.RDMA_READ).remote(s.peerVaddr(), s.peerRkey());
        }

        @Override
        boolean readTest() {
            return true;
        }

        @Override
        List<LatencyReport> run(PerftestSession s, long[] sizes, int iterations) {
            s.handshake("address record"); // read_lat.c as write_lat.c
            s.connectAndPrint();
            List<LatencyReport> reports = new ArrayList<>();
            if (!s.wire.isClient()) {
                // read_lat.c: the server closes at once (its closing handshake waits for the client's run)
                s.wire.closeConnection(s.mine, s.runTimeout());
                out.println(BandwidthReport.RESULT_LINE);
                return reports;
            }
            s.print.latencyHeader();
            try (SendChain wrs = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(1)) {
                for (long size : sizes) {
                    if (o.duration != null) {
                        TimedSample clock = timedSample();
                        timedReads(PingPongSide.of(s), wrs, wcs, (int) size, clock);
                        reportTimed(size, clock, 1);
                        continue;
                    }
                    long[] posted = new long[iterations];
                    reads(PingPongSide.of(s), wrs, wcs, (int) size, posted, iterations);
                    reports.add(report(measured(size, posted, 1)));
                }
            }
            s.wire.closeConnection(s.mine, s.options.timeout());
            out.println(BandwidthReport.RESULT_LINE);
            return reports;
        }

        /** {@code run_iter_lat}: one signaled READ (or atomic) at a time, timed from post to the next post. */
        private void reads(PingPongSide s, SendChain wrs, CompletionArray wcs, int size, long[] posted,
                int iterations) {
            target(wrs.get(0).flags(SendFlags.SIGNALED).sge(s.buffer(), 0, size), s);
            String what = wrs.get(0).opcode() == WrOpcode.RDMA_READ ? "RDMA READ" : wrs.get(0).opcode().toString();
            for (int i = 0; i < iterations; i++) {
                s.gap();
                posted[i] = System.nanoTime();
                wrs.get(0).wrId(i);
                Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", i);
                Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), what);
            }
        }

        /** {@code run_iter_lat} with {@code -D}: reads one at a time until the duration ends, counting the sample's. */
        private void timedReads(PingPongSide s, SendChain wrs, CompletionArray wcs, int size, TimedSample clock) {
            target(wrs.get(0).flags(SendFlags.SIGNALED).sge(s.buffer(), 0, size), s);
            String what = wrs.get(0).opcode() == WrOpcode.RDMA_READ ? "RDMA READ" : wrs.get(0).opcode().toString();
            clock.start();
            for (long i = 0; !clock.over(); i++) {
                s.gap();
                wrs.get(0).wrId(i);
                Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", i);
                Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), what);
                clock.count();
            }
        }

        @Override
        void warmUp(PingPongSide client, PingPongSide server, int size, int iterations) {
            // only the client reads; the server's side takes no part, as in the test
            try (SendChain wrs = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(1)) {
                reads(client, wrs, wcs, size, new long[iterations], iterations);
            }
        }
    }

    /** {@code ib_send_lat}: SEND ping-pong; the client sends first, each side answers each receive. */
    @Command(name = "ib_send_lat", mixinStandardHelpOptions = true, sortOptions = false,
            description = "SEND latency (ping-pong), client/server, wire-compatible with perftest's ib_send_lat.")
    public static final class Send extends Latency {
        @Mixin
        Multicast multicast;
        @Option(names = "--use-srq", description = "each side's queue pair draws its receives from a shared receive"
                + " queue of -r receives, each a whole number of MTUs long (as perftest: in a latency test both sides"
                + " receive, so both create one)")
        boolean useSrq;
        @Option(names = "--send_with_imm", description = "SEND with immediate: each receive must complete with an"
                + " immediate (perftest 26; 4.5 and 25.01 lack it)")
        boolean sendWithImm;

        public Send() {
            super("ib_send_lat");
        }

        @Override
        String title() {
            return sendWithImm ? "Send_imm Latency" : "Send Latency"; // perftest's testsStr[SEND_IMM]
        }

        @Override
        void validate() {
            multicast.applyTo(o, tool, true); // both sides receive
            o.sharedReceiveQueue = useSrq;
            o.sendWithImm = sendWithImm;
            if (useSrq) {
                PerftestOptions.refuse(tool, o.rdmaCm, "--use-srq with -R");
            }
        }

        @Override
        boolean sendTest() {
            return true;
        }

        @Override
        List<LatencyReport> run(PerftestSession s, long[] sizes, int iterations) {
            // send_lat.c: addresses, connect, handshake, local, remote, the header, then per size: post the
            // receives, handshake (so no send arrives before them), run, report; then close
            s.exchangeAddress();
            s.connect();
            s.handshake("handshake after connect");
            s.print.local();
            s.print.handshakeAndRemote();
            s.print.latencyHeader();
            List<LatencyReport> reports = new ArrayList<>();
            // perftest's size_per_qp: the queue pair's receives, or with --use-srq the SRQ's (one queue pair)
            int depth = s.srq != null ? rxDepth : s.qp.capabilities().maxRecvWr();
            try (SendChain wrs = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(1);
                 RecvChain recvs = RecvChain.allocate(1, 1)) {
                for (long size : sizes) {
                    postReceives(PingPongSide.of(s), recvs, s.receiveLength(size), depth);
                    s.handshake("handshake after posting receives");
                    if (o.duration != null) {
                        TimedSample clock = timedSample();
                        timedSendPingPong(PingPongSide.of(s), wrs, wcs, recvs, (int) size, clock);
                        reportTimed(size, clock, 2);
                        continue;
                    }
                    long[] posted = new long[iterations];
                    sendPingPong(PingPongSide.of(s), wrs, wcs, recvs, (int) size, posted, iterations, depth);
                    reports.add(report(measured(size, posted, 2)));
                }
            }
            out.println(BandwidthReport.RESULT_LINE);
            s.wire.closeConnection(s.mine, s.options.timeout());
            return reports;
        }

        @Override
        void warmUp(PingPongSide client, PingPongSide server, int size, int iterations) {
            int depth = Math.min(client.qp().capabilities().maxRecvWr(), iterations);
            LocalWarmup.bothSides(client, server, side -> {
                try (SendChain wrs = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(1);
                     RecvChain recvs = RecvChain.allocate(1, 1)) {
                    postReceives(side, recvs, size, depth);
                    sendPingPong(side, wrs, wcs, recvs, size, new long[iterations], iterations, depth);
                }
            });
        }

        /**
         * {@code run_iter_lat_send} with {@code -D}: the clock starts at this side's first receive, every receive is
         * reposted, a wait for the peer's message gives up when the duration ends, and the receives of the sample
         * are counted.
         */
        private void timedSendPingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, RecvChain recvs, int size,
                TimedSample clock) {
            SendWorkRequest wr = wrs.get(0).opcode(o.sendOpcode()).flags(sendFlags(size)).sge(s.buffer(), 0, size);
            s.addressing().accept(wr);
            boolean client = s.client();
            long sent = 0;
            while (!clock.over()) {
                if (!(sent < 1 && client)) {
                    if (!awaitReceiveUntilOver(s, wcs, clock)) {
                        break;
                    }
                    if (!clock.started()) {
                        clock.start();
                    }
                    clock.count();
                    s.postRecv(recvs, sent);
                }
                if (clock.over()) {
                    break;
                }
                s.gap();
                wr.wrId(sent);
                sent++;
                Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", sent);
                Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), "SEND");
            }
        }

        /**
         * Polls for one receive: true when it came, false when the duration ended first; before the clock runs
         * (the first message) the wait is bounded by {@code --timeout}.
         */
        static boolean awaitReceiveUntilOver(PingPongSide s, CompletionArray wcs, TimedSample clock) {
            long deadline = System.nanoTime() + s.timeout().toNanos();
            int spins = 0;
            while (true) {
                int n = Completions.reap(s.recvCq(), wcs, false);
                if (n > 0) {
                    if (!wcs.get(0).isSuccess()) {
                        throw PerftestException.failedCompletion(wcs.get(0), "receive");
                    }
                    Completions.requireImmediate(s.receivesImmediates(), wcs.get(0), clock.counted() + 1);
                    return true;
                }
                if ((++spins & 0x3f) == 0) {
                    if (clock.over()) {
                        return false;
                    }
                    if (!clock.started() && System.nanoTime() - deadline > 0) {
                        throw new PerftestException("the peer's first message did not arrive within "
                                + s.timeout().toSeconds() + " s");
                    }
                    if ((spins & 0x3ff) == 0) {
                        Completions.idle();
                    }
                }
                Thread.onSpinWait();
            }
        }

        /** {@code run_iter_lat_send} with one signaled send at a time (latency tests run with tx depth 1). */
        private void sendPingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, RecvChain recvs,
                int size, long[] posted, int iterations, int depth) {
            SendWorkRequest wr = wrs.get(0).opcode(o.sendOpcode()).flags(sendFlags(size)).sge(s.buffer(), 0, size);
            s.addressing().accept(wr);
            boolean client = s.client();
            int sent = 0;
            int received = 0;
            while (sent < iterations || received < iterations) {
                if (received < iterations && !(sent < 1 && client)) {
                    Completions.awaitOne(s.recvCq(), wcs, s.timeout(), s.events(), "receive");
                    Completions.requireImmediate(s.receivesImmediates(), wcs.get(0), received + 1);
                    received++;
                    // as perftest: repost only while more messages will come, so no receive is left posted
                    // when the next size (-a) posts its own
                    if (received + depth <= iterations) {
                        s.postRecv(recvs, received);
                    }
                }
                if (sent < iterations) {
                    s.gap();
                    posted[sent] = System.nanoTime();
                    wr.wrId(sent);
                    sent++;
                    Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", sent);
                    Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), "SEND");
                }
            }
        }
    }

    /**
     * Posts {@code depth} receives of {@code length} bytes into the side's offered half (perftest's
     * {@code ctx_set_recv_wqes}; wr_id 0, the queue pair's index, as perftest's).
     */
    static void postReceives(PingPongSide s, RecvChain recvs, int length, int depth) {
        recvs.get(0).sge(s.buffer(), s.half(), length).wrId(0);
        for (int i = 0; i < depth; i++) {
            s.postRecv(recvs, i);
        }
    }

    boolean readTest() {
        return false;
    }

    /** An atomic tool's type code for the parameter negotiation, or -1. */
    int atomicType() {
        return -1;
    }

    /** The banner's test name. */
    String title() {
        return switch (tool) {
            case "ib_write_lat" -> "RDMA_Write Latency";
            case "ib_read_lat" -> "RDMA_Read Latency";
            default -> "Send Latency";
        };
    }

    /** {@code -s} when not given. */
    long defaultSize() {
        return DEFAULT_SIZE;
    }

    /** A tool's own checks of the command line, before anything is opened. */
    void validate() {
    }

    boolean sendTest() {
        return false;
    }

    /** Every request signaled; inline up to {@code -I} bytes, as perftest's {@code ctx_set_send_wqes}. */
    int sendFlags(int size) {
        return SendFlags.SIGNALED | (size <= o.inlineSize() ? SendFlags.INLINE : 0);
    }

    /**
     * Runs this tool's loop for {@code iterations} messages of {@code size} bytes between two queue pairs of this
     * process ({@code client} and {@code server}), so the JIT has compiled it before the peer takes part.
     */
    abstract void warmUp(PingPongSide client, PingPongSide server, int size, int iterations);

    /** The tool's sequence after the banner; returns its reports. */
    abstract List<LatencyReport> run(PerftestSession s, long[] sizes, int iterations);

    @Override
    public Integer call() {
        validate();
        o.validate(defaultSize());
        o.refuseUnimplemented(tool);
        o.checkLatencyOutput();
        o.warnCpuUtilWithoutDuration(stdout, System.err);
        out = o.verbose(stdout);
        if (o.bidirectional) {
            throw new PerftestException("-b: bidirectional is only available in BW tests (as perftest)");
        }
        if (o.runInfinitely) {
            throw new PerftestException("--run_infinitely exists only in BW tests (as perftest)");
        }
        PerftestOptions.refuse(tool, o.reversed, "--reversed (the bandwidth tools have it)");
        PerftestOptions.refuse(tool, o.waitDestroySeconds != 0, "--wait_destroy (the bandwidth tools have it)");
        PerftestOptions.refuse(tool, o.limitBw != null || o.limitMsgRate != null,
                "-w and -y (verifier limits of a bandwidth; the bandwidth tools have them)");
        PerftestOptions.refuse(tool, o.queuePairs != 1, "-q (several queue pairs; the bandwidth tools have it)");
        if (o.dualPort) {
            throw new PerftestException("Dual-port mode only supports BW tests (-O; as perftest)");
        }
        PerftestOptions.refuse(tool, o.duration != null && o.outJson, "--out_json with -D (the file of a timed"
                + " latency run)");
        PerftestOptions.refuse(tool, o.duration != null && o.json, "--json with -D");
        PerftestOptions.refuse(tool, o.loopback, "--loopback");
        PerftestOptions.refuse(tool, o.txDepth != null && o.txDepth != 1, "-t other than 1 (latency tests post one at a time)");
        if (o.events && tool.equals("ib_write_lat")) {
            throw new PerftestException("-e: events feature not available on WRITE verb (perftest refuses it too)");
        }
        PerftestOptions.refuse(tool, o.postList != 1, "-l (post lists are supported in bandwidth tests only)");
        PerftestOptions.refuse(tool, readTest() && o.inlineSize() > 0, "-I (RDMA READ carries no payload to inline)");
        // -C: before anything is opened, so a machine without the figure refuses it at once; -D reports in µs
        // whatever -C says, as perftest's print_report_lat_duration
        cyclesMhz = reportCycles ? CpuMhz.read() : 0;
        int iterations = o.iterations != null ? o.iterations : PerftestOptions.DEFAULT_ITERATIONS;
        if (iterations < 4) {
            throw new PerftestException("-n must be at least 4 for a latency test (perftest drops 3 samples), not " + iterations);
        }
        long largest = o.bufferMessageSize(defaultSize());
        String title = title();
        Access[] access = atomicType() >= 0 ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_ATOMIC}
                : readTest() ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_READ}
                : sendTest() ? new Access[] {Access.LOCAL_WRITE} : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE};
        // perftest caps the receives at -n only when it counts iterations: -D runs for a time
        boolean receives = sendTest() || o.writeWithImm;
        rxDepth = !receives ? 1 : PerftestOptions.sendRxDepth(o.rxDepth,
                o.duration != null ? Integer.MAX_VALUE : iterations);
        if (o.sharedReceiveQueue && o.isUd() && o.duration == null && iterations <= SendBandwidth.MIN_SRQ_UD_RX_DEPTH) {
            rxDepth = SendBandwidth.MIN_SRQ_UD_RX_DEPTH; // perftest 25.01's force_dependecies
        }
        int warmup = o.warmup < 0 ? iterations : o.warmup;
        if (warmup > 0) { // before the peer is involved: a server listens only after it
            LocalWarmup.run(this, o.allSizes ? 2 : o.size != null ? o.size : defaultSize(), warmup, rxDepth);
        }
        try (PerftestSession s = new PerftestSession(o, title, false, sendTest(), largest, iterations, 1, rxDepth, readTest(),
                atomicType(), out, access)) {
            jsonFile = PerftestJsonFile.of(o, s);
            long[] sizes = o.allSizes ? s.allSizes() : new long[] {s.runSize(o.size != null ? o.size : defaultSize())};
            List<LatencyReport> reports = run(s, sizes, iterations);
            if (o.json) {
                stdout.println(Json.latency(tool, s, reports));
            }
            out.flush();
        }
        return 0;
    }


    /** A clock for {@code -D}'s run: the duration and margin, and {@code --cpu_util}'s readings. */
    TimedSample timedSample() {
        return new TimedSample(Duration.ofSeconds(o.duration).toNanos(), o.marginNanos(), o.cpuSampler());
    }

    /**
     * Prints {@code -D}'s result as perftest's {@code print_report_lat_duration}: its line (with {@code --cpu_util}'s
     * figure), or with {@code --output latency} the average ({@code %lf}); -H and -U print nothing in this mode,
     * as perftest.
     */
    void reportTimed(long size, TimedSample clock, int roundTrips) {
        stdout.println((o.output == null ? clock.line(size, roundTrips) + (o.reportsCpuUtil() ? o.cpu.column() : "")
                : String.format(Locale.ROOT, "%f", clock.latencyMicros(roundTrips))) + o.counterDeltas());
        stdout.flush();
    }

    /** The report of a run whose posts were at {@code posted}: in µs, or in cycles with {@code -C}. */
    LatencyReport measured(long size, long[] posted, int roundTrips) {
        return LatencyReport.of(size, posted, roundTrips, cyclesMhz);
    }

    /** Prints a report (the samples first with {@code -U}, then sorted with {@code -H}, as perftest) and returns it. */
    LatencyReport report(LatencyReport r) {
        if (o.unsorted) { // the samples whatever --output says, as perftest
            stdout.print(r.unsortedLines());
        }
        if (o.histogram) {
            stdout.print(r.histogramLines());
        }
        if (o.unsorted || o.histogram) {
            out.println(BandwidthReport.RESULT_LINE);
            out.println(LatencyReport.RESULT_FMT_LAT);
        }
        if (jsonFile != null) { // as perftest's print_report_lat: the file first, then the line
            jsonFile.write(r);
        }
        stdout.println(o.latencyResult(r));
        stdout.flush();
        return r;
    }
}
