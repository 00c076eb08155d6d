package org.panamaverbs.bench.perftest;

import java.util.List;

import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WrOpcode;

/**
 * perftest 26.04's {@code run_iter_bw_dv}, the posting loop of {@code --data_validation}: each queue pair walks its
 * ring of slots ({@link ValidationLayout}), one message per slot, and after a chunk's last message chains an
 * unsignaled fetch-and-add of 1 on that chunk's tail marker at the peer, so that the peer's validators (WRITE) or this
 * side's (READ, from the value the fetch-and-add returns) check the chunk. WRITE sends the pattern of the ring's pass
 * into the peer's slot; READ reads the peer's pattern of the pass into its own slot. Each pass over the ring takes the
 * next pattern. Signaling and the send window are {@link RdmaRun}'s ({@code cq_mod}, {@code tx_depth} messages
 * outstanding); the fetch-and-adds ride in the send queue beside them (perftest's is three times as deep). Nothing is
 * allocated inside the loop.
 */
final class ValidatedRun implements AutoCloseable {
    private static final int DATA = 0;
    private static final int FETCH_AND_ADD = 1;

    private final List<RdmaRun.Lane> lanes;
    private final ValidationLayout layout;
    private final MemoryRegion local;
    private final long peerMarkers;
    private final WrOpcode opcode;
    private final CompletionQueue cq;
    private final int txDepth;
    private final int cqModeration;
    private final boolean events;
    /** Per queue pair: its message and the fetch-and-add chained after a chunk's last one. */
    private final SendChain[] chains;
    private final CompletionArray wcs;
    // per queue pair: requests posted and completed, requests left until the next signaled one, the slot of the next
    // message in its ring and the pass over the ring (whose pattern it carries); the slot and pass go on across runs
    private final long[] posted;
    private final long[] completed;
    private final int[] untilSignaled;
    private final int[] slot;
    private final int[] pass;
    private SampleEdges sampled;

