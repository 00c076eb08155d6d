package org.panamaverbs.bench.perftest;

import java.time.Duration;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;

/**
 * How the tools post and reap: a post's return code checked, and completions taken either by polling or, with
 * perftest's {@code -e}, by waiting for the queue's completion channel first ({@code ctx_notify_events}: arm,
 * wait for the event, then poll), every wait bounded.
 */
final class Completions {
    /** How long one event wait lasts before the caller's loop looks at its own deadline again. */
    private static final Duration EVENT_SLICE = Duration.ofSeconds(1);

    private Completions() {
    }

    /** A post's result: 0, or an error naming the verb and the iteration. */
    static void check(int rc, String verb, long iteration) {
        if (rc != 0) {
            throw new PerftestException(verb + " failed with errno " + rc + " at iteration " + iteration);
        }
    }

    /**
     * Completions now: one poll, or with {@code events} a wait of at most a second for the queue's channel and
     * then a poll (0 when nothing came).
     *
     * @throws PerftestException if the poll fails
     */
    static int reap(CompletionQueue cq, CompletionArray wcs, boolean events) {
        int n = events ? cq.awaitCompletions(wcs, EVENT_SLICE) : cq.poll(wcs);
        if (n < 0) {
            throw new PerftestException("ibv_poll_cq failed with " + n);
        }
        return n;
    }

    /** perftest 26's check of a receive with {@code --send_with_imm} or {@code --write_with_imm}: its immediate came. */
    static void requireImmediate(boolean required, WorkCompletion wc, long receive) {
        if (required && !wc.hasImmediateData()) {
            throw new PerftestException("Completion with wc_flags mismatch: receive " + receive + " (wr_id " + wc.wrId()
                    + ") carries no immediate, and the test sends each message with one (as perftest)");
        }
    }

    /** Reaps {@code cq} until one completion, bounded by {@code timeout}; a failed one is an error. */
    static void awaitOne(CompletionQueue cq, CompletionArray wcs, Duration timeout, boolean events, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (true) {
            int n = reap(cq, wcs, events);
            if (n > 0) {
                WorkCompletion wc = wcs.get(0);
                if (!wc.isSuccess()) {
                    throw PerftestException.failedCompletion(wc, what + " " + wc.wrId());
                }
                return;
            }
            if ((++spins & 0x3ff) == 0 || events) {
                if (System.nanoTime() - deadline > 0) {
                    throw new PerftestException("no " + what + " completion within " + timeout.toSeconds()
                            + " s (is the peer running the same test?)");
                }
                if (!events) {
                    idle();
                }
            }
        }
    }

    /**
     * What a busy wait does every 1024 empty polls: give up the CPU once. Two sides sharing one CPU (the local
     * warm-up's two threads in a process pinned to one core) would otherwise each spin out a whole scheduler
     * slice per message; a side alone on its CPU gets it straight back.
     */
    static void idle() {
        Thread.yield();
    }
}
