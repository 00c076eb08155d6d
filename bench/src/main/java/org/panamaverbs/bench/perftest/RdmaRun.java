package org.panamaverbs.bench.perftest;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.ObjIntConsumer;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.WrOpcode;

/**
 * The posting loop of perftest's {@code run_iter_bw} for RDMA WRITE, READ, SEND or an atomic operation on one or more
 * queue pairs ({@code -q}), which share one completion queue: each queue pair in turn gets requests while it has fewer than
 * {@code tx_depth} outstanding, every {@code cq_mod}-th of its requests (and its last) signaled; local and remote
 * addresses advance by the message size rounded up to the cache line and wrap at the cycle buffer when the
 * message fits in half of it ({@code increase_loc_addr}/{@code increase_rem_addr}). Each queue pair runs
 * {@code iterations}; the report counts all of them, as perftest's. Nothing is allocated inside the loop.
 */
public final class RdmaRun implements AutoCloseable {
    /**
     * One queue pair of the run and where its messages go.
     *
     * @param local         the registered buffer its messages are written from or read into (with perftest's
     *                      {@code --mr_per_qp} a region of its own, else the one all queue pairs share)
     * @param localOffset   where in {@code local} its messages start
     * @param remoteAddress the peer's buffer address for this queue pair (unused by SEND)
     * @param rkey          the peer's remote key (unused by SEND)
     */
    public record Lane(QueuePair qp, MemoryRegion local, long localOffset, long remoteAddress, int rkey) {
    }

    private final Lane[] lanes;
    private final WrOpcode opcode;
    /** Whether the requests name the peer's memory: not a SEND, whose request's union holds UD's address instead. */
    private final boolean remote;
    /** Compare-and-swap or fetch-and-add: the target goes into {@code wr.atomic}, the address steps as RDMA's. */
    private final boolean atomic;
    private final CompletionQueue cq;
    private final int txDepth;
    private final int cqModeration;
    private final long cycleBuffer;
    private final long cacheLine;
    private final int postList;
    private final int inlineSize;
    private final boolean events;
    /** Addresses each request to the peer: nothing on RC, the address handle and queue pair number on UD. */
    private ObjIntConsumer<SendWorkRequest> addressing = (wr, lane) -> { };
    /** {@code --rate_limit}'s bursts, or null: posts wait for the next burst once one is sent. */
    private RateLimit limit;
    /** One chain per queue pair: each carries its own remote address. */
    private final SendChain[] chains;
    private CompletionArray wcs = CompletionArray.allocate(PerftestOptions.POLL_BATCH);
    // per queue pair: requests posted and completed, and where its addresses are in the cycle buffer
    private final long[] posted;
    private final long[] completed;
    private final long[] offsets;
    // per queue pair: requests left until the next signaled one (a countdown: a division per request cost more)
    private final int[] untilSignaled;

    /**
     * @param opcode       {@link WrOpcode#RDMA_WRITE}, {@link WrOpcode#RDMA_READ}, {@link WrOpcode#SEND},
     *                     {@link WrOpcode#ATOMIC_FETCH_AND_ADD} or {@link WrOpcode#ATOMIC_CMP_AND_SWP} (8 bytes)
     * @param lanes        the queue pairs, which all complete on {@code cq}, each with its local buffer
     * @param txDepth      requests outstanding at most per queue pair (perftest's {@code -t})
     * @param postList     requests per {@code ibv_post_send} call (perftest's {@code -l}); with more than one the
     *                     addresses stay put, as perftest's
     * @param inlineSize   messages up to this size are sent inline (perftest's {@code -I}; 0: never)
     * @param events       wait for the completion channel before polling (perftest's {@code -e}; the queue needs
     *                     a channel of its own)
     */
    public RdmaRun(WrOpcode opcode, List<Lane> lanes, CompletionQueue cq, int txDepth,
            int cqModeration, long cycleBuffer, long cacheLine, int postList, int inlineSize, boolean events) {
        this.lanes = lanes.toArray(Lane[]::new);
        this.opcode = opcode;
        this.remote = opcode != WrOpcode.SEND && opcode != WrOpcode.SEND_WITH_IMM;
        this.atomic = opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        this.cq = cq;
        this.txDepth = txDepth;
        this.cqModeration = Math.min(cqModeration, txDepth);
        this.cycleBuffer = cycleBuffer;
        this.cacheLine = cacheLine;
        this.postList = postList;
        this.inlineSize = inlineSize;
        this.events = events;
        this.chains = new SendChain[this.lanes.length];
        for (int q = 0; q < chains.length; q++) {
            chains[q] = SendChain.allocate(postList, 1);
        }
        this.posted = new long[this.lanes.length];
        this.completed = new long[this.lanes.length];
        this.offsets = new long[this.lanes.length];
        this.untilSignaled = new int[this.lanes.length];
    }

