package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.rsocket.RsocketWire;

import jdk.net.ExtendedSocketOptions;

/**
 * A {@link SocketChannel} over an rsocket stream ({@link RsocketTransport}: an rdma_cm id in the TCP port space, its
 * RC queue pair and rings), or, when rdma_cm cannot connect to the address and the provider's fallback is on, over a
 * kernel TCP socket ({@link TcpConnection}), as librspreload's {@code connect} falls back. This class keeps the
 * JDK's contracts: the read and write locks, blocking and non-blocking modes, {@code begin}/{@code end} so that a
 * close from another thread or an interrupt ends a blocked call with {@code AsynchronousCloseException} or
 * {@code ClosedByInterruptException}, a failed connect closing the channel, options, addresses and the
 * {@code socket()} adaptor; the transport moves the bytes.
 */
final class RsocketSocketChannel extends SocketChannel implements RsocketSelectable {
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final RsocketOptions options;
    /** The rsocket this channel starts as (and stays, unless it falls back). */
    private final RsocketTransport rsocket;
    /** What moves the bytes: {@link #rsocket}, or the TCP socket it fell back to (set once, under both locks). */
    private volatile SocketTransport transport;
    /** Whether a connect that rdma_cm cannot make goes over TCP instead (the provider's switch). */
    private final boolean tcpFallback;
    /** How long a blocking write may wait without taking a byte (the provider's bound); 0 for none. */
    private final long writeStallNanos;
    /** Made on the first {@link #socket()}. */
    private volatile SocketAdaptor adaptor;
    /** The selectors this channel is registered with, woken when its readiness changes off their thread. */
    private final List<RsocketSelector> selectors = new CopyOnWriteArrayList<>();
    /** The address the rsocket connect went to, for its fallback; under both locks. */
    private InetSocketAddress rsocketTarget;

    /** A transport's call, made under the JDK's blocking protocol by {@link #call}. */
    @FunctionalInterface
    private interface TransportCall {
        long run(SocketTransport transport, boolean blocking) throws IOException;
    }

    /** A client's channel, unconnected. */
    RsocketSocketChannel(SelectorProvider provider) throws IOException {
        this(provider, RsocketOptions.forSocket());
    }

    private RsocketSocketChannel(SelectorProvider provider, RsocketOptions options) throws IOException {
        super(provider);
        this.options = options;
        RsocketSelectorProvider ours = provider instanceof RsocketSelectorProvider p ? p : null;
        this.tcpFallback = ours != null && ours.tcpFallback();
        this.writeStallNanos = ours == null ? 0 : ours.writeStallNanos();
        this.rsocket = new RsocketTransport(options, writeStallNanos, this::wakeSelectors);
        this.transport = rsocket;
    }

    /** A connection a server channel accepted from rdma_cm (see {@link RsocketTransport#accept}). */
    static RsocketSocketChannel accepted(SelectorProvider provider, CmEvents events, CmEvent request,
            RsocketWire.ConnectionData client, RsocketOptions inherited) throws IOException {
        RsocketSocketChannel channel = new RsocketSocketChannel(provider, inherited.forAccepted());
        channel.rsocket.accept(events, request.id(), client);
        return channel;
    }

    /** A connection a TCP fallback listener accepted. */
    static RsocketSocketChannel acceptedOverTcp(SelectorProvider provider, TcpConnection connection)
            throws IOException {
        RsocketSocketChannel channel = new RsocketSocketChannel(provider, RsocketOptions.forSocket());
        channel.rsocket.close();
        channel.rsocket.release(channel.readLock, channel.writeLock);
        channel.transport = connection;
        return channel;
    }

    private void wakeSelectors() {
        for (RsocketSelector selector : selectors) {
            selector.wakeup();
        }
    }

    /**
     * {@code call} under {@code first} (and {@code second}) and the JDK's blocking protocol; a connect that fails
     * ({@code connecting}) closes the channel, as the JDK's does, and its own exception stands.
     */
    private long call(ReentrantLock first, ReentrantLock second, boolean connecting, TransportCall call)
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
                    if (!isOpen()) {
                        throw new ClosedChannelException();
                    }
                    result = call.run(transport, blocking);
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

    // ---------------------------------------------------------------------------------------------- connect

    @Override
    public boolean connect(SocketAddress address) throws IOException {
        InetSocketAddress target = checkRemote(address);
        return call(readLock, writeLock, true, (connection, blocking) -> {
            if (connection == rsocket) {
                rsocketTarget = target;
            }
            try {
                return connection.startConnect(target) || connection.finishConnect(blocking) ? 1 : 0;
            } catch (IOException e) {
                return fallBackOrThrow(connection, target, e, blocking);
            }
        }) == 1;
    }

    @Override
    public boolean finishConnect() throws IOException {
        return call(readLock, writeLock, true, (connection, blocking) -> {
            try {
                return connection.finishConnect(blocking) ? 1 : 0;
            } catch (IOException e) {
                return fallBackOrThrow(connection, connection == rsocket ? rsocketTarget : null, e, blocking);
            }
        }) == 1;
    }