    /**
     * @param lanes       the queue pairs, each with its peer's offered address ({@link ValidationLayout#offeredOffset})
     *                    and key
     * @param layout      both sides' buffer (the peer derived the same from the same options)
     * @param local       this side's buffer, laid out as {@code layout}
     * @param peerMarkers the address of the peer's tail markers, from its address record
     * @param read        READ mode, else WRITE
     */
    ValidatedRun(List<RdmaRun.Lane> lanes, ValidationLayout layout, MemoryRegion local, long peerMarkers, boolean read,
            CompletionQueue cq, int txDepth, int cqModeration, int pollBatch, boolean events) {
        this.lanes = List.copyOf(lanes);
        this.layout = layout;
        this.local = local;
        this.peerMarkers = peerMarkers;
        this.opcode = read ? WrOpcode.RDMA_READ : WrOpcode.RDMA_WRITE;
        this.cq = cq;
        this.txDepth = txDepth;
        this.cqModeration = Math.min(cqModeration, txDepth);
        this.events = events;
        int n = this.lanes.size();
        this.chains = new SendChain[n];
        for (int q = 0; q < n; q++) {
            chains[q] = SendChain.allocate(2, 1);
            chains[q].get(DATA).opcode(opcode);
            chains[q].get(FETCH_AND_ADD).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).wrId((long) q << 32 | 0xffffffffL);
        }
        this.wcs = CompletionArray.allocate(pollBatch);
        this.posted = new long[n];
        this.completed = new long[n];
        this.untilSignaled = new int[n];
        this.slot = new int[n];
        this.pass = new int[n];
    }

    /** Posts {@code iterations} messages on each queue pair and waits for them; the run's timestamps. */
    RdmaRun.Timestamps execute(int iterations) {
        int total = iterations * lanes.size();
        RdmaRun.Timestamps t = new RdmaRun.Timestamps(total);
        start();
        int totalPosted = 0;
        int totalCompleted = 0;
        while (totalCompleted < total) {
            for (int q = 0; q < lanes.size(); q++) {
                while (posted[q] < iterations && posted[q] - completed[q] < txDepth) {
                    t.posted[totalPosted++] = System.nanoTime();
                    post(q, iterations - 1);
                }
            }
            int n = Completions.reap(cq, wcs, events);
            for (int i = 0; i < n; i++) {
                totalCompleted += complete(wcs.get(i));
                t.completed[totalCompleted - 1] = System.nanoTime();
                t.signaled[totalCompleted - 1] = true;
            }
        }
        return t;
    }

    /** perftest's duration mode ({@code -D}) for this loop: {@link RdmaRun#executeFor}'s sample and margins. */
    BandwidthReport executeFor(long durationNanos, long marginNanos, int size, boolean gbits, CpuUtilization cpu) {
        start();
        sampled = new SampleEdges(completed);
        ClockedRounds.Sample sample = ClockedRounds.sample(System.nanoTime(), durationNanos, marginNanos, cpu,
                this::fillAndReap, sampled);
        return BandwidthReport.ofPeriod(size, sample.messages(), sample.nanos(), gbits);
    }

    /** Per queue pair, the requests the last {@link #executeFor}'s sample counted. */
    long[] sampledPerQueuePair() {
        return sampled == null ? new long[lanes.size()] : sampled.inSample();
    }

    private long fillAndReap() {
        for (int q = 0; q < lanes.size(); q++) {
            while (posted[q] - completed[q] < txDepth) {
                post(q, -1);
            }
        }
        int n = Completions.reap(cq, wcs, events);
        long done = 0;
        for (int i = 0; i < n; i++) {
            done += complete(wcs.get(i));
        }
        return done;
    }

    private void start() {
        for (int q = 0; q < lanes.size(); q++) {
            posted[q] = 0;
            completed[q] = 0;
            untilSignaled[q] = cqModeration;
        }
    }

    /**
     * Posts queue pair {@code q}'s next message, into (or from) the slot its ring is at, every {@code cqModeration}-th
     * and request {@code last} signaled, and after a chunk's last message the chunk's fetch-and-add.
     */
    private void post(int q, long last) {
        long request = posted[q];
        boolean signaled = --untilSignaled[q] == 0 || request == last;
        if (untilSignaled[q] == 0) {
            untilSignaled[q] = cqModeration;
        }
        RdmaRun.Lane lane = lanes.get(q);
        int s = slot[q];
        long payload = layout.payload();
        SendWorkRequest data = chains[q].get(DATA).wrId((long) q << 32 | request & 0xffffffffL)
                .flags(signaled ? SendFlags.SIGNALED : 0);
        long patternOffset = (long) pass[q] * payload;
        if (opcode == WrOpcode.RDMA_WRITE) {
            data.sge(local, patternOffset, (int) payload).remote(lane.remoteAddress() + s * payload, lane.rkey());
        } else {
            data.sge(local, layout.ringOffset(q) + s * payload, (int) payload)
                    .remote(lane.remoteAddress() + patternOffset, lane.rkey());
        }
        int count = 1;
        if ((s + 1) % layout.opsPerChunk() == 0) {
            int index = layout.markerIndex(q, s / layout.opsPerChunk());
            chains[q].get(FETCH_AND_ADD).sge(local, layout.returnOffset(q, index), Long.BYTES)
                    .atomic(peerMarkers + (long) index * Long.BYTES, lane.rkey(), 1, 0);
            count = 2;
        }
        int rc = lane.qp().postSend(chains[q], count);
        if (rc != 0) {
            throw new PerftestException("ibv_post_send failed with errno " + rc + " at iteration " + request
                    + (lanes.size() > 1 ? " of queue pair " + q : "") + " (--data_validation)");
        }
        posted[q] = request + 1;
        if (++slot[q] == layout.slotsPerQp()) {
            slot[q] = 0;
            pass[q] = (pass[q] + 1) % ValidationLayout.PATTERNS;
        }
    }

    /** A completion: its queue pair's messages up to the one it names are done (fetch-and-adds are never signaled). */
    private int complete(WorkCompletion wc) {
        if (!wc.isSuccess()) {
            long request = wc.wrId() & 0xffffffffL;
            throw PerftestException.failedCompletion(wc, (request == 0xffffffffL ? "the fetch-and-add on a tail marker"
                    : opcode + " " + request) + (lanes.size() > 1 ? " of queue pair " + (wc.wrId() >>> 32) : "")
                    + " (--data_validation)");
        }
        return RdmaRun.completeThrough(completed, wc);
    }

    @Override
    public void close() {
        for (SendChain chain : chains) {
            chain.close();
        }
        wcs.close();
    }
}
