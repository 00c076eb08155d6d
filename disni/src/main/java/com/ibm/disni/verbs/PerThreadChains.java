package com.ibm.disni.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The native work-request chains of one post call, one per executing thread: Panama Verbs binds a chain to the
 * thread that uses it, while a DiSNI SVC may be executed from any thread. A thread's first execution allocates
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
        return perThread.get();
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
