package org.panamaverbs.bench.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.WrOpcode;

/**
 * {@code ib_write_lat --write_with_imm}, perftest 25.01's {@code run_iter_lat_write_imm}: the ping-pong of
 * {@code ib_write_lat}, but each RDMA WRITE carries an immediate (0, as perftest's) and so consumes a receive the
 * peer posted; each side learns of the peer's write from that receive's completion rather than from the written
 * byte. Both sides post their receives (of no bytes) before each size's handshake, as {@code write_lat.c}.
 */
final class WriteImmediateLatency {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private WriteImmediateLatency() {
    }

    /**
     * The ping-pong: the server waits for the client's first write; each side then answers each receive with a
     * write, waits for the write's completion, and reposts a receive while more writes will come.
     *
     * @param recvs   the receive chain {@link Latency#postReceives} posted
     * @param flags   the writes' send flags
     * @param posted  filled with each write's post time (System.nanoTime)
     * @param depth   the receives posted before the run (perftest's size_per_qp)
     */
    static void pingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, RecvChain recvs, int size, int flags,
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
    static void timedPingPong(PingPongSide s, SendChain wrs, CompletionArray wcs, RecvChain recvs, int size,
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
