package org.panamaverbs.nio;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketFlow;
import org.panamaverbs.rsocket.RsocketWire;

/**
 * A {@link SocketChannel} that is one rsocket stream: an rdma_cm id in the TCP port space, its RC queue pair and
 * buffers ({@link RsocketConnection}) on queues of its own ({@link ConnectionQueues}), driven by whichever thread
 * reads, writes, connects or closes it, under its lock. Blocking and non-blocking modes as the JDK's channel has
 * them: a blocking read waits for data or the end of the stream, a blocking write until every byte was taken into
 * the send ring; a close from another thread or an interrupt ends them with {@code AsynchronousCloseException} or
 * {@code ClosedByInterruptException}. A connect ({@code rdma_resolve_addr}, {@code rdma_resolve_route},
 * {@code rdma_connect}) is bounded by {@link RsocketStream#CONNECT_TIMEOUT}; a closed channel lingers up to
 * {@link RsocketConnection#LINGER_MILLIS} for its last sends, as {@code rclose} waits for them.
 */
final class RsocketSocketChannel extends SocketChannel implements RsocketSelectable {

    private final ChannelWaits waits;
    private final ReentrantLock lock;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final RsocketOptions options;
    /** The connection; under {@link #lock}. */
    private final RsocketStream stream;
    /** Made on the first {@link #socket()}. */
    private volatile SocketAdaptor adaptor;
    private boolean inputShutdown;
    private boolean outputShutdown;
    /** A connect was started and finishConnect has not yet said it ended (OP_CONNECT's subject). */
    private boolean connectPending;
    /** The selectors this channel is registered with, woken when its readiness changes off their thread. */
    private final List<RsocketSelector> selectors = new CopyOnWriteArrayList<>();
    /** Whether a connect that rdma_cm cannot make goes over TCP instead (the provider's switch). */
    private final boolean tcpFallback;
    /** The TCP socket this channel fell back to (set once, under the lock), or null while it is an rsocket. */
    private volatile TcpConnection tcp;

    /** A TCP fallback's call, made under the JDK's blocking protocol by {@link #onTcp}. */
    @FunctionalInterface
    private interface TcpCall {
        long run(TcpConnection connection, boolean blocking) throws IOException;
    }

    /** A client's channel, unconnected. */
    RsocketSocketChannel(SelectorProvider provider) throws IOException {
        this(provider, RsocketOptions.forSocket());
    }

    private RsocketSocketChannel(SelectorProvider provider, RsocketOptions options) throws IOException {
        super(provider);
        this.options = options;
        this.waits = new ChannelWaits(this::endTurn);
        this.lock = waits.lock;
        this.stream = new RsocketStream(this::wake);
        this.tcpFallback = provider instanceof RsocketSelectorProvider ours && ours.tcpFallback();
    }

    /** A connection a TCP fallback listener accepted. */
    static RsocketSocketChannel acceptedOverTcp(SelectorProvider provider, TcpConnection connection)
            throws IOException {
        RsocketSocketChannel channel = new RsocketSocketChannel(provider, RsocketOptions.forSocket());
        channel.tcp = connection;
        return channel;
    }

    /**
     * A connection a server channel accepts: the queue pair on the request's id, the stream started with the
     * client's rsocket data, and {@code rdma_accept}; ESTABLISHED is awaited by the first read or write (as rsocket's
     * {@code raccept} leaves it), within {@link RsocketStream#CONNECT_TIMEOUT}.
     */
    static RsocketSocketChannel accepted(SelectorProvider provider, CmEvents events, CmEvent request,
            RsocketWire.ConnectionData client, RsocketOptions inherited) throws IOException {
        RsocketSocketChannel channel = new RsocketSocketChannel(provider, inherited.forAccepted());
        channel.accept(events, request.id(), client);
        return channel;
    }

