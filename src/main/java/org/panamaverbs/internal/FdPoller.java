package org.panamaverbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Waits for verbs file descriptors (completion channels, the async event descriptor) to become readable
 * without blocking the waiting thread in native code. One platform daemon thread sits in {@code poll(2)}
 * on every registered descriptor plus an eventfd used to wake it; waiters park with
 * {@link LockSupport}, so a virtual thread waiting for a completion event unmounts and pins no carrier.
 * The same scheme as the JDK's own poller for sockets.
 */
public final class FdPoller {
    private static FdPoller instance;
    /** A timeout that never passes: the wait ends when the descriptor is readable or the thread interrupted. */
    public static final long UNTIL_INTERRUPTED = Long.MAX_VALUE;

    /** One waiter for one descriptor; fired once. */
    private static final class Waiter {
        final int fd;
        final Thread thread;
        volatile boolean ready;
        volatile boolean cancelled;

        Waiter(int fd, Thread thread) {
            this.fd = fd;
            this.thread = thread;
        }
    }

    private final Object lock = new Object();
    private final List<Waiter> waiters = new ArrayList<>();
    /** The waiters in the poller's current {@code poll(2)}: changed by its thread under {@link #lock} only. */
    private final List<Waiter> polled = new ArrayList<>();
    /** How many {@link #wakeAll} calls ran (under {@link #lock}): a waiter that sees it move tries again. */
    private volatile long wakeAlls;
    private final int wakeFd;
    private final MemorySegment wakeBuffer = Arena.global().allocate(JAVA_LONG);

    private FdPoller() {
        int fd = Libc.eventfd();
        if (fd < 0) {
            throw new IllegalStateException("eventfd failed: errno " + -fd);
        }
        wakeFd = fd;
        Thread thread = Thread.ofPlatform().daemon().name("panama-verbs-fd-poller").unstarted(this::run);
        thread.start();
    }

    /** The poller, started on first use. @throws IllegalStateException if no eventfd can be made */
    public static synchronized FdPoller instance() {
        if (instance == null) {
            instance = new FdPoller();
        }
        return instance;
    }

    /**
     * Parks the calling thread until {@code fd} is readable, {@code timeoutNanos} passed or the thread is
     * interrupted (its interrupt status stays set). A wait of {@link #UNTIL_INTERRUPTED} wakes for nothing
     * else: a background reader that waits this way costs its process no wake-up while idle, where a timed
     * re-check would preempt a thread spinning on the same core a few times a second.
     *
     * @return whether the descriptor became readable (it may still have nothing to read: always retry the
     *         non-blocking call and wait again on EAGAIN)
     */
    public boolean awaitReadable(int fd, long timeoutNanos) {
        return awaitReadable(fd, timeoutNanos, wakeAlls);
    }

