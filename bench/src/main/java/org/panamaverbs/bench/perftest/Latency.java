package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.RecvWorkRequests;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SendWorkRequests;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WorkCompletions;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code ib_write_lat}, {@code ib_read_lat} and {@code ib_send_lat} over RC, wire-compatible with perftest 4.5:
 * each follows its C tool's sequence of handshakes ({@code write_lat.c}, {@code read_lat.c}, {@code send_lat.c})
 * and its ping-pong loop ({@code run_iter_lat_write}, {@code run_iter_lat}, {@code run_iter_lat_send}), and prints
 * perftest's latency line ({@link LatencyReport}). Every wait for the peer is bounded by {@code --timeout}.
 */
abstract class Latency implements Callable<Integer> {
    static final long DEFAULT_SIZE = 2;
    static final int DEFAULT_ITERATIONS = 1000;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    @Mixin
    PerftestOptions o;
    final PrintStream out = System.out;
    final String tool;

    Latency(String tool) {
        this.tool = tool;
    }

    /** {@code ib_write_lat}: both sides write into each other's buffer and spin on its last byte. */
    @Command(name = "ib_write_lat", mixinStandardHelpOptions = true, sortOptions = false,
            description = "RDMA WRITE latency (ping-pong), client/server, wire-compatible with perftest's ib_write_lat.")
    public static final class Write extends Latency {
        public Write() {
            super("ib_write_lat");
        }

        @Override
        List<LatencyReport> run(PerftestSession s, long[] sizes, int iterations) {
            // write_lat.c: one handshake more than write_bw.c before connecting; no "done" at the end
            s.handshake("address record");
            s.connectAndPrint();
            s.printLatencyHeader();
            List<LatencyReport> reports = new ArrayList<>();
            try (SendWorkRequests wrs = SendWorkRequests.allocate(1, 1); WorkCompletions wcs = WorkCompletions.allocate(1)) {
                for (long size : sizes) {
                    long[] posted = new long[iterations];
                    writePingPong(s, wrs, wcs, (int) size, posted, iterations);
                    reports.add(report(LatencyReport.of(size, posted, 2)));
                }
            }
            out.println(BandwidthReport.RESULT_LINE);
            return reports;
        }

        /** {@code run_iter_lat_write}: the server posts first; each side waits for the peer's n-th byte. */
        private void writePingPong(PerftestSession s, SendWorkRequests wrs, WorkCompletions wcs, int size,
                long[] posted, int iterations) {
            MemorySegment buffer = s.buffer.segment();
            long postByte = size - 1;
            long pollByte = s.half + size - 1;
            SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.RDMA_WRITE).flags(sendFlags(size)).sge(s.buffer, 0, size)
                    .remote(s.peer.vaddr(), s.peer.rkey());
            boolean server = !s.wire.isClient();
            int sent = 0;
            int completed = 0;
            int received = 0;
            // the counters of earlier sizes left the bytes at some value: perftest counts from 0 again as well
            while (sent < iterations || completed < iterations || received < iterations) {
                if (received < iterations && !(sent < 1 && server)) {
                    received++;
                    awaitByte(buffer, pollByte, (byte) received, s);
                }
                if (sent < iterations) {
                    posted[sent] = System.nanoTime();
                    BYTE.set(buffer, postByte, (byte) ++sent);
                    wr.id(sent);
                    Completions.check(s.qp.postSend(wrs, 1), "ibv_post_send", sent);
                }
                if (completed < iterations) {
                    Completions.awaitOne(s.cq, wcs, s, "RDMA WRITE");
                    completed++;
                }
            }
        }