    private void accept(CmEvents shared, CmId request, RsocketWire.ConnectionData client) throws IOException {
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

    // ----------------------------------------------------------------------------------------------- events

    /** The stream heard from another thread (an rdma_cm event): the channel's waiters and selectors look again. */
    private void wake() {
        waits.wakeup();
        for (RsocketSelector selector : selectors) {
            selector.wakeup();
        }
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

    @Override
    public boolean connect(SocketAddress address) throws IOException {
        InetSocketAddress target = checkRemote(address);
        readLock.lock();
        try {
            writeLock.lock();
            try {
                boolean overRdma;
                lock.lock();
                try {
                    overRdma = startConnect(target);
                } finally {
                    unlock();
                }
                if (!overRdma) {
                    return onTcp(readLock, writeLock, true, (connection, blocking) ->
                            connection.startConnect(target) || connection.finishConnect(blocking) ? 1 : 0) == 1;
                }
                return finishConnect(); // a non-blocking channel's connect goes on in its later finishConnect calls
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
    }

    static InetSocketAddress checkRemote(SocketAddress address) {
        Objects.requireNonNull(address, "remote");
        if (!(address instanceof InetSocketAddress inet)) {
            throw new UnsupportedAddressTypeException();
        }
        if (inet.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        if (inet.getAddress().isAnyLocalAddress()) { // as the JDK does: the wildcard means this host
            try {
                return new InetSocketAddress(InetAddress.getLocalHost(), inet.getPort());
            } catch (IOException e) {
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), inet.getPort());
            }
        }
        return inet;
    }

    /** Under the lock: starts rdma_cm's connect; false when it failed at once and the channel fell back to TCP. */
    private boolean startConnect(InetSocketAddress target) throws IOException {
        ensureOpen();
        if (tcp != null || stream.isConnected()) {
            throw tcp != null && tcp.isConnectionPending() ? new ConnectionPendingException()
                    : new AlreadyConnectedException();
        }
        if (stream.state() == RsocketStream.State.CONNECTING) {
            throw new ConnectionPendingException();
        }
        try {
            stream.connect(target, stream.local(), options.settings());
            connectPending = true;
            return true;
        } catch (IOException e) {
            if (tcpFallback) {
                fallBackToTcp(target);
                return false;
            }
            closeAfterFailedConnect();
            throw e;
        }
    }

    /**
     * Under the lock: rdma_cm could not connect (no RDMA device serves the address, none on this machine, or the
     * peer refused or did not answer), so the channel becomes a TCP socket to the same address, as librspreload's
     * {@code connect} falls back to the kernel's; the rsocket attempt is freed. The caller starts the TCP connect.
     */
    private void fallBackToTcp(InetSocketAddress target) throws IOException {
        InetSocketAddress bindTo = stream.local();
        stream.close();
        stream.release();
        connectPending = false;
        try {
            TcpConnection connection = TcpConnection.open(target);
            tcp = connection;
            for (var option : options.explicit().entrySet()) {
                connection.setOption(option.getKey(), option.getValue());
            }
            if (bindTo != null) {
                connection.bind(bindTo);
            }
        } catch (IOException e) {
            closeAfterFailedConnect();
            throw e;
        }
    }

    /**
     * A call to the TCP fallback under {@code first} (and {@code second}) and the JDK's blocking protocol; a connect
     * that fails ({@code connecting}) closes the channel, as the JDK's does, and its own exception stands.
     */
    private long onTcp(ReentrantLock first, ReentrantLock second, boolean connecting, TcpCall call)
            throws IOException {
        first.lock();
        try {
            if (second != null) {
                second.lock();
            }
            try {
                boolean blocking = isBlocking();
                long result = 0;
                boolean ended = false;
                try {
                    if (blocking) {
                        begin();
                    }
                    TcpConnection connection = tcp;
                    if (!isOpen()) {
                        throw new ClosedChannelException();
                    }
                    result = call.run(connection, blocking);
                    ended = result > 0;
                    return result;
                } catch (IOException e) {
                    if (connecting && isOpen()) {
                        ended = true;
                        close();
                    }
                    throw e;
                } finally {
                    if (blocking) {
                        end(ended);
                    }
                }
            } finally {
                if (second != null) {
                    second.unlock();
                }
            }
        } finally {
            first.unlock();
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        if (tcp == null) {
            int outcome = finishRsocketConnect();
            if (outcome >= 0) {
                return outcome == 1;
            }
        }
        return onTcp(readLock, writeLock, true, (connection, blocking) -> connection.finishConnect(blocking) ? 1 : 0)
                == 1;
    }

    /** The rsocket connect's progress: 1 connected, 0 not yet (non-blocking), -1 fallen back to TCP. */
    private int finishRsocketConnect() throws IOException {
        boolean blocking = isBlocking();
        boolean ended = false; // connected, or failed with the connect's own exception, which end() must not replace
        try {
            if (blocking) {
                begin();
            }
            lock.lock();
            try {
                ensureOpen();
                if (stream.isConnected()) {
                    connectPending = false;
                    ended = true;
                    return 1;
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
                        ended = true;
                        if (tcpFallback) {
                            InetSocketAddress target = stream.remote();
                            fallBackToTcp(target);
                            try {
                                return tcp.startConnect(target) ? 1 : -1;
                            } catch (IOException e) {
                                closeAfterFailedConnect();
                                throw e;
                            }
                        }
                        closeAfterFailedConnect();
                        throw failure;
                    }
                    if (stream.state() == RsocketStream.State.CONNECTED) {
                        connectPending = false;
                        ended = true;
                        return 1;
                    }
                    if (!blocking) {
                        return 0;
                    }
                    ensureOpen();
                    await(left);
                }
            } finally {
                unlock();
            }
        } finally {
            if (blocking) {
                end(ended);
            }
        }
    }

    /** A failed connect closes the channel, as the JDK's does. */
    private void closeAfterFailedConnect() {
        unlock();
        try {
            close();
        } catch (IOException e) {
            // the connect's failure is what the caller hears of
        } finally {
            lock.lock();
        }
    }

    @Override
    public boolean isConnected() {
        TcpConnection fallback = tcp;
        if (fallback != null) {
            return fallback.isConnected();
        }
        lock.lock();
        try {
            return stream.isConnected();
        } finally {
            unlock();
        }
    }

    @Override
    public boolean isConnectionPending() {
        TcpConnection fallback = tcp;
        if (fallback != null) {
            return fallback.isConnectionPending();
        }
        lock.lock();
        try {
            return stream.state() == RsocketStream.State.CONNECTING;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------- read

    @Override
    public int read(ByteBuffer target) throws IOException {
        Objects.requireNonNull(target, "target");
        if (tcp != null) {
            return (int) onTcp(readLock, null, false, (connection, blocking) ->
                    connection.read(target, null, 0, 0, blocking));
        }
        return read(target, null, 0, 0);
    }

    @Override
    public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, targets.length);
        if (tcp != null) {
            return onTcp(readLock, null, false, (connection, blocking) ->
                    connection.read(null, targets, offset, length, blocking));
        }
        return read(null, targets, offset, length);
    }

    /** One buffer ({@code single}) or a slice of an array: waits for data as the mode says, then fills them in order. */
    private int read(ByteBuffer single, ByteBuffer[] targets, int offset, int length) throws IOException {
        readLock.lock();
        try {
            boolean blocking = isBlocking();
            int read = 0;
            try {
                if (blocking) {
                    begin();
                }
                lock.lock();
                try {
                    read = awaitReadable(blocking);
                    if (read != 1) {
                        return read;
                    }
                    RsocketFlow flow = stream.flow();
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
            } finally {
                if (blocking) {
                    end(read != 0);
                }
            }
        } finally {
            readLock.unlock();
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
        return true;
    }

    // ------------------------------------------------------------------------------------------------ write

    @Override
    public int write(ByteBuffer source) throws IOException {
        Objects.requireNonNull(source, "source");
        if (tcp != null) {
            return (int) onTcp(writeLock, null, false, (connection, blocking) ->
                    connection.write(source, null, 0, 0, blocking));
        }
        return (int) write(source, null, 0, 0);
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, sources.length);
        if (tcp != null) {
            return onTcp(writeLock, null, false, (connection, blocking) ->
                    connection.write(null, sources, offset, length, blocking));
        }
        return write(null, sources, offset, length);
    }

    /** Copies into the send ring what credits allow; a blocking channel waits until every byte was taken. */
    private long write(ByteBuffer single, ByteBuffer[] sources, int offset, int length) throws IOException {
        writeLock.lock();
        try {
            boolean blocking = isBlocking();
            long written = 0;
            try {
                if (blocking) {
                    begin();
                }
                lock.lock();
                try {
                    int next = offset;
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
                        }
                        boolean more = single != null ? single.hasRemaining() : next < offset + length;
                        if (!more || !blocking) {
                            return written;
                        }
                        if (took == 0 && !flow.canSend()) {
                            armAndProgress();
                            if (!flow.canSend() && flow.failure() == null && !stream.peerGone()) {
                                ensureOpen();
                                await(ChannelWaits.FOREVER);
                            }
                        }
                        stream.progress();
                    }
                } finally {
                    unlock();
                }
            } finally {
                if (blocking) {
                    end(written > 0);
                }
            }
        } finally {
            writeLock.unlock();
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
    public SocketChannel shutdownInput() throws IOException {
        if (tcp != null) {
            ensureOpen();
            tcp.shutdownInput();
            return this;
        }
        lock.lock();
        try {
            ensureConnected();
            inputShutdown = true; // rsocket's SHUT_RD: what arrives later is not read
            return this;
        } finally {
            unlock();
        }
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        if (tcp != null) {
            ensureOpen();
            tcp.shutdownOutput();
            return this;
        }
        lock.lock();
        try {
            ensureConnected();
            if (!outputShutdown) {
                outputShutdown = true;
                stream.flow().shutdownOutput(); // SHUTDOWN, or DISCONNECT when the input is done too
                stream.flow().flush();
            }
            return this;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------- selection

    @Override
    public int readyOps() {
        TcpConnection fallback = tcp;
        if (fallback != null) {
            return isOpen() ? fallback.readyOps() : 0;
        }
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
        TcpConnection fallback = tcp;
        if (fallback != null) {
            return fallback.descriptors(interest, fds, events, at);
        }
        lock.lock();
        try {
            int count = stream.descriptors(fds, at);
            java.util.Arrays.fill(events, at, at + count, NativeDescriptors.POLLIN);
            return count;
        } finally {
            unlock();
        }
    }

    @Override
    public void selectorAdded(RsocketSelector selector) {
        selectors.add(selector);
    }

    @Override
    public void selectorRemoved(RsocketSelector selector) {
        selectors.remove(selector);
        if (!isOpen() && !isRegistered()) {
            // a selector may still have polled our descriptors: they go now that the last one let the channel go,
            // lingering for the last sends off the selector's thread
            TcpConnection fallback = tcp;
            Thread.ofVirtual().name("rsocket close").start(fallback == null ? this::lingerAndRelease
                    : () -> fallback.release(readLock, writeLock));
        }
    }

    // ---------------------------------------------------------------------------------------------- close

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        TcpConnection fallback;
        lock.lock();
        try {
            fallback = tcp;
            if (fallback != null) {
                fallback.close(); // blocked readers and writers return
            }
        } finally {
            unlock();
        }
        if (fallback != null) {
            if (isRegistered()) {
                selectors.forEach(RsocketSelector::wakeup); // the socket goes when the last selector lets go
            } else {
                fallback.release(readLock, writeLock);
            }
            return;
        }
        lock.lock();
        try {
            if (stream.state() == RsocketStream.State.CLOSED) {
                return;
            }
            waits.close(TimeUnit.SECONDS.toNanos(1)); // blocked readers and writers return (closed)
            stream.close(); // DISCONNECT to the peer
        } finally {
            unlock();
        }
        if (isRegistered()) {
            // the keys are cancelled next; the descriptors a selector may be polling go when the last lets go
            for (RsocketSelector selector : selectors) {
                selector.wakeup();
            }
        } else {
            lingerAndRelease();
        }
    }

    /** Waits up to the linger for the last sends to complete, then frees the connection and the rest. */
    private void lingerAndRelease() {
        lock.lock();
        try {
            stream.lingerAndRelease();
        } finally {
            unlock();
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // each call looks at isBlocking(); there is no descriptor whose mode would change
    }

    // ----------------------------------------------------------------------------------- addresses, options

    @Override
    public SocketChannel bind(SocketAddress address) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (stream.state() == RsocketStream.State.CONNECTING) {
                throw new ConnectionPendingException();
            }
            if (stream.state() != RsocketStream.State.UNCONNECTED || stream.local() != null) {
                throw new AlreadyBoundException();
            }
            if (address != null && !(address instanceof InetSocketAddress)) {
                throw new UnsupportedAddressTypeException();
            }
            InetSocketAddress inet = address == null ? new InetSocketAddress(0) : (InetSocketAddress) address;
            if (inet.isUnresolved()) {
                throw new UnresolvedAddressException();
            }
            stream.bindLocal(inet); // rdma_bind_addr when connecting, before rdma_resolve_addr
            return this;
        } finally {
            unlock();
        }
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        lock.lock();
        try {
            ensureOpen();
            return tcp != null ? tcp.localAddress() : stream.local();
        } finally {
            unlock();
        }
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (tcp != null) {
                return tcp.remoteAddress();
            }
            return stream.isConnected() ? stream.remote() : null;
        } finally {
            unlock();
        }
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ensureOpen();
        if (tcp != null) {
            tcp.setOption(name, value);
        } else {
            options.set(name, value);
        }
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        ensureOpen();
        if (tcp != null) {
            return tcp.getOption(name);
        }
        return options.get(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return tcp != null ? TcpConnection.OPTIONS : options.supported();
    }

    @Override
    public Socket socket() {
        SocketAdaptor made = adaptor;
        if (made == null) {
            synchronized (this) {
                made = adaptor;
                if (made == null) {
                    adaptor = made = new SocketAdaptor(this);
                }
            }
        }
        return made;
    }

    /** Whether {@link #shutdownInput()} was called (the socket adaptor's {@code isInputShutdown}). */
    boolean isInputShutdown() {
        if (tcp != null) {
            return tcp.isInputShutdown();
        }
        lock.lock();
        try {
            return inputShutdown;
        } finally {
            unlock();
        }
    }

    /** Whether {@link #shutdownOutput()} was called. */
    boolean isOutputShutdown() {
        if (tcp != null) {
            return tcp.isOutputShutdown();
        }
        lock.lock();
        try {
            return outputShutdown;
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------- checks

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen() || (tcp == null && stream.state() == RsocketStream.State.CLOSED)) {
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
        TcpConnection fallback = tcp;
        return "RsocketSocketChannel[" + (fallback != null ? fallback : stream) + "]";
    }
}
