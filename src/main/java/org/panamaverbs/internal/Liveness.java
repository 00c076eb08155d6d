package org.panamaverbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The lifetime of one native object as the FFM runtime sees it: the object's pointer as a read-only segment of a
 * shared arena, which every downcall given that segment keeps alive until it returns, and which {@link #end}
 * closes, waiting (bounded) for such calls. Used by every object of the verbs tree, so that "a close waits for the
 * calls in flight, and later calls throw" means the same everywhere; rdma_cm ids count their calls instead
 * ({@link CountedLifetime}).
 *
 * <p>The arena is made by the first {@link #scope} call. Closing a shared arena is a handshake with every thread of
 * the JVM (about 50 us natively, 0.8 ms under emulation), so an object whose own calls are kept apart from its
 * close another way (under its tree's lock, or a lock of its own) takes no view until a program asks for one, and
 * then its close costs no handshake.
 *
 * <p>The view is read-only: Java may read the native struct and pass its address to C, never write the
 * provider's fields (a zeroed {@code cq->context} crashes {@code ibv_destroy_cq}; a changed function pointer
 * would be called by the provider). Reading it after {@link #end} throws {@link IllegalStateException}, and a
 * read racing {@link #end} either completes first or throws: the native object is freed only after.
 */
public final class Liveness {
    /** How long a close waits for a call in flight before it gives up and leaves the object allocated. */
    public static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Pointers from the generated bindings come unbounded; only the struct layouts we read give a size. */
    private static final long MAX_HANDLE_SIZE = 1 << 20;

    /** Null until the first view; guarded by this. */
    private Arena arena;
    /** {@link #end} has begun: no view is made any more; guarded by this. */
    private boolean ending;

    /**
     * {@code raw} (a pointer returned by a C call) as a read-only segment of this lifetime, of {@code raw}'s size.
     *
     * @throws IllegalStateException if the lifetime has ended
     */
    public synchronized MemorySegment scope(MemorySegment raw) {
        if (ending) {
            throw new IllegalStateException("Already closed");
        }
        if (arena == null) {
            arena = Arena.ofShared();
        }
        long size = raw.byteSize() > MAX_HANDLE_SIZE ? 0 : raw.byteSize();
        return raw.reinterpret(size, arena, null).asReadOnly();
    }

    /**
     * Ends the lifetime: from here on every access and every downcall given a segment of it throws. Waits for the
     * downcalls that hold it at most {@link #CLOSE_WAIT_NANOS}. Does nothing if an earlier call ended it.
     *
     * @param what the object, for the message
     * @return whether this call closed an arena, a handshake with every thread (false when no view was ever made,
     *         or an earlier call ended the lifetime)
     * @throws IllegalStateException if a call given the object has not returned in time; the lifetime is then
     *                               still open, and a later call of this method waits again
     */
    public boolean end(Object what) {
        Arena views;
        synchronized (this) {
            ending = true;
            views = arena;
        }
        if (views == null) {
            return false;
        }
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (views.scope().isAlive()) {
            try {
                views.close();
                return true;
            } catch (IllegalStateException inUse) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("cannot close " + what + ": a call given its handle has not"
                            + " returned within " + TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS)
                            + " s; it stays allocated (close again once the call returned)");
                }
                Thread.onSpinWait();
            }
        }
        return false;
    }

    /**
     * A memory barrier on every thread of the JVM, as closing a view's arena is: after it, each thread's earlier
     * stores are visible to the caller, and each thread's later loads see the caller's earlier stores.
     */
    public static void handshakeAllThreads() {
        Arena.ofShared().close();
    }
}
