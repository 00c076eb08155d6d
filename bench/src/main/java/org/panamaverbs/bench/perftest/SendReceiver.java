package org.panamaverbs.bench.perftest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.panamaverbs.verbs.CompletionArray;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.WorkCompletion;

/**
 * The receiving side of perftest's SEND bandwidth runs ({@code run_iter_bw_server} and its duration and
 * {@code --run_infinitely} forms; also the receives of {@code ib_write_bw --write_with_imm}): each queue pair's
 * receives posted before the run, into the slot offered for it (or its share of the SRQ), reposted as they complete,
 * a list of {@code --recv_post_list} at a time.
 */
final class SendReceiver {
    private SendReceiver() {
    }

    /** One receive chain per queue pair, of {@code --recv_post_list} requests each, closed together. */
    record Chains(List<RecvChain> each) implements AutoCloseable {
        static Chains allocate(PerftestSession s) {
            List<RecvChain> each = new ArrayList<>();
            try {
                for (int q = 0; q < s.qps.size(); q++) {
                    each.add(RecvChain.allocate(s.options.recvPostList, 1));
                }
            } catch (RuntimeException | Error e) {
                each.forEach(RecvChain::close);
                throw e;
            }
            return new Chains(List.copyOf(each));
        }

        @Override
        public void close() {
            each.forEach(RecvChain::close);
        }
    }

    /**
     * Posts each queue pair's receives for messages of {@code size} (its whole receive queue, or its share of the
     * SRQ, in whole lists of {@code --recv_post_list}), each into the slot offered for its queue pair.
     */
    static void postReceives(PerftestSession s, List<RecvChain> recvs, long size, int rxDepth) {
        for (int q = 0; q < s.qps.size(); q++) {
            // wr_id: the queue pair the receive is for, which with an SRQ may not be the one it serves
            RecvChain chain = recvs.get(q);
            int list = s.options.recvPostList;
            for (int j = 0; j < list; j++) {
                chain.get(j).sge(s.buffers.get(q), s.receiveOffset(q), s.receiveLength(size)).wrId(q);
            }
            for (int i = 0; i < initialReceives(s, q, rxDepth, list); i += list) {
                postReceiveList(s, recvs, q, list, i);
            }
        }
    }

    /**
     * {@code run_iter_bw_server}: counts the receives of every queue pair ({@code iterations} each); times the first
     * and the end.
     */
    static BandwidthReport receive(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, int iterations,
            long size, int rxDepth) {
        Receives incoming = new Receives(s, recvs, wcs, iterations, rxDepth, s.options.recvPostList, s.options.events);
        while (incoming.received < incoming.total) {
            incoming.poll();
        }
        long end = System.nanoTime();
        double factor = s.options.reportGbits ? BandwidthReport.GBITS_FACTOR : BandwidthReport.MBYTES_FACTOR;
        double seconds = (end - incoming.first) / 1e9;
        long total = incoming.total;
        return new BandwidthReport(size, total, 0, size * (double) total / seconds / factor, total / seconds / 1e6);
    }

    /**
     * The receiving side of a counted run: takes receive completions, reposting on the queue pair a receive came
     * from while more messages will come to it (as perftest: only as many receives as messages), a list of
     * {@code --recv_post_list} once that many of its receives completed, and gives up when the messages stop coming
     * for the run's timeout.
     */
    static final class Receives {
        private final PerftestSession s;
        private final List<RecvChain> recvs;
        private final CompletionArray wcs;
        private final int iterations;
        /** wait for completion events instead of polling (-e) */
        private final boolean events;
        /** the receives posted per queue pair so far */
        private final long[] posted;
        /** --recv_post_list */
        private final int list;
        /** per queue pair, the receives completed and not posted again yet (perftest's unused_recv_for_qp) */
        private final long[] unused;
        /** the messages expected: -n per queue pair */
        final long total;
        /** the messages received so far */
        long received;
        /** when the first message arrived (System.nanoTime), or 0 */
        long first;
        /** when the run is given up if no message arrives before */
        private long deadline;
        /** empty polls, to read the clock only every 1024th */
        private int spins;

        Receives(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, int iterations, int rxDepth,
                int list, boolean events) {
            this.s = s;
            this.recvs = recvs;
            this.wcs = wcs;
            this.iterations = iterations;
            this.events = events;
            this.list = list;
            this.posted = new long[s.qps.size()];
            this.unused = new long[s.qps.size()];
            for (int q = 0; q < posted.length; q++) {
                posted[q] = initialReceives(s, q, rxDepth, list);
            }
            this.total = (long) iterations * posted.length;
            this.deadline = System.nanoTime() + s.runTimeout().toNanos();
        }