    /** {@link #awaitReadable(int, long)}, returning at once if a {@link #wakeAll} ran since {@code seen}. */
    private boolean awaitReadable(int fd, long timeoutNanos, long seen) {
        Waiter waiter = new Waiter(fd, Thread.currentThread());
        synchronized (lock) {
            if (wakeAlls != seen) {
                return true;
            }
            waiters.add(waiter);
        }
        wake();
        long deadline = System.nanoTime() + timeoutNanos;
        while (!waiter.ready) {
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
            if (timeoutNanos == UNTIL_INTERRUPTED) {
                LockSupport.park(this);
                continue;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            LockSupport.parkNanos(this, remaining);
        }
        if (!waiter.ready) {
            waiter.cancelled = true;
            synchronized (lock) {
                waiters.remove(waiter);
            }
            wake();
        }
        return waiter.ready;
    }

    /**
     * The loop every verbs wait uses: try the non-blocking call, and while it has nothing, park until
     * {@code fd} is readable, until {@code timeoutNanos} passed ({@link #UNTIL_INTERRUPTED}: never) or the
     * thread is interrupted.
     *
     * @param tryOnce one non-blocking attempt, null when nothing is pending
     * @return what {@code tryOnce} returned, or null on timeout or interrupt (the interrupt status stays set,
     *         so the caller can tell)
     */
    public <T> T awaitNonBlocking(int fd, long timeoutNanos, Supplier<T> tryOnce) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            long seen = wakeAlls; // before the attempt, so a close after it is never missed
            T result = tryOnce.get();
            if (result != null) {
                return result;
            }
            if (Thread.currentThread().isInterrupted()) {
                return null; // an interrupted thread would find every wait over at once: a busy loop
            }
            long remaining = timeoutNanos == UNTIL_INTERRUPTED ? UNTIL_INTERRUPTED : deadline - System.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            awaitReadable(fd, remaining, seen);
        }
    }

    /**
     * {@link #wakeAll} on the poller if it was started (else nobody waits): for closes, which must not start it.
     */
    public static void wakeAllWaitingFor(int fd) {
        FdPoller poller;
        synchronized (FdPoller.class) {
            poller = instance;
        }
        if (poller != null) {
            poller.wakeAll(fd);
        }
    }

    /**
     * Wakes every thread waiting for {@code fd}, as if it were readable: called by the close of what owns the
     * descriptor (or of what a waiter waits for through it) after that object is marked closed, so that each
     * waiter's next attempt throws the closed-resource exception at once instead of parking until its timeout.
     * A waiter between its attempt and its park when this runs does not park either.
     */
    public void wakeAll(int fd) {
        boolean inPoll = false;
        synchronized (lock) {
            wakeAlls++;
            for (int i = waiters.size() - 1; i >= 0; i--) {
                Waiter waiter = waiters.get(i);
                if (waiter.fd == fd) {
                    waiters.remove(i);
                    waiter.ready = true;
                    LockSupport.unpark(waiter.thread);
                }
            }
            for (int i = 0; i < polled.size() && !inPoll; i++) {
                inPoll = polled.get(i).fd == fd;
            }
        }
        if (inPoll) {
            wake(); // the poller must stop polling a descriptor its owner is about to close
        }
    }

    private void wake() {
        wakeBuffer.set(JAVA_LONG, 0, 1L);
        Libc.write(wakeFd, wakeBuffer, 8);
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = CallState.open().segment();
            MemorySegment drain = arena.allocate(JAVA_LONG);
            int capacity = 16;
            MemorySegment fds = arena.allocate(Libc.POLLFD_SIZE * capacity, 8);
            while (true) {
                synchronized (lock) {
                    polled.clear();
                    polled.addAll(waiters);
                }
                if (polled.size() + 1 > capacity) {
                    capacity = Math.max(capacity * 2, polled.size() + 1);
                    fds = arena.allocate(Libc.POLLFD_SIZE * capacity, 8);
                }
                setPollFd(fds, 0, wakeFd);
                for (int i = 0; i < polled.size(); i++) {
                    setPollFd(fds, i + 1, polled.get(i).fd);
                }
                int n = Libc.poll(fds, polled.size() + 1, -1, callState);
                if (n <= 0) {
                    continue; // EINTR
                }
                if (fds.get(JAVA_SHORT, 6) != 0) {
                    Libc.read(wakeFd, drain, 8);
                }
                for (int i = 0; i < polled.size(); i++) {
                    short revents = fds.get(JAVA_SHORT, (i + 1) * Libc.POLLFD_SIZE + 6);
                    Waiter waiter = polled.get(i);
                    if (revents != 0 && !waiter.cancelled) {
                        synchronized (lock) {
                            waiters.remove(waiter);
                        }
                        waiter.ready = true;
                        LockSupport.unpark(waiter.thread);
                    }
                }
            }
        }
    }

    private static void setPollFd(MemorySegment fds, int index, int fd) {
        long at = index * Libc.POLLFD_SIZE;
        fds.set(JAVA_INT, at, fd);
        fds.set(JAVA_SHORT, at + 4, Libc.POLLIN);
        fds.set(JAVA_SHORT, at + 6, (short) 0);
    }
}
