package com.ibm.disni.verbs;

import java.io.IOException;
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
 * <p>The first thread to get a chain, which usually is the only one, is handed to the call's {@link FirstThread}:
 * the call keeps that chain in fields of its own, so that thread's executions read two fields and make no
 * lookup. The call is told when to forget it: when that thread has ended, and when the call is freed.
 *
 * @param <T> what a thread holds: its chain and whatever is derived from it
 */
final class PerThreadChains<T extends PerThreadChains.Chain> {
    /** A thread's part: closing it frees its native chain. */
    interface Chain {
        void close();
    }

    /** A thread's work-request chain of a post call, with the regions its scatter-gather entries resolved to. */
    abstract static class Requests<C> implements Chain {
        final C chain;
        final SgeTable.Resolved resolved;
        private final Runnable closer;

        /** {@code closer} frees {@code chain} (a {@code SendChain} or {@code RecvChain}). */
        Requests(C chain, SgeTable.Resolved resolved, Runnable closer) {
            this.chain = chain;
            this.resolved = resolved;
            this.closer = closer;
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    /** The call's fields for the first thread's part; both methods run under this object's lock. */
    interface FirstThread<T> {
        /** The calling thread is the first one alive to get a part: {@code part} is its. */
        void remember(T part);

        /** The remembered thread has ended, or the call is being freed: later executions look their part up. */
        void forget();
    }

    /** A thread's chain, with the thread, so that it is freed once the thread has ended. */
    private record Held<T>(Thread thread, T chain) {
    }

    private final ThreadLocal<T> perThread;
    private final FirstThread<T> firstThread;
    /** Guarded by {@link #all}, as are the two fields after it. */
    private final List<Held<T>> all = new ArrayList<>();
    /** The thread the call remembers, or null. */
    private Thread remembered;
    /** Set by {@link #closeAll()}: every later {@link #get()} returns null. */
    private volatile boolean closed;

    PerThreadChains(Supplier<T> allocate, FirstThread<T> firstThread) {
        this.firstThread = firstThread;
        perThread = ThreadLocal.withInitial(() -> {
            T t = allocate.get();
            synchronized (all) {
                if (closed) {
                    t.close(); // the call was freed while this thread allocated: get() returns null
                    return t;
                }
                releaseEnded();
                all.add(new Held<>(Thread.currentThread(), t));
                if (remembered == null) {
                    remembered = Thread.currentThread();
                    firstThread.remember(t);
                }
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
                if (held.thread() == remembered) {
                    remembered = null; // the next new thread is remembered instead
                    firstThread.forget();
                }
                held.chain().close();
                i.remove();
            }
        }
    }

    /**
     * This thread's part, allocated on its first use; null once {@link #closeAll()} ran (the call was freed). The
     * call asks only when the thread is not the one it remembers.
     */
    T get() {
        if (closed) {
            return null;
        }
        T chain = perThread.get();
        return closed ? null : chain; // freed meanwhile: closeAll() freed this chain too, or withInitial did
    }

    /**
     * {@link #get()} for an execution of the call.
     *
     * @param verb the C call the stateful call performs, for the message
     * @throws IOException if the call was freed
     */
    T require(String verb) throws IOException {
        T chain = get();
        if (chain == null) {
            throw new IOException(verb + ": this call was freed");
        }
        return chain;
    }

    /** How many threads' chains are held now (allocated and not yet freed). */
    int held() {
        synchronized (all) {
            return all.size();
        }
    }

    /** Frees every thread's chain, after the call forgot its first thread's; {@link #get()} then returns null. Idempotent. */
    void closeAll() {
        synchronized (all) {
            closed = true;
            remembered = null;
            firstThread.forget();
            for (Held<T> held : all) {
                held.chain().close();
            }
            all.clear();
        }
    }
}