    /** Sets how each request is addressed to the peer ({@link PerftestSession#address} for UD sends). */
    void addressing(ObjIntConsumer<SendWorkRequest> value) {
        addressing = value;
    }

    /** The completions taken per poll from now on ({@code --cqe_poll}; perftest's {@code CTX_POLL_BATCH} until then). */
    void pollBatch(int completions) {
        if (completions != wcs.capacity()) {
            wcs.close();
            wcs = CompletionArray.allocate(completions);
        }
    }

    /** The software rate limit of the runs from now on ({@code --rate_limit}), or null for none. */
    void limit(RateLimit value) {
        limit = value;
    }

    /** The cq moderation in effect (perftest caps {@code -Q} at {@code -t}). */
    public int cqModeration() {
        return cqModeration;
    }

    /** perftest's {@code INC(size, cache_line_size)}: the address step. */
    static long step(long size, long cacheLine) {
        return size > cacheLine ? (size + cacheLine - 1) / cacheLine * cacheLine : cacheLine;
    }

    /**
     * Posts {@code iterations} requests of {@code size} bytes on each queue pair and waits for them; the
     * timestamps of the run, in the order requests were posted and completions counted (perftest's
     * {@code tposted[totscnt]}, {@code tcompleted[totccnt - 1]}).
     */
    public Timestamps execute(int iterations, int size) {
        if (iterations % postList != 0) {
            throw new IllegalArgumentException(iterations + " iterations are not whole post lists of " + postList);
        }
        int total = iterations * lanes.length;
        Timestamps t = new Timestamps(total);
        prepare(size);
        int totalPosted = 0;
        int totalCompleted = 0;
        while (totalCompleted < total) {
            totalPosted = postWhatFits(t, totalPosted, iterations, size);
            totalCompleted = takeCompletions(t, totalCompleted, events);
        }
        return t;
    }

    /**
     * Posts on each queue pair the post lists its send queue has room for (up to {@code iterations} per queue pair),
     * stamping each request's post time in {@code t}.
     *
     * @return the requests posted so far, over all queue pairs
     */
    private int postWhatFits(Timestamps t, int totalPosted, int iterations, int size) {
        for (int q = 0; q < lanes.length; q++) {
            if (limit != null && !limit.mayPost()) {
                continue; // perftest's run_iter_bw: to the completions until the gap is over
            }
            while (posted[q] < iterations && posted[q] - completed[q] + postList <= txDepth) {
                long now = System.nanoTime();
                for (int j = 0; j < postList; j++) {
                    t.posted[totalPosted + j] = now;
                }
                postList(q, iterations - 1, size);
                totalPosted += postList;
                if (limit != null && limit.posted(postList)) {
                    break;
                }
            }
        }
        return totalPosted;
    }

    /**
     * Takes the completions that arrived ({@code waitForEvent}: waiting for one through the completion channel),
     * stamping each request's completion time in {@code t}.
     *
     * @return the requests completed so far, over all queue pairs
     */
    private int takeCompletions(Timestamps t, int totalCompleted, boolean waitForEvent) {
        int n = Completions.reap(cq, wcs, waitForEvent);
        for (int i = 0; i < n; i++) {
            totalCompleted += complete(wcs.get(i));
            t.completed[totalCompleted - 1] = System.nanoTime();
            t.signaled[totalCompleted - 1] = true;
        }
        return totalCompleted;
    }

    /** The receiving half of a bidirectional SEND run, polled between posts. */
    interface Incoming {
        /** Takes the receives completed by now, reposting what more messages need; how many it took. */
        int poll();
    }

