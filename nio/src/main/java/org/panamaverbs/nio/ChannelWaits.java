package org.panamaverbs.nio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How the threads of one channel wait for its descriptors (a completion channel, an rdma_cm event channel): its
 * state lock, and one leader at a time in {@code poll} on the descriptors and the channel's eventfd while the
 * others wait on a condition the leader signals when it returns, so that an event consumed by one thread never
 * leaves another asleep. {@link #wakeup()} (a close, an event routed here by another channel's poll) writes the
 * eventfd without the state lock, so no two channels' locks are ever held together.
 */
final class ChannelWaits {
    /** A follower's longest wait before it looks again; the leader wakes it sooner. */
    private static final long FOLLOWER_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Waits of at least this long are unbounded in {@code poll} (-1). */
    static final long FOREVER = Long.MAX_VALUE;

    /** The channel's state: whoever holds it may drive the connection. */
    final ReentrantLock lock = new ReentrantLock();
    private final Condition leaderReturned = lock.newCondition();
    private final WakeupFd wakeFd;
    /** The leader's {@code struct pollfd}s; freed with the channel (automatic arena). */
    private final MemorySegment pollFds = Arena.ofAuto().allocate(3 * NativeDescriptors.POLLFD_BYTES, 8);
    /** Run before the lock is released: the channel's thread gives its verbs objects up for the next one. */
    private final Runnable endTurn;
    private boolean leading;
    private boolean closed;

    ChannelWaits(Runnable endTurn) throws IOException {
        this.endTurn = endTurn;
        this.wakeFd = new WakeupFd();
    }

    /**
     * With {@link #lock} held: waits until {@code fdA} or {@code fdB} (-1 for none) is readable, a
     * {@link #wakeup()} came, or {@code nanos} passed, and returns with the lock held again. Spurious returns are
     * allowed: the caller looks at its state and waits again.
     */
    void await(int fdA, int fdB, long nanos) {
        if (closed || nanos <= 0) {
            return;
        }
        endTurn.run();
        if (leading) {
            try {
                leaderReturned.awaitNanos(Math.min(nanos, FOLLOWER_SLICE_NANOS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the channel's interrupt handling closes it; the caller sees that
            }
            return;
        }
        leading = true;
        int count = 0;
        NativeDescriptors.watch(pollFds, count++, wakeFd.fd());
        if (fdA >= 0) {
            NativeDescriptors.watch(pollFds, count++, fdA);
        }
        if (fdB >= 0) {
            NativeDescriptors.watch(pollFds, count++, fdB);
        }
        int millis = nanos >= FOREVER ? -1 : (int) Math.min(Integer.MAX_VALUE, Math.max(1, nanos / 1_000_000));
        lock.unlock();
        try {
            NativeDescriptors.poll(pollFds, count, millis);
            if (NativeDescriptors.ready(pollFds, 0)) {
                wakeFd.drain();
            }
        } finally {
            lock.lock();
            leading = false;
            leaderReturned.signalAll();
        }
    }

    /** Ends the holder's turn (see the constructor) and releases {@link #lock}. */
    void unlock() {
        endTurn.run();
        lock.unlock();
    }

    /** Makes a waiting leader return (and with it its followers); from any thread, with or without a lock. */
    void wakeup() {
        wakeFd.signal();
    }

    /**
     * With {@link #lock} held: wakes every waiter, waits up to {@code nanos} for the leader to leave
     * {@code poll}, then closes the eventfd; later {@link #await}s return at once. Idempotent.
     */
    void close(long nanos) {
        if (closed) {
            return;
        }
        wakeup();
        long deadline = System.nanoTime() + nanos;
        while (leading && deadline - System.nanoTime() > 0) {
            endTurn.run();
            try {
                leaderReturned.awaitNanos(deadline - System.nanoTime());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        closed = true;
        wakeFd.close(leading);
    }
}
