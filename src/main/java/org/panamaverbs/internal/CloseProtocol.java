package org.panamaverbs.internal;

import java.util.concurrent.TimeUnit;

/**
 * The close of one native object by the rules every object of the library follows (the verbs tree's
 * {@code VerbsResource} keeps the same rules under its tree lock): close is idempotent; from its start every use
 * throws ({@link #isClosed()}); a second caller waits, bounded, for the first one's outcome and returns once the
 * object is freed; a close that gave up on a call in flight leaves the object allocated, and the next close tries
 * again. The owner holds this object's monitor where a use must not overlap the start of a close (creating a
 * child the close would have to close).
 */
public final class CloseProtocol {
    /** Set when a close begins: every later use throws. */
    private volatile boolean closed;
    /** A close is under way on some thread; guarded by this. */
    private boolean closing;
    /** The native object was freed; guarded by this. */
    private boolean freed;

    /** {@return whether a close has begun} */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Begins a close of {@code what}.
     *
     * @return true if the caller closes now (the first close, or again after one gave up), then ends with
     *         {@link #freed()} or {@link #gaveUp()}; false if the object is freed already (by another thread's close,
     *         which this waited for)
     * @throws IllegalStateException if another thread's close has not ended within three close waits
     *                               ({@link Liveness#CLOSE_WAIT_NANOS} each), or the caller was interrupted
     */
    public synchronized boolean begin(Object what) {
        long deadline = System.nanoTime() + 3 * Liveness.CLOSE_WAIT_NANOS;
        while (closing) { // another thread's close waits for calls in flight: wait for its outcome
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException(what + " is being closed by another thread, which waits for a call"
                        + " on it that has not returned");
            }
            try {
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while " + what + " was being closed by another thread", e);
            }
        }
        if (freed) {
            return false;
        }
        closing = true;
        closed = true;
        return true;
    }

    /** The close gave up (a call in flight did not return): the object stays allocated, a later close tries again. */
    public synchronized void gaveUp() {
        closing = false;
        notifyAll();
    }

    /** The native object was freed (or its free failed for good): every close from now on returns at once. */
    public synchronized void freed() {
        freed = true;
        closing = false;
        notifyAll();
    }
}
