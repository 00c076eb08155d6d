package org.panamaverbs.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The lifetime of a native object used only by control-path calls, kept by counting the calls inside it: the same
 * rules as {@link Liveness} (a close waits, bounded, for the calls in flight; later calls throw; a call racing the
 * close either completes first or throws), for an atomic add per call instead of a handshake with every thread of
 * the JVM per close (0.8 ms under emulation, once per rdma_cm id).
 */
public final class CountedLifetime {
    /** Set in {@link #state} once {@link #end} began; the low bits count the calls inside. */
    private static final int ENDED = Integer.MIN_VALUE;

    private final AtomicInteger state = new AtomicInteger();

    /**
     * A call begins; the caller calls {@link #exit()} in a finally block.
     *
     * @param what the object, for the message
     * @throws IllegalStateException if the lifetime has ended (nothing is counted then)
     */
    public void enter(Object what) {
        if ((state.getAndIncrement() & ENDED) != 0) {
            state.getAndDecrement();
            throw new IllegalStateException(what + " is closed");
        }
    }

    /** The call that {@link #enter} counted has returned. */
    public void exit() {
        state.getAndDecrement();
    }

    /**
     * Ends the lifetime: every later {@link #enter} throws. Waits for the calls inside at most
     * {@link Liveness#CLOSE_WAIT_NANOS}.
     *
     * @param what the object, for the message
     * @throws IllegalStateException if a call has not returned in time; the lifetime stays ended, and a later call of
     *                               this method waits again
     */
    public void end(Object what) {
        state.getAndUpdate(s -> s | ENDED);
        long deadline = System.nanoTime() + Liveness.CLOSE_WAIT_NANOS;
        for (int spins = 0; (state.get() & ~ENDED) != 0; spins++) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("cannot close " + what + ": a call given it has not returned within "
                        + TimeUnit.NANOSECONDS.toSeconds(Liveness.CLOSE_WAIT_NANOS) + " s; it stays allocated (close"
                        + " again once the call returned)");
            }
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }
}