    /**
     * rdma_cm could not connect (no RDMA device serves the address, none is on this machine, the peer refused or
     * did not answer): with the fallback on, the channel becomes a TCP socket to the same address, with the options
     * the program set and its bind, and the rsocket attempt is freed; else {@code failure} stands.
     *
     * @return 1 when the TCP connect completed, 0 when it goes on (non-blocking)
     */
    private long fallBackOrThrow(SocketTransport failed, InetSocketAddress target, IOException failure,
            boolean blocking) throws IOException {
        if (failed != rsocket || !tcpFallback || target == null || !isOpen()
                || failure instanceof ClosedChannelException) {
            throw failure;
        }
        InetSocketAddress bindTo = rsocket.requestedLocal();
        rsocket.close();
        rsocket.release(readLock, writeLock);
        TcpConnection tcp = TcpConnection.open(target, writeStallNanos, this::wakeSelectors);
        transport = tcp;
        wakeSelectors(); // a selection polling the rsocket's descriptors looks at the socket's instead
        for (var option : options.explicit().entrySet()) {
            tcp.setOption(option.getKey(), option.getValue());
        }
        if (bindTo != null) {
            tcp.bind(bindTo);
        }
        return tcp.startConnect(target) || tcp.finishConnect(blocking) ? 1 : 0;
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

    @Override
    public boolean isConnected() {
        return transport.isConnected();
    }

    @Override
    public boolean isConnectionPending() {
        return transport.isConnectionPending();
    }

    // ------------------------------------------------------------------------------------ read, write, shutdown

    @Override
    public int read(ByteBuffer target) throws IOException {
        Objects.requireNonNull(target, "target");
        return (int) call(readLock, null, false, (connection, blocking) ->
                connection.read(target, null, 0, 0, blocking));
    }

    @Override
    public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, targets.length);
        return call(readLock, null, false, (connection, blocking) ->
                connection.read(null, targets, offset, length, blocking));
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        Objects.requireNonNull(source, "source");
        return (int) call(writeLock, null, false, (connection, blocking) ->
                connection.write(source, null, 0, 0, blocking));
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, sources.length);
        return call(writeLock, null, false, (connection, blocking) ->
                connection.write(null, sources, offset, length, blocking));
    }

    @Override
    public SocketChannel shutdownInput() throws IOException {
        ensureOpen();
        transport.shutdownInput();
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        ensureOpen();
        transport.shutdownOutput();
        return this;
    }

    /** Whether {@link #shutdownInput()} was called (the socket adaptor's {@code isInputShutdown}). */
    boolean isInputShutdown() {
        return transport.isInputShutdown();
    }

    /** Whether {@link #shutdownOutput()} was called. */
    boolean isOutputShutdown() {
        return transport.isOutputShutdown();
    }

    // ------------------------------------------------------------------------------------------- selection

    @Override
    public int readyOps() {
        return isOpen() ? transport.readyOps() : 0;
    }

    @Override
    public void arm() {
        transport.arm();
    }

    @Override
    public int descriptors(int interest, int[] fds, short[] events, int at) {
        return transport.descriptors(interest, fds, events, at);
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
            SocketTransport closed = transport;
            Thread.ofVirtual().name("rsocket close").start(() -> closed.release(readLock, writeLock));
        }
    }

    // ---------------------------------------------------------------------------------------------- close

    @Override
    protected void implCloseSelectableChannel() {
        SocketTransport closing = transport;
        closing.close(); // blocked readers and writers return; the peer hears of it
        if (isRegistered()) {
            wakeSelectors(); // the keys are cancelled next; the descriptors go when the last selector lets go
        } else {
            closing.release(readLock, writeLock);
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // each call looks at isBlocking(); the transports' descriptors are always non-blocking
    }

    // ----------------------------------------------------------------------------------- addresses, options

    @Override
    public SocketChannel bind(SocketAddress address) throws IOException {
        ensureOpen();
        if (address != null && !(address instanceof InetSocketAddress)) {
            throw new UnsupportedAddressTypeException();
        }
        InetSocketAddress inet = address == null ? new InetSocketAddress(0) : (InetSocketAddress) address;
        if (inet.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        SocketTransport current = transport;
        if (current != rsocket) { // a TCP fallback is connecting or connected, so bound
            throw current.isConnectionPending() ? new ConnectionPendingException() : new AlreadyBoundException();
        }
        rsocket.bind(inet); // rdma_bind_addr when connecting, before rdma_resolve_addr
        return this;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return transport.localAddress();
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return transport.remoteAddress();
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ensureOpen();
        if (transport instanceof TcpConnection tcp) {
            tcp.setOption(name, value);
            return this;
        }
        options.set(name, value);
        if (name == StandardSocketOptions.SO_KEEPALIVE || name == ExtendedSocketOptions.TCP_KEEPIDLE) {
            rsocket.keepaliveChanged();
        }
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        ensureOpen();
        return transport instanceof TcpConnection tcp ? tcp.getOption(name) : options.get(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return transport instanceof TcpConnection ? TcpConnection.OPTIONS : options.supported();
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

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public String toString() {
        return "RsocketSocketChannel[" + (transport instanceof TcpConnection tcp ? tcp : "rsocket " + transport) + "]";
    }
}
