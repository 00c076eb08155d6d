package org.panamaverbs.internal;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Platform daemon threads for calls that may block in the kernel for long: a task goes to a thread that is idle,
 * or to a new one if none is, so a blocked call never holds up the next; a thread idle for the keep-alive ends.
 * This is {@code ThreadPoolExecutor} over a {@code SynchronousQueue}, less its spin: that queue's idle workers spin
 * 128 {@code Thread.onSpinWait()} after every task, each of which leaves the vCPU under emulation (QEMU's TCG); JFR
 * sampled a profiled server's destroying thread in that spin as often as its main thread at its own work.
 */
public final class ReusedThreads implements Executor {
    private static final Runnable RETIRED = () -> { };

    private final String name;
    private final long keepAliveNanos;
    /** Idle threads, the most recently idle first (it is the likeliest to be running still). */
    private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();

    /**
     * @param name      the threads' name
     * @param keepAlive how long a thread waits for its next task before it ends
     */
    public ReusedThreads(String name, long keepAlive, TimeUnit unit) {
        this.name = Objects.requireNonNull(name);
        this.keepAliveNanos = unit.toNanos(keepAlive);
    }

    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task);
        for (Worker worker; (worker = idle.pollFirst()) != null; ) {
            if (worker.hand(task)) {
                return;
            }
        }
        Worker worker = new Worker(task);
        worker.thread = Thread.ofPlatform().daemon().name(name).unstarted(worker);
        worker.thread.start();
    }

    /** One thread: its task, then each task handed to it while it waited in {@link #idle}. */
    private final class Worker implements Runnable {
        /** The task handed to an idle worker; null while it waits for one; {@link #RETIRED} once it ended. */
        private final AtomicReference<Runnable> next = new AtomicReference<>();
        private Runnable first;
        private volatile Thread thread;

        Worker(Runnable first) {
            this.first = first;
        }

        /** Gives this idle worker {@code task}; false if it ended meanwhile. */
        boolean hand(Runnable task) {
            if (!next.compareAndSet(null, task)) {
                return false;
            }
            LockSupport.unpark(thread);
            return true;
        }

        @Override
        public void run() {
            Runnable task = first;
            first = null;
            for (; task != null; task = awaitNext()) {
                task.run();
            }
        }

        /** Waits in {@link #idle} for the next task; null once the keep-alive passed without one. */
        private Runnable awaitNext() {
            next.set(null);
            idle.addFirst(this);
            long deadline = System.nanoTime() + keepAliveNanos;
            while (true) {
                Runnable task = next.get();
                if (task != null) {
                    return task;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    if (next.compareAndSet(null, RETIRED)) {
                        idle.remove(this);
                        return null;
                    }
                    continue; // handed a task just now
                }
                LockSupport.parkNanos(this, remaining);
            }
        }
    }
}
