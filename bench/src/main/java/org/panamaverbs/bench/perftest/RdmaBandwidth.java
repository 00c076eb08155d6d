package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.panamaverbs.bench.LoopbackRig;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.Mtu;
import org.panamaverbs.verbs.QpEndpoint;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ib_write_bw} and {@code ib_read_bw}: RDMA WRITE or READ bandwidth between a server and a client over RC,
 * wire-compatible with perftest 4.5 to 26.04 in both directions (a Java client against a C server and the reverse). The
 * client writes into (or reads from) the server's buffer {@code -n} times {@code -s} bytes (or every size with
 * {@code -a}) and prints perftest's result line; the server waits, receives the client's report and prints the
 * same line, as C's server does.
 */
public abstract class RdmaBandwidth implements Callable<Integer> {
    static final long DEFAULT_SIZE = 65536;
    static final int DEFAULT_TX_DEPTH = 128;
    /** How long the server of {@code --run_infinitely} waits for the client's end: as long as a socket can. */
    static final Duration FOREVER = Duration.ofMillis(Integer.MAX_VALUE);

    @Mixin
    PerftestOptions o;
    @Mixin
    RateLimit rateLimit;
    @Option(names = "--data_validation", description = "check every byte written (or read): chunks of messages in a"
            + " ring, each followed by a fetch-and-add on its marker at the peer, whose threads compare the chunk with"
            + " the pattern of the ring's pass (perftest 26.04 on both sides; RC, -t 32 or more)")
    boolean dataValidation;
    @Option(names = "--data_validation_debug", description = "with --data_validation, the layout and each"
            + " validator's counts")
    boolean dataValidationDebug;
    /** {@code --rate_limit}'s software limiter, or null (set by call) */
    private RateLimit limiter;
    private final PrintStream stdout = System.out;
    /** stdout, or nowhere with --output (set by call) */
    private PrintStream out = stdout;
    private final String tool;
    // set by call() from the tool's hooks (an atomic tool's depend on its -A)
    private WrOpcode opcode;
    private String title;
    private final WrOpcode defaultOpcode;
    private final String defaultTitle;
    /** --out_json's file, or null (set by call) */
    private PerftestJsonFile jsonFile;
    /** -w and -y (set by call) */
    private VerifierLimits limits;

    RdmaBandwidth(String tool, WrOpcode opcode, String title) {
        this.tool = tool;
        this.defaultOpcode = opcode;
        this.defaultTitle = title;
    }

    /** The operation posted. */
    WrOpcode opcode() {
        return defaultOpcode;
    }

    /** The banner's test name. */
    String title() {
        return defaultTitle;
    }

    /** An atomic tool's type code for the parameter negotiation, or -1. */
    int atomicType() {
        return -1;
    }

    /** {@code -s} when not given. */
    long defaultSize() {
        return DEFAULT_SIZE;
    }

    /** {@code -n} when not given. */
    int defaultIterations() {
        return defaultOpcode == WrOpcode.RDMA_WRITE ? PerftestOptions.DEFAULT_WRITE_BW_ITERATIONS
                : PerftestOptions.DEFAULT_ITERATIONS;
    }

    /** A tool's own checks of the command line, before anything is opened. */
    void validate() {
    }

    /** {@code --write_with_imm}: only {@code ib_write_bw} has it. */
    boolean withImmediate() {
        return false;
    }

    /** {@code ib_write_bw}. */
    @Command(name = "ib_write_bw", mixinStandardHelpOptions = true, sortOptions = false,
            description = "RDMA WRITE bandwidth, client/server, wire-compatible with perftest's ib_write_bw.")
    public static final class Write extends RdmaBandwidth {
        @Option(names = "--write_with_imm",
                description = "RDMA WRITE with immediate: each write consumes a receive the server posted, and the"
                        + " server counts them and prints its own line (perftest 25.01 and later; 4.5 lacks it)")
        boolean writeWithImm;

        public Write() {
            super("ib_write_bw", WrOpcode.RDMA_WRITE, "RDMA_Write BW");
        }

