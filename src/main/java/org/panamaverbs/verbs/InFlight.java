package org.panamaverbs.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * Which verbs object a data-path call (post, poll) is inside: the guarantee "closing an object waits for the
 * calls on it, and later calls throw", given without an atomic operation per call.
 *
 * <p>Every chain and completion array is its own marker (this class is their superclass, so a call reads and
 * writes the marker in the object it already holds, with no load of a separate marker), confined to the first
 * thread that posts or polls with it (a second thread gets {@link WrongThreadException}, so two calls never share
 * a marker; a chain's setters are refused to that thread too, see {@link #beginWrite()}). Closing the holder
 * replaces its owner by {@link #CLOSED}, so the one owner test a call or a setter makes anyway also refuses a
 * closed holder; that needs no handshake, because a holder's memory belongs to an automatic arena that stays
 * allocated while a call still references it. The call side
 * is a Dekker handshake made cheap on one side:
 * <ol>
 *   <li>call: store the target in the marker (plain release store), read the target's {@code closed} flag,
 *       call the provider with raw addresses, clear the marker;</li>
 *   <li>close: set {@code closed}, then make every thread pass a memory barrier (closing the object's shared
 *       liveness arena, which the JDK does with a handshake of all threads, or a handshake of its own when the
 *       close ended no arena), then wait until no marker names the object, then free it.</li>
 * </ol>
 * The handshake is the barrier the call side does not pay for: wherever it meets a calling thread, either
 * the marker store came before it (and the closer sees it and waits) or the {@code closed} read comes after
 * it (and the call throws). A critical downcall cannot even be interrupted by it; a non-critical one is
 * covered by the marker. An object no call ever named needs no handshake: the first call naming it sets its
 * {@code dataPathReached} flag and fences ({@link VerbsResource#firstDataPathCall()}), and a close that finds the
 * flag unset after its own fence knows every later call sees the close. The registry holds the markers weakly: a marker that was collected has no call in flight
 * (a call keeps its holder reachable), and its entry is dropped then.
 *
 * <p>{@code owner} changes only from null to a thread and from either to {@link #CLOSED}, so a value read without the
 * lock that is the current thread stays so until a close, and a call racing a close still uses live memory.
 */
abstract sealed class InFlight permits PostProof, CompletionArray {
    private static final Set<WeakReference<InFlight>> MARKERS = ConcurrentHashMap.newKeySet();
    /** The owner of a closed holder: no thread is this object, so every call and setter takes the slow path and throws. */
    private static final Object CLOSED = new Object();
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
    /** The first caller's thread, or {@link #CLOSED}; set under the lock (see the class comment). */
    private Object owner;
    /** Setters running on threads other than a future owner while there is none; guarded by this. */
    private int unboundWrites;
    /**
     * The {@link VerbsResource#callId} of the object a call of {@link #owner} is inside, or 0. An int, not the
     * object: storing a reference would run the garbage collector's write barriers twice per call.
     * Written through {@link #TARGET}.
     */
    @SuppressWarnings("unused")
    private int target;

    /** Registers this holder's marker; its entry is dropped once the holder is unreachable. */
    InFlight(String what) {
        this.what = what;
        WeakReference<InFlight> entry = new WeakReference<>(this);
        MARKERS.add(entry);
        Backstop.CLEANER.register(this, () -> MARKERS.remove(entry));
    }

    /**
     * Marks a call on {@code target} as started; the caller must call {@link #exit()} in a finally block.
     *
     * @throws WrongThreadException  if another thread already posts or polls with this marker's holder
     * @throws IllegalStateException if {@code target} or the holder is closed (nothing is marked then)
     */
    final void enter(VerbsResource target) {
        mark(target);
        if (target.closed) {
            TARGET.setRelease(this, 0);
            throw new IllegalStateException(target + " is closed");
        }
    }

    /**
     * Marks a call on {@code target} as started without checking the target: the caller reads whether it is
     * closed next (the {@code closed} flag, or a field its close sets before the handshake), and calls
     * {@link #exit()} in a finally block.
     *
     * @throws WrongThreadException  if another thread already posts or polls with this marker's holder
     * @throws IllegalStateException if the holder is closed (nothing is marked then)
     */
    final void mark(VerbsResource target) {
        if (owner != Thread.currentThread()) {
            bindOwner();
        }
        TARGET.setRelease(this, target.callId);
        if (!target.dataPathReached) {
            target.firstDataPathCall(); // once per object: its close needs the barrier below from then on
        }
    }

    /** Marks the call as returned. */
    final void exit() {
        TARGET.setRelease(this, 0);
    }

    private synchronized void bindOwner() {
        Thread current = Thread.currentThread();
        if (owner == CLOSED) {
            throw closedHolder();
        }
        if (owner == null) {
            owner = current;
            // a setter that began on another thread before this bind finishes its write before the first call:
            // after this, every write is the owner's own, made between its calls
            long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
            while (unboundWrites > 0 && owner != CLOSED) {
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
            if (owner == CLOSED) {
                throw closedHolder(); // closed while the setters finished
            }
        } else if (owner != current) {
            throw wrongThread();
        }
    }

    /**
     * The owner gives the holder up between its calls: the next thread that calls or sets with it owns it. A thread
     * that does not own it changes nothing, so no thread can take a holder from one that is inside a call.
     */
    final synchronized void releaseOwner() {
        if (owner == Thread.currentThread()) {
            owner = null;
        }
    }

    private IllegalStateException closedHolder() {
        return new IllegalStateException("this " + what + " is closed");
    }

    /**
     * Ends the holder for calls and setters: from now on each throws {@link IllegalStateException}. Runs under the
     * holder's lock (this object); idempotent.
     */
    final synchronized void closeMarker() {
        owner = CLOSED;
        notifyAll(); // a first call waiting for setters of other threads gives up
    }

    private WrongThreadException wrongThread() {
        return new WrongThreadException("this " + what + " belongs to " + owner
                + ", the first thread that posted or polled with it; allocate one per thread, or release it on that thread"
                + " (releaseThread) before another takes its turn");
    }

    /**
     * A setter of the holder is about to write: the owner writes freely; before there is an owner any thread may
     * write (counted until {@link #endUnboundWrite()}, so that binding waits for it); another thread may not.
     *
     * @return true if the write was counted and {@link #endUnboundWrite()} must follow it
     * @throws WrongThreadException  if another thread owns the holder
     * @throws IllegalStateException if the holder is closed
     */
    final boolean beginWrite() {
        return owner != Thread.currentThread() && beginWriteSlow();
    }

    private synchronized boolean beginWriteSlow() {
        if (owner == CLOSED) {
            throw closedHolder();
        }
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
    final synchronized void endUnboundWrite() {
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
        for (WeakReference<InFlight> entry : MARKERS) {
            InFlight marker = entry.get();
            if (marker == null) {
                continue; // collected: its holder is unreachable, so no call is inside it
            }
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
