package org.panamaverbs.bench.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.WrOpcode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ib_write_lat}: both sides write into each other's buffer and spin on its last byte (with
 * {@code --write_with_imm}, poll for the receive each write consumed instead).
 */
@Command(name = "ib_write_lat", mixinStandardHelpOptions = true, sortOptions = false,
        description = "RDMA WRITE latency (ping-pong), client/server, wire-compatible with perftest's ib_write_lat.")
public final class WriteLatency extends Latency {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    @Option(names = "--write_with_imm", description = "RDMA WRITE with immediate: each write consumes a receive"
            + " the peer posted, and each side polls for it instead of the written byte (perftest 25.01 and"
            + " later; 4.5 lacks it)")
    boolean writeWithImm;

    public WriteLatency() {
        super("ib_write_lat");
    }

    @Override
    void validate() {
        o.writeWithImm = writeWithImm;
    }

    @Override
    String title() {
        return writeWithImm ? "RDMA_Write_imm Latency" : super.title(); // perftest's testsStr[WRITE_IMM]
    }

    @Override
    List<LatencyReport> run(PerftestSession s, long[] sizes, int iterations) {
        // write_lat.c: one handshake more than write_bw.c before connecting; no "done" at the end
        s.handshake("address record");
        s.connectAndPrint();
        s.print.latencyHeader();
        List<LatencyReport> reports = new ArrayList<>();
        try (SendChain wrs = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(1);
             RecvChain recvs = RecvChain.allocate(1, 1)) {
            for (long size : sizes) {
                if (writeWithImm) { // write_lat.c: post the receives, a handshake, then the run
                    int depth = rxDepth; // perftest's size_per_qp
                    postReceives(PingPongSide.of(s), recvs, s.receiveLength(size), depth);
                    s.handshake("handshake after posting receives");
                    if (o.duration != null) {
                        TimedSample clock = timedSample();
                        timedImmediatePingPong(PingPongSide.of(s), wrs, wcs, recvs, (int) size,
                                sendFlags((int) size), clock);
                        reportTimed(size, clock, 2);
                        continue;
                    }
                    long[] posted = new long[iterations];
                    immediatePingPong(PingPongSide.of(s), wrs, wcs, recvs, (int) size,
                            sendFlags((int) size), posted, iterations, depth);
                    reports.add(report(measured(size, posted, 2)));
                    continue;
                }
                if (o.duration != null) {
                    TimedSample clock = timedSample();
                    timedWritePingPong(PingPongSide.of(s), wrs, wcs, (int) size, clock);
                    reportTimed(size, clock, 2);
                    continue;
                }
                long[] posted = new long[iterations];
                writePingPong(PingPongSide.of(s), wrs, wcs, (int) size, posted, iterations);
                reports.add(report(measured(size, posted, 2)));
            }
        }
        out.println(BandwidthReport.RESULT_LINE);
        return reports;
    }

    @Override
    void warmUp(PingPongSide client, PingPongSide server, int size, int iterations) {
        int depth = Math.min(rxDepth, iterations); // the warm-up's queue pairs have rxDepth receives
        LocalWarmup.bothSides(client, server, side -> {
            try (SendChain wrs = SendChain.allocate(1, 1); CompletionArray wcs = CompletionArray.allocate(1);
                 RecvChain recvs = RecvChain.allocate(1, 1)) {
                if (writeWithImm) {
                    postReceives(side, recvs, 0, depth);
                    immediatePingPong(side, wrs, wcs, recvs, size, sendFlags(size),
                            new long[iterations], iterations, depth);
                } else {
                    writePingPong(side, wrs, wcs, size, new long[iterations], iterations);
                }
            }
        });
    }

