package org.panamaverbs.bench.perftest;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SendWorkRequests;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WorkCompletions;
import org.panamaverbs.verbs.WrOpcode;

/**
 * The posting loop of perftest's {@code run_iter_bw} for RDMA WRITE, READ or SEND on one queue pair: up to {@code tx_depth}
 * requests outstanding, every {@code cq_mod}-th (and the last) signaled, local and remote addresses advancing by
 * the message size rounded up to the cache line and wrapping at the cycle buffer when the message fits in half of
 * it ({@code increase_loc_addr}/{@code increase_rem_addr}). Nothing is allocated inside the loop.
 */
public final class RdmaRun implements AutoCloseable {
    private final QueuePair qp;
    private final WrOpcode opcode;
    private final CompletionQueue cq;
    private final MemoryRegion local;
    private final long localOffset;
    private final long remoteBase;
    private final int rkey;
    private final int txDepth;
    private final int cqModeration;
    private final long cycleBuffer;
    private final long cacheLine;
    private final SendWorkRequests wrs = SendWorkRequests.allocate(1, 1);
    private final WorkCompletions wcs = WorkCompletions.allocate(16);

    /**
     * @param opcode      {@link WrOpcode#RDMA_WRITE}, {@link WrOpcode#RDMA_READ} or {@link WrOpcode#SEND}
     * @param local       the registered buffer written from or read into, starting at {@code localOffset}
     * @param remoteBase  the peer's buffer address, accessed at {@code remoteBase} onwards
     * @param txDepth     requests outstanding at most (perftest's {@code -t})
     */
    public RdmaRun(QueuePair qp, WrOpcode opcode, CompletionQueue cq, MemoryRegion local, long localOffset, long remoteBase, int rkey,
            int txDepth, int cqModeration, long cycleBuffer, long cacheLine) {
        this.qp = qp;
        this.opcode = opcode;
        this.cq = cq;
        this.local = local;
        this.localOffset = localOffset;
        this.remoteBase = remoteBase;
        this.rkey = rkey;
        this.txDepth = txDepth;
        this.cqModeration = Math.min(cqModeration, txDepth);
        this.cycleBuffer = cycleBuffer;
        this.cacheLine = cacheLine;
    }

    /** The cq moderation in effect (perftest caps {@code -Q} at {@code -t}). */
    public int cqModeration() {
        return cqModeration;
    }

    /** perftest's {@code INC(size, cache_line_size)}: the address step. */
    static long step(long size, long cacheLine) {
        return size > cacheLine ? (size + cacheLine - 1) / cacheLine * cacheLine : cacheLine;
    }

    /** Posts {@code iterations} requests of {@code size} bytes and waits for them; the timestamps of the run. */
    public Timestamps execute(int iterations, int size) {
        Timestamps t = new Timestamps(iterations, cqModeration);
        boolean advance = size <= cycleBuffer / 2;
        long step = step(size, cacheLine);
        long wrapEvery = Math.max(1, cycleBuffer / step);
        SendWorkRequest wr = wrs.get(0).opcode(opcode).sge(local, localOffset, size);
        int posted = 0;
        int completed = 0;
        long offset = 0;
        while (completed < iterations) {
            while (posted < iterations && posted - completed < txDepth) {
                wr.id(posted).flags(t.signaled[posted] ? SendFlags.SIGNALED : 0);
                if (opcode != WrOpcode.SEND) {
                    wr.remote(remoteBase + offset, rkey);
                }
                if (advance) {
                    wr.sge(local, localOffset + offset, size);
                }
                t.posted[posted] = System.nanoTime();
                int rc = qp.postSend(wrs, 1);
                if (rc != 0) {
                    throw new PerftestException("ibv_post_send failed with errno " + rc + " at iteration " + posted);
                }
                if (advance) {
                    offset = (posted + 1) % wrapEvery == 0 ? 0 : offset + step;
                }
                posted++;
            }
            int n = cq.poll(wcs);
            if (n < 0) {
                throw new PerftestException("ibv_poll_cq failed with " + n);
            }
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, opcode + " " + wc.wrId());
                }
                int index = (int) wc.wrId();
                t.completed[index] = System.nanoTime();
                completed = index + 1;
            }
        }
        return t;
    }

    @Override
    public void close() {
        wrs.close();
        wcs.close();
    }

    /** perftest's {@code tposted}/{@code tcompleted} (nanoseconds instead of cycles) and which requests were signaled. */
    public static final class Timestamps {
        public final long[] posted;
        public final long[] completed;
        public final boolean[] signaled;

        Timestamps(int iterations, int cqModeration) {
            posted = new long[iterations];
            completed = new long[iterations];
            signaled = new boolean[iterations];
            for (int i = 0; i < iterations; i++) {
                signaled[i] = i % cqModeration == cqModeration - 1 || i == iterations - 1;
            }
        }

        public BandwidthReport report(long size, boolean gbits) {
            return BandwidthReport.of(size, posted, completed, signaled, gbits);
        }
    }
}