    /**
     * perftest's {@code run_iter_bi} for SEND ({@code -b}): {@link #execute}'s posts and completions with the
     * receives of {@code incoming} polled in the same loop, until {@code iterations} per queue pair are sent and
     * {@code receives} have arrived. {@code afterFirstReceive}: post nothing before the peer's first message
     * arrives (perftest's server, so that neither side sends before the other runs).
     */
    Timestamps executeBidirectional(int iterations, int size, Incoming incoming, long receives,
            boolean afterFirstReceive) {
        if (iterations % postList != 0) {
            throw new IllegalArgumentException(iterations + " iterations are not whole post lists of " + postList);
        }
        int total = iterations * lanes.length;
        Timestamps t = new Timestamps(total);
        prepare(size);
        int totalPosted = 0;
        int totalCompleted = 0;
        long received = 0;
        boolean sending = !afterFirstReceive;
        while (totalCompleted < total || received < receives) {
            if (sending) {
                totalPosted = postWhatFits(t, totalPosted, iterations, size);
            }
            int arrived = incoming.poll();
            received += arrived;
            sending |= arrived > 0;
            totalCompleted = takeCompletions(t, totalCompleted, false);
        }
        return t;
    }

    /**
     * perftest's duration mode ({@code -D}): posts for {@code durationNanos}, counting the messages completed
     * between the margins (the first and last {@code marginNanos}, perftest's {@code -D}/4 whole seconds), as
     * its {@code SAMPLE_STATE}; requests still outstanding at the end are left to the queue pair's teardown, as
     * perftest's. No peak: perftest reports 0. {@code cpu} (or null) reads /proc/stat where the sample starts and ends.
     */
    public BandwidthReport executeFor(long durationNanos, long marginNanos, int size, boolean gbits,
            CpuUtilization cpu) {
        prepare(size);
        sampled = new SampleEdges(completed);
        ClockedRounds.Sample sample = ClockedRounds.sample(System.nanoTime(), durationNanos, marginNanos, cpu,
                () -> fillAndReap(size), sampled);
        return BandwidthReport.ofPeriod(size, sample.messages(), sample.nanos(), gbits);
    }

    /** Per queue pair, the requests the last {@link #executeFor}'s sample counted ({@code --report-per-port}). */
    public long[] sampledPerQueuePair() {
        return sampled == null ? new long[lanes.length] : sampled.inSample();
    }

    /**
     * perftest's {@code --run_infinitely} ({@code run_iter_bw_infinitely}): keeps every queue pair's send queue full
     * until the process is stopped, and at the end of each period of {@code periodNanos} hands {@code report} the
     * period's figures ({@link BandwidthReport#ofPeriod}: the messages completed in it over its length, no peak),
     * from this thread, so the count and the clock are read together. Returns when {@code stopped} says so (asked
     * every millisecond; what is outstanding then is left to the queue pair's teardown, as perftest leaves it).
     */
    public void executeForever(long periodNanos, int size, boolean gbits, Consumer<BandwidthReport> report,
            BooleanSupplier stopped) {
        prepare(size);
        ClockedRounds.periods(periodNanos, () -> fillAndReap(size),
                (messages, nanos) -> report.accept(BandwidthReport.ofPeriod(size, messages, nanos, gbits)), stopped);
    }

    /**
     * A round of the uncounted runs: every send queue filled, then the completions that arrived taken.
     *
     * @return the requests they complete
     */
    private long fillAndReap(int size) {
        for (int q = 0; q < lanes.length; q++) {
            if (limit != null && !limit.mayPost()) {
                continue;
            }
            while (posted[q] - completed[q] + postList <= txDepth) {
                postList(q, -1, size);
                if (limit != null && limit.posted(postList)) {
                    break;
                }
            }
        }
        int n = Completions.reap(cq, wcs, events);
        long done = 0;
        for (int i = 0; i < n; i++) {
            done += complete(wcs.get(i));
        }
        return done;
    }

    /** The last {@link #executeFor}'s counts per queue pair, or null. */
    private SampleEdges sampled;

    // what prepare() sets for one run's size
    private int inline;
    private boolean advance;
    private long step;
    private long wrapEvery;

    /** Fills the requests for messages of {@code size} bytes: opcode, addresses, inline or not; counters to 0. */
    private void prepare(int size) {
        inline = size <= inlineSize ? SendFlags.INLINE : 0;
        for (int q = 0; q < lanes.length; q++) {
            for (int j = 0; j < postList; j++) {
                SendWorkRequest wr = chains[q].get(j).opcode(opcode).sge(lanes[q].local(), lanes[q].localOffset(), size);
                addressing.accept(wr, q);
                if (remote) {
                    target(wr, lanes[q].remoteAddress(), lanes[q].rkey());
                }
            }
            posted[q] = 0;
            completed[q] = 0;
            offsets[q] = 0;
            untilSignaled[q] = cqModeration;
        }
        // a list posts the same addresses each time, as perftest's; single posts walk the cycle buffer
        advance = postList == 1 && size <= cycleBuffer / 2;
        step = step(size, cacheLine);
        wrapEvery = Math.max(1, cycleBuffer / step);
        if (limit != null) {
            limit.start(size);
        }
    }