        private void awaitByte(MemorySegment buffer, long at, byte value, PerftestSession s) {
            long deadline = System.nanoTime() + s.options.timeout().toNanos();
            int spins = 0;
            while ((byte) BYTE.getVolatile(buffer, at) != value) {
                if ((++spins & 0x3ff) == 0 && System.nanoTime() - deadline > 0) {
                    throw new PerftestException("the peer's write number " + (value & 0xff) + " did not arrive within "
                            + s.options.timeout().toSeconds() + " s (is it running the same test and size?)");
                }
                Thread.onSpinWait();
            }
        }
    }

    /** {@code ib_read_lat}: only the client reads; the server waits for it to finish. */
    @Command(name = "ib_read_lat", mixinStandardHelpOptions = true, sortOptions = false,
            description = "RDMA READ latency, client/server, wire-compatible with perftest's ib_read_lat.")
    public static final class Read extends Latency {
        public Read() {
            super("ib_read_lat");
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
            s.printLatencyHeader();
            try (SendWorkRequests wrs = SendWorkRequests.allocate(1, 1); WorkCompletions wcs = WorkCompletions.allocate(1)) {
                for (long size : sizes) {
                    SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                            .sge(s.buffer, 0, (int) size).remote(s.peer.vaddr(), s.peer.rkey());
                    long[] posted = new long[iterations];
                    for (int i = 0; i < iterations; i++) {
                        posted[i] = System.nanoTime();
                        wr.id(i);
                        Completions.check(s.qp.postSend(wrs, 1), "ibv_post_send", i);
                        Completions.awaitOne(s.cq, wcs, s, "RDMA READ");
                    }
                    reports.add(report(LatencyReport.of(size, posted, 1)));
                }
            }
            s.wire.closeConnection(s.mine, s.options.timeout());
            out.println(BandwidthReport.RESULT_LINE);
            return reports;
        }
    }

    /** {@code ib_send_lat}: SEND ping-pong; the client sends first, each side answers each receive. */
    @Command(name = "ib_send_lat", mixinStandardHelpOptions = true, sortOptions = false,
            description = "SEND latency (ping-pong), client/server, wire-compatible with perftest's ib_send_lat.")
    public static final class Send extends Latency {
        public Send() {
            super("ib_send_lat");
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
            s.printLocal();
            s.handshakeAndPrintRemote();
            s.printLatencyHeader();
            List<LatencyReport> reports = new ArrayList<>();
            int depth = s.qp.capabilities().maxRecvWr();
            try (SendWorkRequests wrs = SendWorkRequests.allocate(1, 1); WorkCompletions wcs = WorkCompletions.allocate(1);
                 RecvWorkRequests recvs = RecvWorkRequests.allocate(1, 1)) {
                for (long size : sizes) {
                    recvs.get(0).sge(s.buffer, s.half, s.receiveLength(size));
                    for (int i = 0; i < depth; i++) {
                        recvs.get(0).id(i);
                        Completions.check(s.qp.postRecv(recvs, 1), "ibv_post_recv", i);
                    }
                    s.handshake("handshake after posting receives");
                    long[] posted = new long[iterations];
                    sendPingPong(s, wrs, wcs, recvs, (int) size, posted, iterations, depth);
                    reports.add(report(LatencyReport.of(size, posted, 2)));
                }
            }
            out.println(BandwidthReport.RESULT_LINE);
            s.wire.closeConnection(s.mine, s.options.timeout());
            return reports;
        }

        /** {@code run_iter_lat_send} with one signaled send at a time (latency tests run with tx depth 1). */
        private void sendPingPong(PerftestSession s, SendWorkRequests wrs, WorkCompletions wcs, RecvWorkRequests recvs,
                int size, long[] posted, int iterations, int depth) {
            SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.SEND).flags(sendFlags(size)).sge(s.buffer, 0, size);
            s.address(wr);
            boolean client = s.wire.isClient();
            int sent = 0;
            int received = 0;
            while (sent < iterations || received < iterations) {
                if (received < iterations && !(sent < 1 && client)) {
                    Completions.awaitOne(s.recvCq, wcs, s, "receive");
                    received++;
                    // as perftest: repost only while more messages will come, so no receive is left posted
                    // when the next size (-a) posts its own
                    if (received + depth <= iterations) {
                        Completions.check(s.qp.postRecv(recvs, 1), "ibv_post_recv", received);
                    }
                }
                if (sent < iterations) {
                    posted[sent] = System.nanoTime();
                    wr.id(sent);
                    sent++;
                    Completions.check(s.qp.postSend(wrs, 1), "ibv_post_send", sent);
                    Completions.awaitOne(s.cq, wcs, s, "SEND");
                }
            }
        }
    }

    boolean readTest() {
        return false;
    }

    boolean sendTest() {
        return false;
    }

    /** Every request signaled; inline up to {@code -I} bytes, as perftest's {@code ctx_set_send_wqes}. */
    int sendFlags(int size) {
        return SendFlags.SIGNALED | (size <= o.inlineSize() ? SendFlags.INLINE : 0);
    }

    /** The tool's sequence after the banner; returns its reports. */
    abstract List<LatencyReport> run(PerftestSession s, long[] sizes, int iterations);

    @Override
    public Integer call() {
        o.validate(DEFAULT_SIZE);
        o.refuseUnimplemented(tool);
        if (o.bidirectional) {
            throw new PerftestException("-b: bidirectional is only available in BW tests (as perftest)");
        }
        PerftestOptions.refuse(tool, o.queuePairs != 1, "-q (several queue pairs; the bandwidth tools have it)");
        PerftestOptions.refuse(tool, o.duration != null, "-D (duration; ib_write_bw and ib_read_bw have it)");
        PerftestOptions.refuse(tool, o.loopback, "--loopback");
        PerftestOptions.refuse(tool, o.warmup > 0, "--warmup (a latency test has no warm-up: the C peer would not take part)");
        PerftestOptions.refuse(tool, o.txDepth != null && o.txDepth != 1, "-t other than 1 (latency tests post one at a time)");
        if (o.events && tool.equals("ib_write_lat")) {
            throw new PerftestException("-e: events feature not available on WRITE verb (perftest refuses it too)");
        }
        PerftestOptions.refuse(tool, o.postList != 1, "-l (post lists are supported in bandwidth tests only)");
        PerftestOptions.refuse(tool, readTest() && o.inlineSize() > 0, "-I (RDMA READ carries no payload to inline)");
        int iterations = o.iterations != null ? o.iterations : DEFAULT_ITERATIONS;
        if (iterations < 4) {
            throw new PerftestException("-n must be at least 4 for a latency test (perftest drops 3 samples), not " + iterations);
        }
        long largest = o.bufferMessageSize(DEFAULT_SIZE);
        String title = switch (tool) {
            case "ib_write_lat" -> "RDMA_Write Latency";
            case "ib_read_lat" -> "RDMA_Read Latency";
            default -> "Send Latency";
        };
        Access[] access = readTest() ? new Access[] {Access.LOCAL_WRITE, Access.REMOTE_READ}
                : sendTest() ? new Access[] {Access.LOCAL_WRITE} : new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE};
        int rxDepth = sendTest() ? PerftestOptions.sendRxDepth(o.rxDepth, iterations) : 1;
        try (PerftestSession s = new PerftestSession(o, title, false, sendTest(), largest, 1, rxDepth, readTest(),
                out, access)) {
            long[] sizes = o.allSizes ? s.allSizes() : new long[] {o.size != null ? o.size : DEFAULT_SIZE};
            List<LatencyReport> reports = run(s, sizes, iterations);
            if (o.json) {
                out.println(Json.latency(tool, s, reports));
            }
            out.flush();
        }
        return 0;
    }


    /** Prints a report (and the histogram with {@code -H}) and returns it. */
    LatencyReport report(LatencyReport r) {
        if (o.histogram) {
            out.print(r.histogramLines());
            out.println(BandwidthReport.RESULT_LINE);
            out.println(LatencyReport.RESULT_FMT_LAT);
        }
        out.println(r.line());
        out.flush();
        return r;
    }
}
