package org.panamaverbs.nio;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.panamaverbs.cm.CmId;
import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketFlow;
import org.panamaverbs.rsocket.RsocketWire;

import jdk.net.ExtendedSocketOptions;

/**
 * A {@link RsocketSocketChannel}'s rsocket: its {@link RsocketStream} (rdma_cm id, queue pair, rings) driven by
 * whichever thread reads, writes, connects or closes, under the lock of {@link ChannelWaits}, whose leader waits in
 * {@code poll} on the completion and rdma_cm event channels. A blocking read waits for data or the end of the
 * stream, a blocking write until every byte was taken into the send ring; a connect ({@code rdma_resolve_addr},
 * {@code rdma_resolve_route}, {@code rdma_connect}) is bounded by {@link RsocketStream#CONNECT_TIMEOUT}; with
 * {@code SO_KEEPALIVE} on, rsocket's keepalive goes every {@code TCP_KEEPIDLE} seconds; a closed stream lingers up
 * to {@link RsocketConnection#LINGER_MILLIS} for its last sends, as {@code rclose} waits for them.
 */
final class RsocketTransport implements SocketTransport {
    private final ChannelWaits waits;
    private final ReentrantLock lock;
    private final RsocketOptions options;
    /** The connection; under {@link #lock}. */
    private final RsocketStream stream;
    /** Wakes the channel's selectors: an event came from another thread. */
    private final Runnable wakeSelectors;
    private boolean inputShutdown;
    private boolean outputShutdown;
    /** A connect was started and finishConnect has not yet said it ended (OP_CONNECT's subject). */
    private boolean connectPending;
    /** rsocket's keepalive task while SO_KEEPALIVE is on. */
    private ScheduledFuture<?> keepalive;
    /** Wakes the waiters and selectors at the connect's bound, where a selection then sees OP_CONNECT. */
    private ScheduledFuture<?> connectBound;

    /** How long a blocking write may wait without taking a byte; 0 for no bound. */
    private final long writeStallNanos;

    RsocketTransport(RsocketOptions options, long writeStallNanos, Runnable wakeSelectors) throws IOException {
        this.options = options;
        this.writeStallNanos = writeStallNanos;
        this.wakeSelectors = wakeSelectors;
        this.waits = new ChannelWaits(this::endTurn);
        this.lock = waits.lock;
        this.stream = new RsocketStream(this::wake);
    }

    /**
     * A request a server channel accepted: the queue pair on its id, the stream started with the client's rsocket
     * data, and {@code rdma_accept}; ESTABLISHED is awaited by the first read or write (as rsocket's {@code raccept}
     * leaves it), within {@link RsocketStream#CONNECT_TIMEOUT}.
     */
    void accept(CmEvents shared, CmId request, RsocketWire.ConnectionData client) throws IOException {
        lock.lock();
        try {
            stream.accept(shared, request, client, options.settings());
        } finally {
            unlock();
        }
    }

    /** Releases the lock, the connection's verbs objects first (the next holder may be another thread). */
    private void unlock() {
        waits.unlock();
    }

    /** Under the lock, before it is released: this thread's turn with the connection ends. */
    private void endTurn() {
        stream.releaseThread();
    }

    /** The stream heard from another thread (an rdma_cm event): the waiters and the selectors look again. */
    private void wake() {
        waits.wakeup();
        wakeSelectors.run();
    }

    /** Before a wait: arms the completion queue, then takes what arrived before the arming. */
    private void armAndProgress() {
        stream.arm();
        stream.progress();
    }

    private void await(long nanos) {
        waits.await(stream.completionFd(), stream.eventFd(), nanos);
    }

    // ---------------------------------------------------------------------------------------------- connect

