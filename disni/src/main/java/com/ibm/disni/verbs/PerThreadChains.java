package com.ibm.disni.verbs;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

/**
 * The native work-request chains of one post call (or completion arrays of one poll call), one per executing
 * thread: Panama Verbs binds a chain to the thread that uses it, while a DiSNI SVC may be executed from any
 * thread. A thread's first execution allocates its chain, and first frees the chains of every thread that has
 * ended since (a thread-per-request server would otherwise keep one native chain, and one in-flight marker that
 * every region close scans, per request ever served): the chains held are those of the threads alive, plus at
 * most the ended ones since the last new thread came. {@link #closeAll()} frees every thread's chain when the
 * call is freed.
 *
 * @param <T> what a thread holds: its chain and whatever is derived from it
 */
final class PerThreadChains<T extends PerThreadChains.Chain> {
    /** A thread's part: closing it frees its native chain. */
    interface Chain {
        void close();
    }

    /** A thread's chain, with the thread, so that it is freed once the thread has ended. */
    private record Held<T>(Thread thread, T chain) {
    }

    private final ThreadLocal<T> perThread;
    /** Guarded by itself. */
    private final List<Held<T>> all = new ArrayList<>();
    /** The first thread to execute, which usually is the only one, skips the thread-local lookup. */
    private volatile Thread owner;
    private T ownerChain;

    PerThreadChains(Supplier<T> allocate) {
        perThread = ThreadLocal.withInitial(() -> {
            T t = allocate.get();
            synchronized (all) {
                releaseEnded();
                all.add(new Held<>(Thread.currentThread(), t));
            }
            return t;
        });
    }

    /**
     * Frees the chains of the threads that have ended (none of them can be inside a call: a thread found not alive
     * has finished, and its last actions are visible here). Holds the lock of {@link #all}.
     */
    private void releaseEnded() {
        for (Iterator<Held<T>> i = all.iterator(); i.hasNext(); ) {
            Held<T> held = i.next();
            if (!held.thread().isAlive()) {
                if (held.thread() == owner) {
                    owner = null; // a new thread may take the fast path; no live thread can have matched the ended one
                    ownerChain = null;
                }
                held.chain().close();
                i.remove();
            }
        }
    }

    /** This thread's part, allocated on its first use. */
    T get() {
        Thread current = Thread.currentThread();
        if (current == owner) {
            return ownerChain;
        }
        T chain = perThread.get();
        if (owner == null) { // only until the first thread is recorded: other threads then take no lock here
            synchronized (all) {
                if (owner == null) {
                    ownerChain = chain;
                    owner = current; // volatile write after ownerChain: a thread that sees itself as owner sees its chain
                }
            }
        }
        return chain;
    }

    /**
     * A thread's native chain of one stateful call, the regions its scatter-gather entries resolved to, and
     * which version of the call's requests it holds ({@code -1}: none yet), so an unchanged call is posted
     * without being written again; a send call also records which versions of its headers and scatter-gather
     * entries the chain holds, so a change of {@code wr_id} alone rewrites only the identifiers.
     */
    static final class Slot<C> implements Chain {
        final C chain;
        final SgeTable.Resolved resolved;
        private final Runnable closer;
        int filled = -1;
        int filledHeaders = -1;
        int filledSges = -1;

        Slot(C chain, SgeTable.Resolved resolved, Runnable closer) {
            this.chain = chain;
            this.resolved = resolved;
            this.closer = closer;
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    /** How many threads' chains are held now (allocated and not yet freed). */
    int held() {
        synchronized (all) {
            return all.size();
        }
    }

    /** Frees every thread's chain. */
    void closeAll() {
        synchronized (all) {
            for (Held<T> held : all) {
                held.chain().close();
            }
            all.clear();
        }
    }
}