    /** {@code run_iter_lat_write}: the server posts first; each side waits for the peer's n-th byte. */
    private void writePingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, int size,
            long[] posted, int iterations) {
        MemorySegment buffer = s.buffer().segment();
        long postByte = size - 1;
        long pollByte = s.half() + size - 1;
        SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.RDMA_WRITE).flags(sendFlags(size)).sge(s.buffer(), 0, size)
                .remote(s.peerVaddr(), s.peerRkey());
        boolean server = !s.client();
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
                s.gap();
                posted[sent] = System.nanoTime();
                BYTE.set(buffer, postByte, (byte) ++sent);
                wr.wrId(sent);
                Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", sent);
            }
            if (completed < iterations) {
                Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), "RDMA WRITE");
                completed++;
            }
        }
    }

    /**
     * {@code run_iter_lat_write} with {@code -D}: the same ping-pong from this side's start until the duration
     * ends (a wait for the peer's byte gives up then), counting the writes completed in the sample.
     */
    private void timedWritePingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, int size,
            TimedSample clock) {
        MemorySegment buffer = s.buffer().segment();
        long postByte = size - 1;
        long pollByte = s.half() + size - 1;
        SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.RDMA_WRITE).flags(sendFlags(size)).sge(s.buffer(), 0, size)
                .remote(s.peerVaddr(), s.peerRkey());
        boolean server = !s.client();
        int sent = 0;
        int received = 0;
        clock.start();
        while (!clock.over()) {
            if (!(sent < 1 && server) && !awaitByteUntilOver(buffer, pollByte, (byte) ++received, clock)) {
                break;
            }
            s.gap();
            BYTE.set(buffer, postByte, (byte) ++sent);
            wr.wrId(sent);
            Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", sent);
            Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), "RDMA WRITE");
            clock.count();
        }
    }

    /** Spins until the byte at {@code at} is {@code value}: true, or the duration ends first: false. */
    private static boolean awaitByteUntilOver(MemorySegment buffer, long at, byte value, TimedSample clock) {
        int spins = 0;
        while ((byte) BYTE.getVolatile(buffer, at) != value) {
            if ((++spins & 0x3f) == 0) {
                if (clock.over()) {
                    return false;
                }
                if ((spins & 0x3ff) == 0) {
                    Completions.idle();
                }
            }
            Thread.onSpinWait();
        }
        return true;
    }

    private void awaitByte(MemorySegment buffer, long at, byte value, PingPongSide s) {
        long deadline = System.nanoTime() + s.timeout().toNanos();
        int spins = 0;
        while ((byte) BYTE.getVolatile(buffer, at) != value) {
            if ((++spins & 0x3ff) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new PerftestException("the peer's write number " + (value & 0xff)
                            + " did not arrive within " + s.timeout().toSeconds()
                            + " s (is it running the same test and size?)");
                }
                Completions.idle();
            }
            Thread.onSpinWait();
        }
    }

    /*
     * --write_with_imm, perftest 25.01's run_iter_lat_write_imm: the ping-pong above, but each RDMA WRITE carries
     * an immediate (0, as perftest's) and so consumes a receive the peer posted; each side learns of the peer's
     * write from that receive's completion rather than from the written byte. Both sides post their receives (of
     * no bytes) before each size's handshake, as write_lat.c.
     */

    /**
     * The ping-pong: the server waits for the client's first write; each side then answers each receive with a
     * write, waits for the write's completion, and reposts a receive while more writes will come.
     *
     * @param recvs   the receive chain {@link #postReceives} posted
     * @param flags   the writes' send flags
     * @param posted  filled with each write's post time (System.nanoTime)
     * @param depth   the receives posted before the run (perftest's size_per_qp)
     */
    private static void immediatePingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, RecvChain recvs, int size, int flags,
            long[] posted, int iterations, int depth) {
        MemorySegment buffer = s.buffer().segment();
        SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immediateData(0).flags(flags)
                .sge(s.buffer(), 0, size).remote(s.peerVaddr(), s.peerRkey());
        boolean server = !s.client();
        int sent = 0;
        int completed = 0;
        int received = 0;
        while (sent < iterations || completed < iterations || received < iterations) {
            if (received < iterations && !(sent < 1 && server)) {
                Completions.awaitOne(s.recvCq(), wcs, s.timeout(), s.events(), "receive (RDMA WRITE with immediate)");
                received++;
                // as perftest: repost only while more writes will come, so none is left for the next size (-a)
                if (received + depth <= iterations) {
                    s.postRecv(recvs, received);
                }
            }
            if (sent < iterations) {
                s.gap();
                posted[sent] = System.nanoTime();
                BYTE.set(buffer, (long) size - 1, (byte) ++sent); // perftest's *post_buf = ++scnt, as in a WRITE
                wr.wrId(sent);
                Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", sent);
            }
            if (completed < iterations) {
                Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), "RDMA WRITE with immediate");
                completed++;
            }
        }
    }

    /**
     * {@code run_iter_lat_write_imm} with {@code -D}: the same ping-pong from this side's start until the duration
     * ends (a wait for the peer's write gives up then), every receive reposted, counting the writes completed in
     * the sample.
     */
    private static void timedImmediatePingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, RecvChain recvs, int size,
            int flags, TimedSample clock) {
        MemorySegment buffer = s.buffer().segment();
        SendWorkRequest wr = wrs.get(0).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immediateData(0).flags(flags)
                .sge(s.buffer(), 0, size).remote(s.peerVaddr(), s.peerRkey());
        boolean server = !s.client();
        int sent = 0;
        clock.start();
        while (!clock.over()) {
            if (!(sent < 1 && server)) {
                if (!Latency.Send.awaitReceiveUntilOver(s, wcs, clock)) {
                    break;
                }
                s.postRecv(recvs, sent);
            }
            s.gap();
            BYTE.set(buffer, (long) size - 1, (byte) ++sent);
            wr.wrId(sent);
            Completions.check(s.qp().postSend(wrs, 1), "ibv_post_send", sent);
            Completions.awaitOne(s.cq(), wcs, s.timeout(), s.events(), "RDMA WRITE with immediate");
            clock.count();
        }
    }
}