        /** Takes the receives completed by now; how many. */
        int poll() {
            int n = Completions.reap(s.recvCq, wcs, events);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, "receive " + (received + 1));
                }
                Completions.requireImmediate(s.options.receivesImmediates(), wc, received + 1);
                if (received++ == 0) {
                    first = System.nanoTime();
                }
                int q = queuePairOf(s, wc);
                if (++unused[q] >= list && posted[q] + list <= iterations) {
                    postReceiveList(s, recvs, q, list, received);
                    unused[q] -= list;
                    posted[q] += list;
                }
            }
            if (n > 0) {
                deadline = System.nanoTime() + s.runTimeout().toNanos();
            } else if (received < total && ((++spins & 0x3ff) == 0 || events) && System.nanoTime() - deadline > 0) {
                throw new PerftestException("only " + received + " of " + total + " messages arrived within "
                        + s.runTimeout().toSeconds() + " s");
            }
            return n;
        }
    }

    /**
     * {@code run_iter_bw_server} with {@code -D}: the clock starts at the first receive, the messages received
     * between the margins are counted over the time between them, and every receive is reposted until the
     * duration ends (no count of messages is known); what the sender still sends then finds no one polling, as
     * perftest's.
     */
    static BandwidthReport receiveFor(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, long size) {
        PerftestOptions o = s.options;
        Reposting round = new Reposting(s, recvs, wcs);
        long deadline = System.nanoTime() + s.runTimeout().toNanos();
        long firstRound;
        int spins = 0;
        while ((firstRound = round.getAsLong()) == 0) {
            if ((++spins & 0x3ff) == 0 && System.nanoTime() - deadline > 0) {
                throw new PerftestException("no message arrived within " + s.runTimeout().toSeconds() + " s");
            }
        }
        long marginNanos = o.marginNanos();
        SampleEdges edges = new SampleEdges(round.received);
        ClockedRounds.Sample sample = ClockedRounds.sample(System.nanoTime(), Duration.ofSeconds(o.duration).toNanos(),
                marginNanos, o.cpuSampler(), round, edges);
        // with no margin perftest samples from the first receive on, counting it
        long messages = sample.messages() + (marginNanos == 0 ? firstRound : 0);
        return s.perPort(BandwidthReport.ofPeriod(size, messages, sample.nanos(), o.reportGbits), edges.inSample());
    }

    /**
     * perftest's {@code run_iter_bw_infinitely_server}: reposts every receive (a list at a time with
     * {@code --recv_post_list}) and hands {@code print} a line at the end of every period of {@code -D} seconds
     * (default 5): the messages received in it over its length, no peak. perftest's server runs until a signal kills
     * it; this one returns when {@code stopped} says so, and its caller closes the connection with the peer (so a
     * client stopped first, which waits in that exchange, ends cleanly too).
     */
    static void receiveForever(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs, long size,
            Consumer<BandwidthReport> print, BooleanSupplier stopped) {
        boolean gbits = s.options.reportGbits;
        ClockedRounds.periods(s.options.reportPeriodNanos(), new Reposting(s, recvs, wcs),
                (messages, nanos) -> print.accept(BandwidthReport.ofPeriod(size, messages, nanos, gbits)), stopped);
    }

    /**
     * A round of the uncounted runs: takes the receives completed by now and posts a queue pair's again once a list
     * of them completed; how many it took.
     */
    private static final class Reposting implements LongSupplier {
        private final PerftestSession s;
        private final List<RecvChain> recvs;
        private final CompletionArray wcs;
        private final int list;
        /** per queue pair, the receives completed and not posted again yet (perftest's unused_recv_for_qp) */
        private final long[] unused;
        /** the receives taken so far, for an error's message */
        private long taken;
        /** per queue pair, the receives taken so far ({@code --report-per-port}) */
        final long[] received;

        Reposting(PerftestSession s, List<RecvChain> recvs, CompletionArray wcs) {
            this.s = s;
            this.recvs = recvs;
            this.wcs = wcs;
            this.list = s.options.recvPostList;
            this.unused = new long[s.qps.size()];
            this.received = new long[s.qps.size()];
        }

        @Override
        public long getAsLong() {
            int n = Completions.reap(s.recvCq, wcs, false);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs.get(i);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, "receive " + (taken + 1));
                }
                Completions.requireImmediate(s.options.receivesImmediates(), wc, taken + 1);
                taken++;
                int q = queuePairOf(s, wc);
                received[q]++;
                if (++unused[q] >= list) {
                    postReceiveList(s, recvs, q, list, taken);
                    unused[q] -= list;
                }
            }
            return n;
        }
    }

    /**
     * The receives posted for queue pair {@code q} before the run, in whole lists of {@code list}: its receive
     * queue's depth, or with an SRQ its share of the SRQ's {@code rxDepth} (perftest's {@code rx_depth /
     * recv_post_list / num_of_qps} lists).
     */
    private static int initialReceives(PerftestSession s, int q, int rxDepth, int list) {
        int depth = s.srq != null ? rxDepth / s.qps.size() : s.qps.get(q).capabilities().maxRecvWr();
        return depth / list * list;
    }

    /**
     * Posts queue pair {@code q}'s list of {@code list} receives: to the SRQ when there is one, else to its own queue;
     * {@code at} (the messages so far) goes into the error.
     */
    private static void postReceiveList(PerftestSession s, List<RecvChain> recvs, int q, int list, long at) {
        Completions.check(s.srq != null ? s.srq.postRecv(recvs.get(q), list) : s.qps.get(q).postRecv(recvs.get(q), list),
                "ibv_post_recv", at);
    }

    /**
     * The queue pair a receive completion is for: with an SRQ the one its wr_id names (it gets the receive back, as
     * perftest's {@code rwr[wr_id]}), else the one it arrived on.
     */
    private static int queuePairOf(PerftestSession s, WorkCompletion wc) {
        return s.srq != null ? (int) wc.wrId() : queuePairOf(s, wc.qpNumber());
    }

    /** The index of the queue pair numbered {@code qpNumber}. */
    private static int queuePairOf(PerftestSession s, int qpNumber) {
        for (int q = 0; q < s.qps.size(); q++) {
            if (s.qps.get(q).qpNumber() == qpNumber) {
                return q;
            }
        }
        throw new PerftestException("a receive completed on queue pair " + qpNumber + ", not one of this test's");
    }
}
