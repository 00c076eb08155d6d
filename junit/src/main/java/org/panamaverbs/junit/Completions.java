package org.panamaverbs.junit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.CompletionArray;

/**
 * Waiting for completions in a test: polls a completion queue ({@code ibv_poll_cq}) until the expected number
 * arrived or a timeout passed. Busy-polls, so it needs no completion channel; the timeout should be generous
 * (a Soft-RoCE device in an emulated guest is 10-50 times slower than hardware).
 */
public final class Completions {
    private static final int POLL_BATCH = 16;

    private Completions() {
    }

    /**
     * Polls {@code cq} until {@code expected} completions arrived, whatever their status, and returns them in
     * the order they were polled. It asks each poll for no more than are still expected, so completions
     * beyond {@code expected} stay in the queue for the next call.
     *
     * @param cq       the queue to poll, from the calling thread (a busy poll: no completion channel needed)
     * @param expected how many completions to wait for, 0 or more (0 returns an empty list at once)
     * @param timeout  how long to wait for all of them in total; checked whenever a poll finds the queue empty
     * @return the {@code expected} completions as an unmodifiable list, each a copy that later polls leave alone
     * @throws AssertionError           if fewer arrived within {@code timeout} (the message lists those that
     *                                  did), or {@code ibv_poll_cq} returned an error
     * @throws IllegalArgumentException if {@code expected} is negative
     * @throws IllegalStateException    if {@code cq} is closed
     */
    public static List<Completion> await(CompletionQueue cq, int expected, Duration timeout) {
        if (expected < 0) {
            throw new IllegalArgumentException("expected " + expected + " < 0");
        }
        List<Completion> arrived = new ArrayList<>(expected);
        long deadline = System.nanoTime() + timeout.toNanos();
        try (CompletionArray batch = CompletionArray.allocate(POLL_BATCH)) {
            while (arrived.size() < expected) {
                int n = cq.poll(batch, Math.min(POLL_BATCH, expected - arrived.size()));
                if (n < 0) {
                    throw new AssertionError("ibv_poll_cq on " + cq + " returned " + n + " after " + arrived);
                }
                for (int i = 0; i < n; i++) {
                    arrived.add(Completion.of(batch.get(i)));
                }
                if (n == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("only " + arrived.size() + " of " + expected + " completions on "
                                + cq + " within " + timeout + ": " + arrived);
                    }
                    Thread.onSpinWait();
                }
            }
        }
        return List.copyOf(arrived);
    }
}