        @Override
        boolean withImmediate() {
            return writeWithImm;
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
        validate();
        boolean immediate = withImmediate();
        opcode = immediate ? WrOpcode.RDMA_WRITE_WITH_IMM : opcode();
        title = immediate ? "RDMA_Write_imm BW" : title(); // perftest's testsStr[WRITE_IMM]
        o.writeWithImm = immediate;
        o.validate(defaultSize());
        o.refuseUnimplemented(tool);
        o.checkBandwidthOutput();
        o.warnCpuUtilWithoutDuration(stdout, System.err);
        out = o.verbose(stdout);
        PerftestOptions.refuse(tool, o.histogram, "-H (a latency histogram; this is a bandwidth test)");
        if (o.unsorted) {
            throw new PerftestException("-U is Available only on Latency tests (as perftest)");
        }
        if (o.latencyGapMicros > 0) {
            throw new PerftestException("--latency_gap: Latency gap feature is only for latency tests (as perftest)");
        }
        limits = new VerifierLimits(o);
        int iterations = o.iterations != null ? o.iterations : defaultIterations();
        // perftest: the send queue is no deeper than the run is long (a run for a time or without end has no length)
        int txDepth = o.txDepth != null ? o.txDepth : DEFAULT_TX_DEPTH;
        if (!o.runInfinitely && o.duration == null) {
            txDepth = Math.min(txDepth, iterations);
        }
        limiter = rateLimit.resolve(o, tool, atomicType() >= 0, false, txDepth, System.err);
        o.dataValidation = dataValidation;
        o.dataValidationDebug = dataValidationDebug;
        if (atomicType() >= 0 && (dataValidation || dataValidationDebug)) {
            throw new PerftestException((dataValidation ? "--data_validation" : "--data_validation_debug")
                    + " is only supported with WRITE or READ verb (as perftest)");
        }
        if (dataValidation) {
            ValidatedBandwidth.check(o, tool, !immediate, txDepth, limiter != null);
        }
        long largest = o.bufferMessageSize(defaultSize());
        boolean write = opcode == WrOpcode.RDMA_WRITE || immediate;
        if (!write) {
            PerftestOptions.refuse(tool, o.inlineSize() > 0, "-I (RDMA READ carries no payload to inline)");
        }
        if (immediate) { // what perftest's WRITE_IMM runs differ in, not implemented here
            PerftestOptions.refuse(tool, o.bidirectional, "--write_with_imm with -b");
            PerftestOptions.refuse(tool, o.duration != null, "--write_with_imm with -D");
            PerftestOptions.refuse(tool, o.runInfinitely, "--write_with_imm with --run_infinitely");
            PerftestOptions.refuse(tool, o.allSizes, "--write_with_imm with -a");
            PerftestOptions.refuse(tool, o.reversed, "--write_with_imm with --reversed");
            PerftestOptions.refuse(tool, o.loopback, "--write_with_imm with --loopback");
            PerftestOptions.refuse(tool, o.events, "--write_with_imm with -e");
            PerftestOptions.refuse(tool, o.rdmaCm, "--write_with_imm with -R");
        }
        if (o.events && write) {
            throw new PerftestException("-e: events feature not available on WRITE verb (perftest refuses it too)");
        }
        o.checkPostList(iterations, txDepth, out);
        PerftestOptions.refuse(tool, o.bidirectional && o.duration != null, "-b with -D");
        PerftestOptions.refuse(tool, o.bidirectional && o.runInfinitely, "-b with --run_infinitely");
        if (o.loopback) {
            if (o.connects()) {
                throw new PerftestException("--loopback runs both queue pairs in this process: give no server address");
            }
            PerftestOptions.refuse(tool, o.inlineSize() > 0, "-I with --loopback");
            PerftestOptions.refuse(tool, o.events, "-e with --loopback");
            PerftestOptions.refuse(tool, o.duration != null, "-D with --loopback");
            PerftestOptions.refuse(tool, o.bidirectional, "-b with --loopback");
            PerftestOptions.refuse(tool, o.queuePairCount() != 1, o.dualPort ? "-O with --loopback" : "-q with --loopback");
            PerftestOptions.refuse(tool, o.runInfinitely, "--run_infinitely with --loopback");
            PerftestOptions.refuse(tool, o.useHugepages, "--use_hugepages with --loopback");
            PerftestOptions.refuse(tool, o.limitBw != null || o.limitMsgRate != null, "-w and -y with --loopback");
            return loopback(iterations, txDepth, largest);
        }
        // READ and the atomics take reads outstanding ("Outstand reads"); each its own remote access
        boolean read = !write;
        Access remote = atomicType() >= 0 ? Access.REMOTE_ATOMIC : read ? Access.REMOTE_READ : Access.REMOTE_WRITE;
        // WRITE with immediate: receives as a SEND test's (perftest's rx_depth: -r, no deeper than -n, even)
        int rxDepth = immediate ? PerftestOptions.sendRxDepth(o.rxDepth, iterations) : 1;
        // perftest 25.01 and later say so as they parse the command line; so does a WRITE_IMM server (it counts
        // receives, as a SEND server)
        if ((o.runInfinitely || immediate && !o.isClient()) && !o.noPeak) {
            stdout.println(" WARNING: BW peak won't be measured in this run.");
        }
        Access[] access = dataValidation ? ValidatedBandwidth.access(write) : new Access[] {Access.LOCAL_WRITE, remote};
        try (PerftestSession s = new PerftestSession(o, title, true, false, largest, iterations, txDepth, rxDepth,
                read, atomicType(), out, access)) {
            String failure = null;
            s.connectAndPrint();
            jsonFile = PerftestJsonFile.of(o, s);
            s.print.bandwidthHeader();
            Duration timeout = o.timeout();
            List<BandwidthReport> reports = new ArrayList<>();
            if (s.validation != null) {
                ValidatedBandwidth.Outcome outcome = ValidatedBandwidth.run(s, iterations, txDepth, write,
                        report -> { limits.count(report); printResult(report); }, this::printBoth, out);
                reports.add(outcome.report());
                failure = outcome.failure() != null ? outcome.failure() : o.isClient() || o.bidirectional
                        ? limits.failure() : null;
            } else if (immediate) {
                reports.add(runWithImmediate(s, iterations, txDepth, rxDepth));
                out.println(o.bandwidthRule());
                s.wire.closeConnection(s.mine, timeout);
                failure = limits.failure(); // both sides ran and printed their own line, as send_bw.c's
            } else if (!o.isClient() && !o.bidirectional) {
                // the server only waits for the client's run, then prints the client's report; a run without end
                // ends this wait only when the client's process ends, as perftest's server
                s.handshake("end-of-run handshake", o.runInfinitely ? FOREVER : s.runTimeout());
                BandwidthReport theirs = exchangeReports(s, new BandwidthReport(0, 0, 0, 0, 0), timeout);
                if (o.runInfinitely && atomicType() < 0) { // perftest 25.01's write_bw.c and read_bw.c, not atomic_bw.c
                    stdout.println(" Client closed connection");
                } else {
                    printResult(theirs);
                    reports.add(theirs);
                }
                s.wire.closeConnection(s.mine, timeout);
                out.println(o.bandwidthRule());
            } else {
                try (RdmaRun run = new RdmaRun(opcode, s.lanes(), s.cq, txDepth,
                        o.cqModeration(), s.cycleBuffer, s.cacheLine, o.postList, o.inlineSize(), o.events)) {
                    run.pollBatch(o.pollBatch());
                    long[] sizes = o.allSizes ? allSizes() : new long[] {o.size != null ? o.size : defaultSize()};
                    if (o.runInfinitely) { // a line per period until Ctrl-C, then the end-of-run exchange
                        o.sendForever(run, (int) sizes[0], report -> {
                            limits.count(report);
                            printResult(report);
                            stdout.flush();
                        }, stdout);
                        sizes = new long[0];
                    }
                    for (long size : sizes) {
                        BandwidthReport report;
                        if (!o.bidirectional) { // perftest limits run_iter_bw's runs, not run_iter_bi's
                            run.limit(limiter);
                        }
                        if (o.duration != null) { // perftest's margins are the warm-up
                            report = s.perPort(run.executeFor(Duration.ofSeconds(o.duration).toNanos(), o.marginNanos(),
                                    (int) size, o.reportGbits, o.cpuSampler()), run.sampledPerQueuePair());
                        } else {
                            int warmup = warmupIterations(iterations);
                            if (warmup > 0) {
                                run.limit(null); // the unmeasured warm-up at full speed
                                run.execute(warmup, (int) size);
                                run.limit(o.bidirectional ? null : limiter);
                            }
                            if (o.bidirectional) { // both sides start together
                                s.handshake("handshake before the bidirectional run", s.runTimeout());
                            }
                            report = run.execute(iterations, (int) size).report(size, o.reportGbits, o.noPeak);
                        }
                        BandwidthReport theirs = null;
                        if (o.bidirectional) {
                            // write_bw.c: with -a one more handshake after each run; then both sides' figures summed
                            if (o.allSizes) {
                                s.handshake("handshake after the bidirectional run", s.runTimeout());
                            }
                            theirs = exchangeReports(s, report, s.runTimeout());
                        }
                        BandwidthReport shown = theirs == null ? report : report.plus(theirs);
                        limits.count(shown);
                        printResult(shown);
                        if (theirs != null && o.reportBoth && !o.allSizes) {
                            printBoth(report, theirs);
                        }
                        stdout.flush();
                        reports.add(shown);
                    }
                }
                out.println(o.bandwidthRule());
                if (!o.bidirectional) {
                    s.handshake("end-of-run handshake");
                    // after --run_infinitely perftest's client sends a report struct it never filled in: zeros here
                    exchangeReports(s, reports.isEmpty() ? new BandwidthReport(0, 0, 0, 0, 0) : reports.getLast(),
                            timeout);
                }
                s.wire.closeConnection(s.mine, timeout);
                // the running side only: perftest's one-way server returns before its check
                failure = limits.failure();
            }
            if (o.json) {
                stdout.println(Json.bandwidth(tool, o.isClient() ? "client" : "server", s.context.name(), s.pathMtu.bytes(), o, reports));
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
     * write_bw.c's run of WRITE with immediate ({@code --write_with_imm}), which goes as send_bw.c's: the server posts
     * its receives, a handshake, then the client writes (no warm-up: it would take the server's receives) while the
     * server counts the receives the writes consumed; each prints its own line (the server's without a peak) and no
     * report is exchanged.
     */
    private BandwidthReport runWithImmediate(PerftestSession s, int iterations, int txDepth, int rxDepth) {
        long size = o.size != null ? o.size : defaultSize();
        BandwidthReport report;
        if (o.isClient()) {
            try (RdmaRun run = new RdmaRun(opcode, s.lanes(), s.cq, txDepth, o.cqModeration(), s.cycleBuffer,
                    s.cacheLine, o.postList, o.inlineSize(), false)) {
                run.pollBatch(o.pollBatch());
                s.handshake("handshake before the run", s.runTimeout());
                report = run.execute(iterations, (int) size).report(size, o.reportGbits, o.noPeak);
            }
        } else {
            try (SendReceiver.Chains chains = SendReceiver.Chains.allocate(s);
                    CompletionArray wcs = CompletionArray.allocate(o.pollBatch())) {
                SendReceiver.postReceives(s, chains.each(), size, rxDepth);
                s.handshake("handshake before the run", s.runTimeout());
                report = SendReceiver.receive(s, chains.each(), wcs, iterations, size, rxDepth);
            }
        }
        limits.count(report);
        printResult(report);
        stdout.flush();
        return report;
    }

    /**
     * The single-process mode: two RC queue pairs of one device connected to each other, the first writing into
     * (or reading from) the second's buffer, with the same loop, figures and table as the client/server run.
     */
    private int loopback(int iterations, int txDepth, long largest) {
        long buffer = PerftestSession.align(Math.max(largest, PerftestSession.CYCLE_BUFFER), PerftestSession.CACHE_LINE) * 2;
        Mtu pathMtu = o.mtu == null ? null : PerftestSession.mtuOf(o.mtu);
        try (LoopbackRig rig = new LoopbackRig(o.device, o.ibPort, o.gidIndex, pathMtu, buffer, txDepth, 1, txDepth)) {
            Mtu active = rig.context.queryPort(o.ibPort).activeMtu();
            out.println(BandwidthReport.RESULT_LINE);
            out.println("                    " + title + " Test (Panama Verbs, loopback)");
            out.println(" Dual-port       : OFF\t\tDevice         : " + rig.context.name());
            out.println(" Number of qps   : 1\t\tTransport type : IB");
            out.println(" Connection type : RC\t\tUsing SRQ      : OFF");
            out.println(" TX depth        : " + txDepth);
            if (o.postList > 1) {
                out.println(" Post List       : " + o.postList);
            }
            out.println(" CQ Moderation   : " + Math.min(o.cqModeration(), txDepth));
            out.println(" Mtu             : " + (pathMtu == null ? active : Mtu.min(pathMtu, active)).bytes() + "[B]");
            out.println(" Link type       : " + SessionPrinter.linkType(rig.context.queryPort(o.ibPort)));
            out.println(" GID index       : " + rig.a.gidIndex());
            out.println(" Max inline data : 0[B]");
            out.println(" rdma_cm QPs\t : OFF");
            out.println(" Data ex. method : none (loopback on one device)");
            out.println(BandwidthReport.RESULT_LINE);
            boolean read = opcode == WrOpcode.RDMA_READ;
            out.print(loopbackAddress(rig.a, rig.mrA).lines("local", read, false, "GID"));
            out.print(loopbackAddress(rig.b, rig.mrB).lines("remote", read, false, "GID"));
            out.println(BandwidthReport.RESULT_LINE);
            out.println(o.bandwidthHeader());
            List<BandwidthReport> reports = new ArrayList<>();
            try (RdmaRun run = new RdmaRun(opcode, List.of(new RdmaRun.Lane(rig.a, rig.mrA, 0, rig.mrB.address(), rig.mrB.rkey())), rig.cqA, txDepth,
                    o.cqModeration(), PerftestSession.CYCLE_BUFFER, PerftestSession.CACHE_LINE, o.postList, o.inlineSize(), o.events)) {
                run.pollBatch(o.pollBatch());
                for (long size : o.allSizes ? allSizes() : new long[] {o.size != null ? o.size : DEFAULT_SIZE}) {
                    int warmup = warmupIterations(iterations);
                    if (warmup > 0) {
                        run.execute(warmup, (int) size);
                    }
                    run.limit(limiter);
                    BandwidthReport report = run.execute(iterations, (int) size).report(size, o.reportGbits, o.noPeak);
                    run.limit(null);
                    stdout.println(o.bandwidthResult(report));
                    reports.add(report);
                }
            }
            out.println(BandwidthReport.RESULT_LINE);
            if (o.json) {
                stdout.println(Json.bandwidth(tool, "loopback", rig.context.name(),
                        (pathMtu == null ? active : Mtu.min(pathMtu, active)).bytes(), o, reports));
            }
            out.flush();
        }
        return 0;
    }

    private static PeerAddress loopbackAddress(QueuePair qp, MemoryRegion mr) {
        QpEndpoint e = qp.localEndpoint();
        return new PeerAddress(e.lid(), 1, e.qpNumber(), e.psn(), mr.rkey(), mr.address(), e.gid(), 0);
    }

    /** Unmeasured iterations before a run: {@code --warmup}, or as many as the run, in whole post lists. */
    private int warmupIterations(int iterations) {
        int warmup = o.warmup < 0 ? iterations : o.warmup;
        return (warmup + o.postList - 1) / o.postList * o.postList;
    }

    /**
     * {@code --report-both}: after the summed line of a bidirectional run, this side's and the peer's figures, each
     * under a header of its own, as perftest prints them (its headers whatever {@code --output} says).
     */
    private void printBoth(BandwidthReport mine, BandwidthReport theirs) {
        printSide("Local", mine);
        printSide("Remote", theirs);
    }

    private void printSide(String side, BandwidthReport report) {
        stdout.println(BandwidthReport.RESULT_LINE);
        stdout.println();
        stdout.println(" " + side + " results: ");
        stdout.println(BandwidthReport.RESULT_LINE);
        stdout.println(o.bandwidthHeader());
        printResult(report);
    }

    /** A result line, and with --out_json the file rewritten with it, as perftest's {@code print_full_bw_report}. */
    private void printResult(BandwidthReport report) {
        if (jsonFile != null) {
            jsonFile.write(report);
        }
        stdout.println(o.bandwidthResult(report));
    }

    /**
     * perftest's {@code xchg_bw_reports}: size, iterations (u64), peak, average, message rate, each its own exchange;
     * with {@code --report-per-port} then each port's average and message rate.
     */
    static BandwidthReport exchangeReports(PerftestSession s, BandwidthReport mine, Duration timeout) {
        long size = s.wire.exchangeLong("report: size", mine.size(), timeout);
        long iterations = s.wire.exchangeLong("report: iterations", mine.iterations(), timeout);
        double peak = exchangeDouble(s, "report: peak", mine.peak(), timeout);
        double average = exchangeDouble(s, "report: average", mine.average(), timeout);
        double rate = exchangeDouble(s, "report: message rate", mine.messageRate(), timeout);
        if (!s.options.reportPerPort) {
            return new BandwidthReport(size, iterations, peak, average, rate);
        }
        // perftest exchanges the ports' figures after these, each on its own, when --report-per-port is given
        BandwidthReport.PortShares ports = mine.ports() != null ? mine.ports() : new BandwidthReport.PortShares(0, 0, 0, 0);
        return new BandwidthReport(size, iterations, peak, average, rate, new BandwidthReport.PortShares(
                exchangeDouble(s, "report: port 1 average", ports.average1(), timeout),
                exchangeDouble(s, "report: port 1 message rate", ports.messageRate1(), timeout),
                exchangeDouble(s, "report: port 2 average", ports.average2(), timeout),
                exchangeDouble(s, "report: port 2 message rate", ports.messageRate2(), timeout)));
    }

    private static double exchangeDouble(PerftestSession s, String what, double mine, Duration timeout) {
        return Double.longBitsToDouble(s.wire.exchangeLong(what, Double.doubleToRawLongBits(mine), timeout));
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
