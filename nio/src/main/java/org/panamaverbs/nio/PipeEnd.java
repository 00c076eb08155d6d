package org.panamaverbs.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One end of a kernel pipe ({@code pipe2}, non-blocking) behind a {@link PipeSourceChannel} or
 * {@link PipeSinkChannel}: its transfers under the JDK's blocking protocol (a blocking read or write waits in
 * {@code poll} on the pipe and an eventfd {@link #close()} writes to), its readiness for a selector, and the close
 * that frees the descriptor once no transfer or selector uses it.
 */
final class PipeEnd {
    /** What the end needs of its channel: its mode, and the JDK's begin/end around a blocking transfer. */
    interface Owner {
        boolean isBlocking();

        boolean isOpen();

        boolean isRegistered();

        /** The channel's {@code begin()}: an interrupt or a close from now on ends the transfer. */
        void enterBlocking();

        /** The channel's {@code end(completed)}. */
        void exitBlocking(boolean completed) throws AsynchronousCloseException;
    }

    private final int fd;
    private final boolean reading;
    private final WakeupFd wake;
    private final DescriptorTransfer transfer;
    /** Readiness polls, from any selector's thread. */
    private final NativeSockets selection = new NativeSockets();
    private final ReentrantLock transferring = new ReentrantLock();
    private final List<RsocketSelector> selectors = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    private boolean released;

    private PipeEnd(int fd, boolean reading) throws IOException {
        this.fd = fd;
        this.reading = reading;
        this.wake = new WakeupFd();
        this.transfer = new DescriptorTransfer(false, "the pipe");
    }

    /** A new pipe's two ends: its read end first. */
    static PipeEnd[] open() throws IOException {
        NativeSockets calls = new NativeSockets();
        int[] ends = new int[2];
        int rc = calls.pipe(ends);
        if (rc < 0) {
            throw NativeSockets.failure("pipe2", rc, null);
        }
        try {
            return new PipeEnd[] {new PipeEnd(ends[0], true), new PipeEnd(ends[1], false)};
        } catch (IOException e) {
            calls.close(ends[0]);
            calls.close(ends[1]);
            throw e;
        }
    }

    /**
     * Reads into, or writes from, {@code single} or the slice of {@code buffers}: one transfer at a time, as the
     * channel's mode says.
     *
     * @return the bytes moved; for a read -1 once the write end closed and the pipe is empty
     */
    long transfer(Owner owner, ByteBuffer single, ByteBuffer[] buffers, int offset, int length) throws IOException {
        transferring.lock();
        try {
            boolean blocking = owner.isBlocking();
            long moved = 0;
            try {
                if (blocking) {
                    owner.enterBlocking();
                }
                moved = reading
                        ? transfer.read(fd, wake.fd(), this::check, single, buffers, offset, length, blocking, null)
                        : transfer.write(fd, wake.fd(), this::check, single, buffers, offset, length, blocking, null,
                                0);
                return moved;
            } finally {
                if (blocking) {
                    owner.exitBlocking(moved > 0);
                }
            }
        } finally {
            transferring.unlock();
        }
    }

    private boolean check() throws ClosedChannelException {
        if (closed) {
            throw new ClosedChannelException();
        }
        return false;
    }

    /** {@code OP_READ} (data, or the write end closed) or {@code OP_WRITE} (room, or the read end closed). */
    int readyOps() {
        if (closed) {
            return 0;
        }
        int events;
        synchronized (selection) {
            events = selection.poll(fd, reading ? NativeSockets.POLLIN : NativeSockets.POLLOUT, -1, 0);
        }
        return events == 0 ? 0 : reading ? SelectionKey.OP_READ : SelectionKey.OP_WRITE;
    }

    int descriptors(int[] fds, short[] events, int at) {
        if (closed) {
            return 0;
        }
        fds[at] = fd;
        events[at] = reading ? NativeSockets.POLLIN : NativeSockets.POLLOUT;
        return 1;
    }

    void selectorAdded(RsocketSelector selector) {
        selectors.add(selector);
    }

    /** A selector let the channel go: a closed end's descriptor goes after the last. */
    void selectorRemoved(RsocketSelector selector, Owner owner) {
        selectors.remove(selector);
        if (!owner.isOpen() && !owner.isRegistered()) {
            Thread.ofVirtual().name("pipe close").start(this::release);
        }
    }

    /** The channel's close: a blocked transfer returns; the descriptor goes now, or after the last selector. */
    void close(Owner owner) {
        closed = true;
        wake.signal();
        if (owner.isRegistered()) {
            selectors.forEach(RsocketSelector::wakeup);
        } else {
            release();
        }
    }

    /** Closes the descriptor once no transfer runs (bounded: one that does not leave keeps it open). */
    private void release() {
        try {
            if (!transferring.tryLock(1, TimeUnit.SECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            if (!released) {
                released = true;
                wake.close(false);
                selection.close(fd);
            }
        } finally {
            transferring.unlock();
        }
    }
}
