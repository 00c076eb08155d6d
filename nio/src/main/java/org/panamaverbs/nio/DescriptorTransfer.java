package org.panamaverbs.nio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One direction of a non-blocking kernel descriptor (a TCP fallback socket's reads or its writes, a pipe's end):
 * the loops that move bytes between the application's buffers and the descriptor, and wait in {@code poll} on it and
 * an eventfd when it has nothing (reads) or no room (writes) and the channel blocks. Direct buffers go to the call
 * as they are, heap buffers through a 64 KiB native buffer. A socket's calls are {@code recv} and {@code send} with
 * {@code MSG_NOSIGNAL}; a pipe's {@code read} and {@code write}. A blocking write may be bounded (see
 * {@link WriteStall}). One thread at a time (the channel's read or write
 * lock).
 */
final class DescriptorTransfer {
    private static final int BOUNCE_BYTES = 64 * 1024;

    /** What the channel checks before each attempt. */
    @FunctionalInterface
    interface Gate {
        /**
         * Throws when the channel cannot move bytes now (closed, not connected, output shut down).
         *
         * @return true when the input was shut down: a read returns the end of the stream
         */
        boolean check() throws IOException;
    }

    private final NativeSockets calls = new NativeSockets();
    private final boolean socket;
    private final String name;
    private MemorySegment bounce;

    /** {@code socket}: recv/send, else read/write; {@code name} names the descriptor in errors (a peer, a pipe). */
    DescriptorTransfer(boolean socket, String name) {
        this.socket = socket;
        this.name = name;
    }

    /**
     * Fills {@code single}, or the buffers of {@code targets} in order, with what arrived; waits when nothing did
     * and {@code blocking}.
     *
     * @return the bytes read, -1 at the end of the stream, 0 when none came and the channel does not block
     */
    long read(int fd, int wakeFd, Gate gate, ByteBuffer single, ByteBuffer[] targets, int offset, int length,
            boolean blocking, InetSocketAddress peer) throws IOException {
        long total = 0;
        int index = offset;
        for (;;) {
            if (gate.check()) {
                return total > 0 ? total : -1;
            }
            ByteBuffer target = single != null ? single : nextWithRoom(targets, index, offset + length);
            if (target == null) {
                return total;
            }
            if (target.isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
            long n = receive(fd, target);
            if (n > 0) {
                total += n;
                if (single != null || target.hasRemaining()) {
                    return total;
                }
                index = indexOf(targets, target, index) + 1;
                continue;
            }
            if (n == 0) {
                return total > 0 ? total : -1;
            }
            if (n == -NativeSockets.EINTR) {
                continue;
            }
            if (n != -NativeSockets.EAGAIN) {
                throw NativeSockets.failure(socket ? "recv" : "read of " + name, (int) n, peer);
            }
            if (total > 0 || !blocking) {
                return total;
            }
            calls.poll(fd, NativeSockets.POLLIN, wakeFd, -1);
        }
    }

    /**
     * Sends {@code single}, or the buffers of {@code sources} in order; a blocking caller waits until every byte was
     * taken by the kernel.
     *
     * @return the bytes taken
     */
    long write(int fd, int wakeFd, Gate gate, ByteBuffer single, ByteBuffer[] sources, int offset, int length,
            boolean blocking, InetSocketAddress peer, long stallNanos) throws IOException {
        long total = 0;
        int index = offset;
        long progressed = System.nanoTime();
        for (;;) {
            gate.check();
            ByteBuffer source = single != null ? single : nextWithRoom(sources, index, offset + length);
            if (source == null || !source.hasRemaining()) {
                return total;
            }
            long n = send(fd, source);
            if (n > 0) {
                total += n;
                progressed = System.nanoTime();
                index = single != null ? index : indexOf(sources, source, index);
                continue;
            }
            if (n == -NativeSockets.EINTR) {
                continue;
            }
            if (n != -NativeSockets.EAGAIN) {
                throw NativeSockets.failure(socket ? "send" : "write to " + name, (int) n, peer);
            }
            if (!blocking) {
                return total;
            }
            long left = WriteStall.left(stallNanos, progressed, peer);
            calls.poll(fd, NativeSockets.POLLOUT, wakeFd, left == ChannelWaits.FOREVER ? -1
                    : (int) Math.min(Integer.MAX_VALUE, Math.max(1, left / 1_000_000)));
        }
    }

    private long receive(int fd, ByteBuffer target) {
        int want = target.remaining();
        if (want == 0) {
            return 0;
        }
        if (target.isDirect()) {
            long n = socket ? calls.recv(fd, MemorySegment.ofBuffer(target), want)
                    : calls.read(fd, MemorySegment.ofBuffer(target), want);
            if (n > 0) {
                target.position(target.position() + (int) n);
            }
            return n;
        }
        MemorySegment buffer = bounce();
        int chunk = Math.min(want, BOUNCE_BYTES);
        long n = socket ? calls.recv(fd, buffer, chunk) : calls.read(fd, buffer, chunk);
        if (n > 0) {
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, target.array(),
                    target.arrayOffset() + target.position(), (int) n);
            target.position(target.position() + (int) n);
        }
        return n;
    }

    private long send(int fd, ByteBuffer source) {
        int want = source.remaining();
        MemorySegment from;
        int chunk;
        if (source.isDirect()) {
            from = MemorySegment.ofBuffer(source);
            chunk = want;
        } else {
            from = bounce();
            chunk = Math.min(want, BOUNCE_BYTES);
            MemorySegment.copy(MemorySegment.ofBuffer(source), 0, from, 0, chunk);
        }
        long n = socket ? calls.send(fd, from, chunk) : calls.write(fd, from, chunk);
        if (n > 0) {
            source.position(source.position() + (int) n);
        }
        return n;
    }

    private MemorySegment bounce() {
        if (bounce == null) {
            bounce = Arena.ofAuto().allocate(BOUNCE_BYTES, 8);
        }
        return bounce;
    }

    /** The first buffer from {@code from} (before {@code end}) that has room or bytes left, or null. */
    private static ByteBuffer nextWithRoom(ByteBuffer[] buffers, int from, int end) {
        for (int i = from; i < end; i++) {
            if (buffers[i].hasRemaining()) {
                return buffers[i];
            }
        }
        return null;
    }

    private static int indexOf(ByteBuffer[] buffers, ByteBuffer buffer, int from) {
        int i = from;
        while (buffers[i] != buffer) {
            i++;
        }
        return i;
    }
}
