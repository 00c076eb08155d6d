package org.panamaverbs.examples;

import java.time.Duration;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.VerbsException;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;

/** The busy-polling wait the examples share: one completion, within a bound, successful or an exception. */
final class Polling {
    private Polling() {
    }

    // snippet:awaitOne
    /**
     * Polls {@code cq} until one completion arrives, at most {@code timeout}; fails on an error status.
     * The returned flyweight is valid until the next poll with {@code wcs}.
     */
    static WorkCompletion awaitOne(CompletionQueue cq, CompletionArray wcs, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int n;
        while ((n = cq.poll(wcs, 1)) == 0) {                  // no allocation, no system call on most devices
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion on " + cq + " within " + timeout);
            }
            Thread.onSpinWait();
        }
        if (n < 0) {
            throw new VerbsException("ibv_poll_cq", -n, cq.toString());
        }
        WorkCompletion wc = wcs.get(0);
        if (!wc.isSuccess()) {
            throw new IllegalStateException("work request " + wc.wrId() + " failed: " + wc.status());
        }
        return wc;
    }
    // end-snippet
}
