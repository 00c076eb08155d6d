package com.ibm.disni.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The native work-request chains of one post call (or completion arrays of one poll call), one per executing
 * thread: Panama Verbs binds a chain to the thread that uses it, while a DiSNI SVC may be executed from any thread. A thread's first execution allocates
 * its chain; {@link #closeAll()} frees every thread's chain when the call is freed.
 *
 * @param <T> what a thread holds: its chain and whatever is derived from it
 */
final class PerThreadChains<T extends PerThreadChains.Chain> {
    /** A thread's part: closing it frees its native chain. */
    interface Chain {
        void close();
    }

    private final ThreadLocal<T> perThread;
    private final List<T> all = new ArrayList<>();
    /** The first thread to execute, which usually is the only one, skips the thread-local lookup. */
    private volatile Thread owner;
    private T ownerChain;

    PerThreadChains(Supplier<T> allocate) {
        perThread = ThreadLocal.withInitial(() -> {
            T t = allocate.get();
            synchronized (all) {
                all.add(t);
            }
            return t;
        });
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
            for (T t : all) {
                t.close();
            }
            all.clear();
        }
    }
}
