package org.panamaverbs.bench.perftest;

import java.time.Duration;
import java.util.function.Consumer;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SharedReceiveQueue;

/**
 * What a latency tool's loop needs of one side: its queue pair and queues, its buffer (sent from at 0, written by
 * the peer at {@code half}), the peer's buffer, its role and its bounds. Either a side of the test
 * ({@link #of(PerftestSession)}) or one of the two queue pairs of the local warm-up, so that the same loop code
 * runs (and is compiled by the JIT) before the measured run.
 *
 * @param addressing addresses a SEND to the peer (UD: address handle and queue pair; RC: nothing)
 * @param gapNanos   {@code --latency_gap}: how long to spin before each post (0: none)
 * @param srq        {@code --use-srq}'s shared receive queue, which the receives go to; null: the queue pair's own
 * @param receivesImmediates {@code --send_with_imm}: every receive must carry an immediate
 */
record PingPongSide(QueuePair qp, CompletionQueue cq, CompletionQueue recvCq, MemoryRegion buffer, long half,
        long peerVaddr, int peerRkey, boolean client, Duration timeout, boolean events,
        Consumer<SendWorkRequest> addressing, long gapNanos, SharedReceiveQueue srq, boolean receivesImmediates) {

    /** This side of the test. */
    static PingPongSide of(PerftestSession s) {
        return new PingPongSide(s.qp, s.cq, s.recvCq, s.buffer, s.half, s.peer.vaddr(), s.peer.rkey(), s.wire.isClient(),
                s.options.timeout(), s.options.events, s::address, s.options.latencyGapMicros * 1000L, s.srq,
                s.options.receivesImmediates());
    }

    /** Posts {@code recvs}' first receive: to the shared receive queue if there is one (perftest's), else the QP's. */
    void postRecv(RecvChain recvs, long counter) {
        Completions.check(srq != null ? srq.postRecv(recvs, 1) : qp.postRecv(recvs, 1),
                srq != null ? "ibv_post_srq_recv" : "ibv_post_recv", counter);
    }

    /**
     * perftest's {@code --latency_gap}: spins for the gap before a post, so the gap is part of the time from one
     * post to the next, as in perftest, which waits before it reads the clock.
     */
    void gap() {
        if (gapNanos > 0) {
            long end = System.nanoTime() + gapNanos;
            while (System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
        }
    }
}