    /** Points a request at the peer's buffer: {@code wr.rdma}, or for an atomic opcode {@code wr.atomic}. */
    private void target(SendWorkRequest wr, long remoteAddress, int rkey) {
        if (atomic) {
            AtomicTools.target(wr, opcode, remoteAddress, rkey);
        } else {
            wr.remote(remoteAddress, rkey);
        }
    }

    /**
     * Posts the next list of queue pair {@code q}: its requests {@code posted[q]} on, every {@code cqModeration}-th
     * signaled and request {@code last} (-1: none); then moves its addresses on. A request's {@code wr_id} is
     * its queue pair's index (high half) and its number on that queue pair (low half).
     */
    private void postList(int q, long last, int size) {
        long first = posted[q];
        SendChain chain = chains[q];
        for (int j = 0; j < postList; j++) {
            long request = first + j;
            boolean signaled = --untilSignaled[q] == 0 || request == last;
            if (untilSignaled[q] == 0) {
                untilSignaled[q] = cqModeration;
            }
            chain.get(j).wrId((long) q << 32 | request & 0xffffffffL).flags((signaled ? SendFlags.SIGNALED : 0) | inline);
        }
        SendWorkRequest wr = chain.get(0);
        long offset = offsets[q];
        if (advance) {
            if (remote) {
                target(wr, lanes[q].remoteAddress() + offset, lanes[q].rkey());
            }
            wr.sge(lanes[q].local(), lanes[q].localOffset() + offset, size);
        }
        int rc = lanes[q].qp().postSend(chain, postList);
        if (rc != 0) {
            throw new PerftestException("ibv_post_send failed with errno " + rc + " at iteration " + first
                    + (lanes.length > 1 ? " of queue pair " + q : ""));
        }
        if (advance) {
            offsets[q] = (first + 1) % wrapEvery == 0 ? 0 : offset + step;
        }
        posted[q] = first + postList;
    }

    /**
     * Takes a completion: its queue pair's requests up to the one it names are done.
     *
     * @return how many requests it completes (the signaled one and the unsignaled before it)
     * @throws PerftestException for a failed completion
     */
    private int complete(WorkCompletion wc) {
        if (!wc.isSuccess()) {
            throw PerftestException.failedCompletion(wc, opcode + " " + (wc.wrId() & 0xffffffffL)
                    + (lanes.length > 1 ? " of queue pair " + (wc.wrId() >>> 32) : ""));
        }
        return completeThrough(completed, wc);
    }

    /**
     * Counts a successful completion: its queue pair's requests ({@code wr_id}'s high half indexes {@code completed})
     * are done through the one it names; how many it completes.
     */
    static int completeThrough(long[] completed, WorkCompletion wc) {
        int q = (int) (wc.wrId() >>> 32);
        long done = completedThrough(completed[q], wc.wrId() & 0xffffffffL);
        int covered = (int) (done - completed[q]);
        completed[q] = done;
        return covered;
    }

    /**
     * The requests of a queue pair completed once its request whose number's low 32 bits are {@code low} completes,
     * given {@code completedBefore} done so far: a {@code wr_id} holds only the low half of the number, which a long
     * run ({@code --run_infinitely}, {@code -D} on a fast device) outgrows; fewer than 2^32 are ever outstanding.
     */
    static long completedThrough(long completedBefore, long low) {
        return completedBefore + ((low + 1 - completedBefore) & 0xffffffffL);
    }

    @Override
    public void close() {
        for (SendChain chain : chains) {
            chain.close();
        }
        wcs.close();
    }

    /**
     * perftest's {@code tposted}/{@code tcompleted} (nanoseconds instead of cycles): every request's post time in
     * posting order, and at each count of completed requests where a completion arrived, its time.
     */
    public static final class Timestamps {
        public final long[] posted;
        public final long[] completed;
        /** Whether a completion was counted at this position (only there is {@link #completed} set). */
        public final boolean[] signaled;

        Timestamps(int requests) {
            posted = new long[requests];
            completed = new long[requests];
            signaled = new boolean[requests];
        }

        public BandwidthReport report(long size, boolean gbits, boolean noPeak) {
            return BandwidthReport.of(size, posted, completed, signaled, gbits, noPeak);
        }
    }
}
