package org.panamaverbs.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * Which verbs object a data-path call (post, poll) is inside: the guarantee "closing an object waits for the
 * calls on it, and later calls throw", given without an atomic operation per call.
 *
 * <p>Every chain and completion array owns one marker, confined to the first thread that posts or polls with
 * it (a second thread gets {@link WrongThreadException}, so two calls never share a marker; a chain's setters
 * are refused to that thread too, see {@link #beginWrite()}). The call side
 * is a Dekker handshake made cheap on one side:
 * <ol>
 *   <li>call: store the target in the marker (plain release store), read the target's {@code closed} flag,
 *       call the provider with raw addresses, clear the marker;</li>
 *   <li>close: set {@code closed}, then make every thread pass a memory barrier (closing the object's shared
 *       liveness arena, which the JDK does with a handshake of all threads), then wait until no marker names
 *       the object, then free it.</li>
 * </ol>
 * The handshake is the barrier the call side does not pay for: wherever it meets a calling thread, either
 * the marker store came before it (and the closer sees it and waits) or the {@code closed} read comes after
 * it (and the call throws). A critical downcall cannot even be interrupted by it; a non-critical one is
 * covered by the marker. Markers are never unregistered while their chain is reachable, so closing a chain
 * on another thread mid-call cannot hide the call; the registry drops a marker when its owner is collected.
 */
final class InFlight {
    private static final Set<InFlight> MARKERS = ConcurrentHashMap.newKeySet();
    private static final VarHandle TARGET;
    /** A call that has not returned after this long is reported instead of waited for. */
    static final long CLOSE_WAIT_NANOS = org.panamaverbs.internal.Liveness.CLOSE_WAIT_NANOS;

    static {
        try {
            TARGET = MethodHandles.lookup().findVarHandle(InFlight.class, "target", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String what;
    /**
     * Bound by the first call; never changes after, so a non-null value read without the lock is final (a null
     * read without it is checked again under the lock).
     */
    private Thread owner;
    /** Setters running on threads other than a future owner while there is none; guarded by this. */
    private int unboundWrites;
    /**
     * The {@link VerbsResource#callId} of the object a call of {@link #owner} is inside, or 0. An int, not the
     * object: storing a reference would run the garbage collector's write barriers twice per call.
     * Written through {@link #TARGET}.
     */
    @SuppressWarnings("unused")
    private int target;

    private InFlight(String what) {
        this.what = what;
    }

    /** A marker for {@code holder} (a chain or completion array), dropped from the registry once it is unreachable. */
    static InFlight register(Object holder, String what) {
        InFlight marker = new InFlight(what);
        MARKERS.add(marker);
        Backstop.CLEANER.register(holder, () -> MARKERS.remove(marker));
        return marker;
    }

    /**
     * Marks a call on {@code target} as started; the caller must call {@link #exit()} in a finally block.
     *
     * @throws WrongThreadException  if another thread already posts or polls with this marker's holder
     * @throws IllegalStateException if {@code target} is closed (nothing is marked then)
     */
    void enter(VerbsResource target) {
        if (owner != Thread.currentThread()) {
            bindOwner();
        }
        TARGET.setRelease(this, target.callId);
        if (target.closed) {
            TARGET.setRelease(this, 0);
            throw new IllegalStateException(target + " is closed");
        }
    }

    /** Marks the call as returned. */
    void exit() {
        TARGET.setRelease(this, 0);
    }

    private synchronized void bindOwner() {
        Thread current = Thread.currentThread();
        if (owner == null) {
            owner = current;
            // a setter that began on another thread before this bind finishes its write before the first call:
            // after this, every write is the owner's own, made between its calls
            long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
            while (unboundWrites > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("a setter of this " + what + " on another thread has not returned"
                            + " within " + TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS) + " s");
                }
                try {
                    wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while a setter of this " + what + " ran on another thread", e);
                }
            }
        } else if (owner != current) {
            throw wrongThread();
        }
    }

    private WrongThreadException wrongThread() {
        return new WrongThreadException("this " + what + " belongs to " + owner
                + ", the first thread that posted or polled with it; allocate one per thread");
    }

    /**
     * A setter of the holder is about to write: the owner writes freely; before there is an owner any thread may
     * write (counted until {@link #endUnboundWrite()}, so that binding waits for it); another thread may not.
     *
     * @return true if the write was counted and {@link #endUnboundWrite()} must follow it
     * @throws WrongThreadException if another thread owns the holder
     */
    boolean beginWrite() {
        return owner != Thread.currentThread() && beginWriteSlow();
    }

    private synchronized boolean beginWriteSlow() {
        if (owner == null) {
            unboundWrites++;
            return true;
        }
        if (owner != Thread.currentThread()) {
            throw wrongThread();
        }
        return false;
    }

    /** Ends a write counted by {@link #beginWrite()}. */
    synchronized void endUnboundWrite() {
        if (--unboundWrites == 0) {
            notifyAll();
        }
    }

    /**
     * Waits until no call is inside an object whose {@link VerbsResource#callId} {@code matches} accepts. Call it after setting those objects'
     * {@code closed} flag and after a handshake of all threads (closing a shared arena).
     *
     * @throws IllegalStateException if a call has not returned within {@link #CLOSE_WAIT_NANOS}
     */
    static void awaitCalls(IntPredicate matches, Object closing) {
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        for (InFlight marker : MARKERS) {
            for (int spins = 0; ; spins++) {
                int inside = (int) TARGET.getAcquire(marker);
                if (inside == 0 || !matches.test(inside)) {
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("closing " + closing + ":  a call (on object #" + inside + ") by " + marker.owner
                            + " has not returned in " + TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS) + " s");
                }
                if (spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }
}
