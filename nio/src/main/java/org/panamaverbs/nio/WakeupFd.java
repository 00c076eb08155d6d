package org.panamaverbs.nio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * An eventfd that any thread may signal to end a {@code poll} on it (a channel's waits, a selector's), and that
 * closes without racing those signals: a signal writes under the read side of a guard, the close takes the write
 * side, so no write ever reaches a closed (or reused) descriptor.
 */
final class WakeupFd {
    private final ReentrantReadWriteLock guard = new ReentrantReadWriteLock();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment signalScratch = arena.allocate(8, 8);
    private final MemorySegment drainScratch = arena.allocate(8, 8);
    private final int fd;
    private boolean closed;

    WakeupFd() throws IOException {
        try {
            fd = NativeDescriptors.eventFd();
        } catch (IOException e) {
            arena.close();
            throw e;
        }
    }

    int fd() {
        return fd;
    }

    /** Makes the descriptor readable; from any thread; nothing after {@link #close()}. */
    void signal() {
        ReentrantReadWriteLock.ReadLock read = guard.readLock();
        read.lock();
        try {
            if (!closed) {
                NativeDescriptors.signal(fd, signalScratch);
            }
        } finally {
            read.unlock();
        }
    }

    /** Takes what was signalled, so that the descriptor is no longer readable; by the one thread that polls it. */
    void drain() {
        NativeDescriptors.drain(fd, drainScratch);
    }

    /**
     * Ends the signals; the descriptor is closed too unless {@code stillPolled} (a poll that did not return in time
     * keeps it: a few bytes and one descriptor).
     */
    void close(boolean stillPolled) {
        guard.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            guard.writeLock().unlock();
        }
        if (!stillPolled) {
            NativeDescriptors.close(fd);
            arena.close();
        }
    }
}