    /** The channel's {@code bind} before a connect: the address {@code rdma_bind_addr} takes then. */
    void bind(InetSocketAddress local) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (stream.state() == RsocketStream.State.CONNECTING) {
                throw new ConnectionPendingException();
            }
            if (stream.state() != RsocketStream.State.UNCONNECTED || stream.local() != null) {
                throw new AlreadyBoundException();
            }
            stream.bindLocal(local);
        } finally {
            unlock();
        }
    }

    /** The address the channel's {@code bind} asked for (the fallback binds its TCP socket to it), or null. */
    InetSocketAddress requestedLocal() {
        lock.lock();
        try {
            return stream.isConnected() ? null : stream.local();
        } finally {
            unlock();
        }
    }

    @Override
    public boolean startConnect(InetSocketAddress target) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (stream.isConnected()) {
                throw new AlreadyConnectedException();
            }
            if (stream.state() == RsocketStream.State.CONNECTING) {
                throw new ConnectionPendingException();
            }
            stream.connect(target, stream.local(), options.settings());
            connectPending = true;
            connectBound = ChannelTimers.after(RsocketStream.CONNECT_TIMEOUT, this::wake);
            return false;
        } finally {
            unlock();
        }
    }

    @Override
    public boolean finishConnect(boolean blocking) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (stream.isConnected()) {
                connectPending = false;
                startKeepalive();
                return true;
            }
            if (stream.state() != RsocketStream.State.CONNECTING) {
                throw new NoConnectionPendingException();
            }
            for (;;) {
                stream.progress();
                IOException failure = stream.connectFailure();
                long left = stream.connectNanosLeft();
                if (failure == null && left <= 0) {
                    failure = new ConnectException("connection timed out after "
                            + RsocketStream.CONNECT_TIMEOUT.toSeconds() + " s: " + stream.remote());
                }
                if (failure != null) {
                    connectEnded();
                    throw failure;
                }
                if (stream.state() == RsocketStream.State.CONNECTED) {
                    connectPending = false;
                    connectEnded();
                    startKeepalive();
                    return true;
                }
                if (!blocking) {
                    return false;
                }
                ensureOpen();
                await(left);
            }
        } finally {
            unlock();
        }
    }

    /** Under the lock: the connect's bound needs no wake-up any more. */
    private void connectEnded() {
        if (connectBound != null) {
            connectBound.cancel(false);
            connectBound = null;
        }
    }

    @Override
    public boolean isConnected() {
        lock.lock();
        try {
            return stream.isConnected();
        } finally {
            unlock();
        }
    }

    @Override
    public boolean isConnectionPending() {
        lock.lock();
        try {
            return stream.state() == RsocketStream.State.CONNECTING;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------- read

    @Override
    public long read(ByteBuffer single, ByteBuffer[] targets, int offset, int length, boolean blocking)
            throws IOException {
        lock.lock();
        try {
            int readable = awaitReadable(blocking);
            if (readable != 1) {
                return readable;
            }
            RsocketFlow flow = stream.flow();
            long read;
            if (single != null) {
                read = flow.read(single);
            } else {
                read = 0;
                for (int i = offset; i < offset + length && flow.readableBytes() > 0; i++) {
                    read += flow.read(targets[i]);
                }
            }
            flow.afterCompletions(); // grants the peer what was freed
            flow.flush();
            return read;
        } finally {
            unlock();
        }
    }

    /**
     * Under the lock: 1 when bytes are readable, -1 at the end of the stream, 0 when none came and the channel does
     * not block; else waits.
     */
    private int awaitReadable(boolean blocking) throws IOException {
        for (;;) {
            ensureConnected();
            if (inputShutdown) {
                return -1;
            }
            stream.progress();
            if (stream.state() == RsocketStream.State.ACCEPTING && !awaitEstablished(blocking)) {
                return 0;
            }
            RsocketFlow flow = stream.flow();
            if (flow.readableBytes() > 0) {
                return 1;
            }
            if (flow.isPeerOutputDone() || stream.peerGone()) {
                return -1;
            }
            if (flow.failure() != null) {
                throw new IOException("rsocket connection to " + stream.remote() + " failed: " + flow.failure());
            }
            if (!blocking) {
                return 0;
            }
            armAndProgress();
            if (flow.readableBytes() == 0 && !flow.isPeerOutputDone() && !stream.peerGone() && flow.failure() == null) {
                ensureOpen();
                await(ChannelWaits.FOREVER);
            }
        }
    }

    /** An accepted connection before ESTABLISHED: whether it came (waiting for it when blocking). */
    private boolean awaitEstablished(boolean blocking) throws IOException {
        while (stream.state() == RsocketStream.State.ACCEPTING) {
            if (stream.connectFailure() != null) {
                throw stream.connectFailure();
            }
            long left = stream.connectNanosLeft();
            if (left <= 0) {
                throw new IOException("the client " + stream.remote() + " did not complete the connection within "
                        + RsocketStream.CONNECT_TIMEOUT.toSeconds() + " s of rdma_accept");
            }
            if (!blocking) {
                return false;
            }
            ensureOpen();
            await(left);
            stream.progress();
        }
        ensureConnected();
        startKeepalive();
        return true;
    }

    // ------------------------------------------------------------------------------------------------ write

    @Override
    public long write(ByteBuffer single, ByteBuffer[] sources, int offset, int length, boolean blocking)
            throws IOException {
        lock.lock();
        try {
            long written = 0;
            int next = offset;
            long progressed = System.nanoTime();
            for (;;) {
                ensureWritable(blocking);
                if (stream.state() == RsocketStream.State.ACCEPTING) {
                    return 0; // a non-blocking channel's connection is not yet established
                }
                RsocketFlow flow = stream.flow();
                int took;
                if (single != null) {
                    took = flow.write(single);
                } else {
                    took = 0;
                    while (next < offset + length) {
                        took += flow.write(sources[next]);
                        if (sources[next].hasRemaining()) {
                            break;
                        }
                        next++;
                    }
                }
                written += took;
                if (took > 0) {
                    flow.flush();
                    progressed = System.nanoTime();
                }
                boolean more = single != null ? single.hasRemaining() : next < offset + length;
                if (!more || !blocking) {
                    return written;
                }
                if (took == 0 && !flow.canSend()) {
                    armAndProgress();
                    if (!flow.canSend() && flow.failure() == null && !stream.peerGone()) {
                        ensureOpen();
                        await(WriteStall.left(writeStallNanos, progressed, stream.remote()));
                    }
                }
                stream.progress();
            }
        } finally {
            unlock();
        }
    }

    /** Under the lock: the checks before a write takes bytes, after reading what arrived. */
    private void ensureWritable(boolean blocking) throws IOException {
        ensureConnected();
        if (outputShutdown) {
            throw new ClosedChannelException(); // as the JDK's channel after shutdownOutput
        }
        stream.progress();
        if (stream.state() == RsocketStream.State.ACCEPTING && !awaitEstablished(blocking)) {
            return;
        }
        RsocketFlow flow = stream.flow();
        if (flow.failure() != null) {
            throw new IOException("rsocket connection to " + stream.remote() + " failed: " + flow.failure());
        }
        if (stream.peerGone() || flow.isPeerDisconnected() || !flow.isOutputOpen()) {
            throw new IOException("Broken pipe: the peer " + stream.remote() + " closed the connection");
        }
    }

    // --------------------------------------------------------------------------------------------- shutdown

    @Override
    public void shutdownInput() throws IOException {
        lock.lock();
        try {
            ensureConnected();
            inputShutdown = true; // rsocket's SHUT_RD: what arrives later is not read
        } finally {
            unlock();
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        lock.lock();
        try {
            ensureConnected();
            if (!outputShutdown) {
                outputShutdown = true;
                stream.flow().shutdownOutput(); // SHUTDOWN, or DISCONNECT when the input is done too
                stream.flow().flush();
            }
        } finally {
            unlock();
        }
    }

    @Override
    public boolean isInputShutdown() {
        lock.lock();
        try {
            return inputShutdown;
        } finally {
            unlock();
        }
    }

    @Override
    public boolean isOutputShutdown() {
        lock.lock();
        try {
            return outputShutdown;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------- selection

    @Override
    public int readyOps() {
        lock.lock();
        try {
            if (stream.state() == RsocketStream.State.CLOSED) {
                return 0;
            }
            stream.progress();
            boolean ended = stream.connectFailure() != null || stream.connectNanosLeft() <= 0;
            return switch (stream.state()) {
                case CONNECTING -> connectPending && ended ? SelectionKey.OP_CONNECT : 0;
                case ACCEPTING -> ended ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : 0;
                case CONNECTED -> (connectPending ? SelectionKey.OP_CONNECT : 0) | connectedReadyOps();
                default -> 0;
            };
        } finally {
            unlock();
        }
    }

    /** Under the lock: read when data, the end or a failure waits; write when a write takes bytes or throws. */
    private int connectedReadyOps() {
        RsocketFlow flow = stream.flow();
        boolean broken = flow.failure() != null || stream.peerGone();
        int ops = 0;
        if (inputShutdown || broken || flow.readableBytes() > 0 || flow.isPeerOutputDone()) {
            ops |= SelectionKey.OP_READ;
        }
        if (broken || outputShutdown || !flow.isOutputOpen() || flow.canSend()) {
            ops |= SelectionKey.OP_WRITE;
        }
        return ops;
    }

    @Override
    public void arm() {
        lock.lock();
        try {
            stream.arm();
        } finally {
            unlock();
        }
    }

    @Override
    public int descriptors(int interest, int[] fds, short[] events, int at) {
        lock.lock();
        try {
            int count = stream.descriptors(fds, at);
            Arrays.fill(events, at, at + count, NativeDescriptors.POLLIN);
            return count;
        } finally {
            unlock();
        }
    }

    // -------------------------------------------------------------------------------------------- keepalive

    /** Starts, restarts or stops rsocket's keepalive as {@code SO_KEEPALIVE} and {@code TCP_KEEPIDLE} now say. */
    void keepaliveChanged() {
        lock.lock();
        try {
            if (keepalive != null) {
                keepalive.cancel(false);
                keepalive = null;
            }
            startKeepalive();
        } finally {
            unlock();
        }
    }

    /** Under the lock: the keepalive task, if the option is on and the stream is connected and has none yet. */
    private void startKeepalive() {
        if (keepalive == null && stream.isConnected()
                && options.get(StandardSocketOptions.SO_KEEPALIVE)) {
            keepalive = ChannelTimers.every(options.get(ExtendedSocketOptions.TCP_KEEPIDLE), this::sendKeepalive);
        }
    }

    /**
     * The timer's turn: rsocket's keepalive, a zero-byte RDMA WRITE; one the peer's adapter does not acknowledge
     * fails the connection, which the next read or write reports.
     */
    private void sendKeepalive() {
        lock.lock();
        try {
            if (stream.state() == RsocketStream.State.CONNECTED) {
                stream.progress();
                stream.flow().sendKeepalive();
            }
        } catch (RuntimeException e) {
            // the connection failed meanwhile: its next read or write says how
        } finally {
            unlock();
        }
    }

    // ----------------------------------------------------------------------------------- addresses, close

    @Override
    public InetSocketAddress localAddress() {
        lock.lock();
        try {
            return stream.local();
        } finally {
            unlock();
        }
    }

    @Override
    public InetSocketAddress remoteAddress() {
        lock.lock();
        try {
            return stream.isConnected() ? stream.remote() : null;
        } finally {
            unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (keepalive != null) {
                keepalive.cancel(false);
                keepalive = null;
            }
            connectEnded();
            if (stream.state() == RsocketStream.State.CLOSED) {
                return;
            }
            waits.close(TimeUnit.SECONDS.toNanos(1)); // blocked readers and writers return (closed)
            stream.close(); // DISCONNECT to the peer
        } finally {
            unlock();
        }
    }

    /** Waits up to the linger for the last sends to complete, then frees the connection and the rest. */
    @Override
    public void release(ReentrantLock readLock, ReentrantLock writeLock) {
        lock.lock();
        try {
            stream.lingerAndRelease();
        } finally {
            unlock();
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        if (stream.state() == RsocketStream.State.CLOSED) {
            throw new ClosedChannelException();
        }
    }

    private void ensureConnected() throws IOException {
        ensureOpen();
        if (!stream.isConnected()) {
            throw new NotYetConnectedException();
        }
    }

    @Override
    public String toString() {
        return stream.toString();
    }
}
