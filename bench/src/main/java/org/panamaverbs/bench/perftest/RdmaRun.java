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
    private final int postList;
    private final int inlineSize;
    private final boolean events;
    /** Addresses each request to the peer: nothing on RC, the address handle and queue pair number on UD. */
    private java.util.function.Consumer<SendWorkRequest> addressing = wr -> { };
    private final SendWorkRequests wrs;
    private final WorkCompletions wcs = WorkCompletions.allocate(16);

    /**
     * @param opcode      {@link WrOpcode#RDMA_WRITE}, {@link WrOpcode#RDMA_READ} or {@link WrOpcode#SEND}
     * @param local       the registered buffer written from or read into, starting at {@code localOffset}
     * @param remoteBase  the peer's buffer address, accessed at {@code remoteBase} onwards
     * @param txDepth     requests outstanding at most (perftest's {@code -t})
     * @param postList    requests per {@code ibv_post_send} call (perftest's {@code -l}); with more than one the
     *                    addresses stay put, as perftest's
     * @param inlineSize  messages up to this size are sent inline (perftest's {@code -I}; 0: never)
     * @param events      wait for the completion channel before polling (perftest's {@code -e}; the queue needs
     *                    a channel of its own)
     */
    public RdmaRun(QueuePair qp, WrOpcode opcode, CompletionQueue cq, MemoryRegion local, long localOffset, long remoteBase, int rkey,
            int txDepth, int cqModeration, long cycleBuffer, long cacheLine, int postList, int inlineSize, boolean events) {
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
        this.postList = postList;
        this.inlineSize = inlineSize;
        this.events = events;
        this.wrs = SendWorkRequests.allocate(postList, 1);
    }

    /** Sets how each request is addressed to the peer ({@link PerftestSession#address} for UD sends). */
    void addressing(java.util.function.Consumer<SendWorkRequest> value) {
        addressing = value;
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
        if (iterations % postList != 0) {
            throw new IllegalArgumentException(iterations + " iterations are not whole post lists of " + postList);
        }
        Timestamps t = new Timestamps(iterations, cqModeration);
        prepare(size);
        int posted = 0;
        int completed = 0;
        while (completed < iterations) {
            while (posted < iterations && posted - completed + postList <= txDepth) {
                long now = System.nanoTime();
                for (int j = 0; j < postList; j++) {
                    t.posted[posted + j] = now;
                }
                postList(posted, iterations - 1, size);
                posted += postList;
            }
            int n = Completions.reap(cq, wcs, events);
            for (int i = 0; i < n; i++) {
                int index = (int) checked(wcs.get(i));
                t.completed[index] = System.nanoTime();
                completed = index + 1;
            }
        }
        return t;
    }

    /**
     * perftest's duration mode ({@code -D}): posts for {@code durationNanos}, counting the messages completed
     * between the margins (the first and last {@code marginNanos}, perftest's {@code -D}/4 whole seconds), as
     * its {@code SAMPLE_STATE}; requests still outstanding at the end are left to the queue pair's teardown, as
     * perftest's. No peak: perftest reports 0.
     */
    public BandwidthReport executeFor(long durationNanos, long marginNanos, int size, boolean gbits) {
        prepare(size);
        long start = System.nanoTime();
        long sampleFrom = start + marginNanos;
        long sampleUntil = start + durationNanos - marginNanos;
        long end = start + durationNanos;
        long sampleStart = 0;
        long sampleEnd = 0;
        long sampled = 0;
        long posted = 0;
        long completed = 0;
        while (true) {
            long now = System.nanoTime();
            if (sampleStart == 0 && now - sampleFrom >= 0) {
                sampleStart = now;
            }
            if (sampleEnd == 0 && now - sampleUntil >= 0) {
                sampleEnd = now;
            }
            if (now - end >= 0) {
                break;
            }
            while (posted - completed + postList <= txDepth) {
                postList(posted, -1, size);
                posted += postList;
            }
            int n = Completions.reap(cq, wcs, events);
            for (int i = 0; i < n; i++) {
                completed = checked(wcs.get(i)) + 1;
                if (sampleStart != 0 && sampleEnd == 0) {
                    sampled += cqModeration;
                }
            }
        }
        double seconds = (sampleEnd - sampleStart) / 1e9;
        double factor = gbits ? BandwidthReport.GBITS_FACTOR : BandwidthReport.MBYTES_FACTOR;
        return new BandwidthReport(size, sampled, 0, size * (double) sampled / seconds / factor, sampled / seconds / 1e6);
    }

    // what prepare() sets for one run's size
    private int inline;
    private boolean advance;
    private long step;
    private long wrapEvery;
    private long offset;

    /** Fills the requests for messages of {@code size} bytes: opcode, local and remote addresses, inline or not. */
    private void prepare(int size) {
        inline = size <= inlineSize ? SendFlags.INLINE : 0;
        for (int j = 0; j < postList; j++) {
            wrs.get(j).opcode(opcode).sge(local, localOffset, size);
            addressing.accept(wrs.get(j));
            if (opcode != WrOpcode.SEND) {
                wrs.get(j).remote(remoteBase, rkey);
            }
        }
        // a list posts the same addresses each time, as perftest's; single posts walk the cycle buffer
        advance = postList == 1 && size <= cycleBuffer / 2;
        step = step(size, cacheLine);
        wrapEvery = Math.max(1, cycleBuffer / step);
        offset = 0;
    }

    /**
     * Posts requests {@code first} to {@code first + postList - 1}: every {@code cqModeration}-th signaled, and
     * request {@code last} (-1: none), then moves the addresses on.
     */
    private void postList(long first, long last, int size) {
        for (int j = 0; j < postList; j++) {
            long request = first + j;
            boolean signaled = request % cqModeration == cqModeration - 1 || request == last;
            wrs.get(j).id(request).flags((signaled ? SendFlags.SIGNALED : 0) | inline);
        }
        SendWorkRequest wr = wrs.get(0);
        if (advance) {
            if (opcode != WrOpcode.SEND) {
                wr.remote(remoteBase + offset, rkey);
            }
            wr.sge(local, localOffset + offset, size);
        }
        int rc = qp.postSend(wrs, postList);
        if (rc != 0) {
            throw new PerftestException("ibv_post_send failed with errno " + rc + " at iteration " + first);
        }
        if (advance) {
            offset = (first + 1) % wrapEvery == 0 ? 0 : offset + step;
        }
    }

    /** A completion's request number; a failed completion is an error. */
    private long checked(WorkCompletion wc) {
        if (!wc.isSuccess()) {
            throw PerftestException.failedCompletion(wc, opcode + " " + wc.wrId());
        }
        return wc.wrId();
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
