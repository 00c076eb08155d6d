package org.panamaverbs.netty;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.rsocket.RsocketConnectSteps;
import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketFlow;
import org.panamaverbs.rsocket.RsocketWire;
import org.panamaverbs.rsocket.WriteStall;

/**
 * A Netty stream channel over RDMA that speaks rsocket's protocol (librdmacm's {@code rsocket.c}, version 1):
 * it connects to C programs using rsockets ({@code rstream}, anything under {@code librspreload.so}) and to
 * other instances of itself, and serves them through {@link RdmaServerSocketChannel}. Use it where
 * {@code NioSocketChannel} would be used, on an event loop group of {@link RdmaIoHandler}, or of Netty's
 * {@code EpollIoHandler} (with netty-transport-native-epoll on the class path) beside epoll TCP channels:
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory());
 * // or: new MultiThreadIoEventLoopGroup(EpollIoHandler.newFactory())
 * new Bootstrap().group(group).channel(RdmaSocketChannel.class).handler(...).connect("10.0.0.1", 7471);
 * }</pre>
 *
 * <p>Verbs: the connection is an rdma_cm id in the TCP port space ({@code rdma_resolve_addr},
 * {@code rdma_resolve_route}, {@code rdma_create_qp}, {@code rdma_connect} or {@code rdma_accept}) with an RC
 * queue pair; data goes as {@code IBV_WR_RDMA_WRITE_WITH_IMM} from a registered send buffer into the peer's
 * registered receive buffer. Written bytes are copied into the send buffer, so a written {@link ByteBuf} may be
 * released as soon as its write completes; nothing the application holds must stay alive longer.
 *
 * <p>Back-pressure: when the peer grants no more credits (it stops reading), written data stays in the
 * {@link ChannelOutboundBuffer} and {@link #isWritable()} turns false at the high water mark, as with TCP;
 * {@link RdmaChannelOption#WRITE_STALL_TIMEOUT_MILLIS} ends such a wait. Reads take buffers from the
 * channel's {@link RecvByteBufAllocator}; while the channel does not read (auto-read off), received data stays
 * in the receive buffer and the peer gets no new credits.
 *
 * <p>Ends: the peer's close (rsocket DISCONNECT) reads as end of stream and {@code channelInactive}; its
 * {@code shutdown(SHUT_WR)} as end of input ({@link ChannelInputShutdownEvent} when half-closure is allowed,
 * else a close). A peer whose process dies is seen through rdma_cm's DISCONNECTED event (the kernel destroys
 * its id): the pipeline gets an {@link IOException} ("connection reset") and the channel closes, within
 * milliseconds. A peer whose host is gone shows when a send or keepalive fails after the transport's retries
 * ({@code retry_count} 7). Connecting to an address where nothing listens fails at once with a
 * {@link ConnectException}.
 */
public final class RdmaSocketChannel extends AbstractRdmaChannel implements DuplexChannel {
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    private enum State { OPEN, CONNECTING, ACTIVE, CLOSED }

    private final RdmaSocketChannelConfig config;
    /** A connection request this child channel accepts when it is registered (null for a client). */
    private CmId request;
    private RsocketWire.ConnectionData requestData;
    private volatile State state = State.OPEN;
    private RsocketConnection connection;
    private RdmaLoop connectionLoop; // the host of connection's queues
    private volatile InetSocketAddress remote;
    /** The promise that ESTABLISHED completes: a client's connect, or a child's registration (accepted then). */
    private ChannelPromise connectPromise;
    /** A client's id until its connection is made (which then owns it). */
    private CmId connectingId;
    private RsocketConnectSteps connectSteps;
    private ScheduledFuture<?> connectTimeout;
    private boolean readPending;
    private boolean inputShutdown;
    private boolean inputShutdownReported;
    private boolean writeBlocked;
    private WriteStall writeStall;
    private final ByteBufSource writeSource = new ByteBufSource();
    private final ByteBufSink readSink = new ByteBufSink();
    private ScheduledFuture<?> keepalive;

    /** A channel that connects as a client ({@code bootstrap.channel(RdmaSocketChannel.class)}). */
    public RdmaSocketChannel() {
        super(null);
        this.config = new RdmaSocketChannelConfig(this);
    }

    /** A server's child for a connection request; accepted when registered. */
    RdmaSocketChannel(RdmaServerSocketChannel parent, CmId request, RsocketWire.ConnectionData requestData) {
        super(parent);
        followFrom(parent.registration.loop(), request); // the request's events are reported on the server's loop
        this.config = new RdmaSocketChannelConfig(this);
        this.request = request;
        this.requestData = requestData;
        this.remote = request.peerAddress();
        this.local = request.localAddress();
    }

    @Override
    public RdmaSocketChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public RdmaServerSocketChannel parent() {
        return (RdmaServerSocketChannel) super.parent();
    }

    @Override
    public boolean isOpen() {
        return state != State.CLOSED;
    }

    @Override
    public boolean isActive() {
        return state == State.ACTIVE;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaUnsafe();
    }

    // ------------------------------------------------------------------------------------------ registration

    @Override
    void registered(ChannelPromise promise) {
        if (connection != null) {
            connection.attach(registration::notifyHandle);
        }
        if (request != null && connection == null) {
            accept(promise);
        } else {
            promise.setSuccess();
        }
    }

    /**
     * A child: queue pair on this loop, {@code rdma_accept} with our private data; registration completes (and the
     * channel is active) when ESTABLISHED arrives, within the connect timeout.
     */
    private void accept(ChannelPromise promise) {
        CmId id = request;
        request = null;
        try {
            connectionLoop = registration.loop();
            connection = RsocketConnection.open(connectionLoop, id, config.settings());
            connection.attach(registration::notifyHandle);
            connection.flow().start(requestData);
            id.accept(new ConnParam(connection.localData(), 0, 0, 7, 7));
        } catch (RuntimeException e) {
            unfollow();
            if (connection != null) {
                connection.free();
                connection = null;
            } else {
                id.closeAsync();
            }
            state = State.CLOSED;
            promise.setFailure(e);
            return;
        }
        state = State.CONNECTING;
        connectPromise = promise;
        int timeoutMillis = Math.max(1, config.getConnectTimeoutMillis());
        connectTimeout = eventLoop().schedule(() -> failConnect(new ConnectTimeoutException("the client "
                + remote + " did not complete the connection within " + timeoutMillis + " ms of rdma_accept")),
                timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Both sides: the stream starts (credits granted); the peer's death comes as DISCONNECTED ({@link #onCmEvent}). */
    private void established() {
        state = State.ACTIVE;
        connection.flow().afterCompletions();
        connection.flow().flush();
        // what completed while connecting (the peer's first data, its DISCONNECT or SHUTDOWN, a failed send) found the
        // channel not active and was left in the flow: handle it once the pipeline has seen channelActive
        eventLoop().execute(this::onConnectionEventIfActive);
        if (config.isKeepAlive()) {
            long seconds = config.getKeepAliveSeconds();
            keepalive = eventLoop().scheduleAtFixedRate(() -> {
                if (connection != null && !connection.isClosed()) {
                    connection.flow().sendKeepalive();
                }
            }, seconds, seconds, TimeUnit.SECONDS);
        }
    }

    // ------------------------------------------------------------------------------------------------- events

    /**
     * The id's rdma_cm events, on this channel's loop: the steps of a client's connect, the ESTABLISHED (or failure)
     * that ends a child's accept, and the DISCONNECTED of a peer whose id went away.
     */
    @Override
    void onCmEvent(CmEvent event) {
        if (state == State.CONNECTING) {
            if (connectSteps != null) {
                connectSteps.onCmEvent(event);
            } else {
                acceptEvent(event);
            }
            return;
        }
        if (state == State.ACTIVE && (event.type() == CmEventType.DISCONNECTED
                || event.type() == CmEventType.DEVICE_REMOVAL)) {
            cmDisconnected();
        }
    }

    /** A child's accept ends: ESTABLISHED, or the client withdrew (a reject, an error, a disconnect). */
    private void acceptEvent(CmEvent event) {
        switch (event.type()) {
            case ESTABLISHED -> {
                cancel(connectTimeout);
                established();
                connectPromise.setSuccess(); // registration completes active: Netty fires channelActive
            }
            case REJECTED, CONNECT_ERROR, UNREACHABLE, DISCONNECTED, DEVICE_REMOVAL -> failConnect(new ConnectException(
                    "the connection from " + remote + " ended before it was established: " + event));
            default -> {
                // TIMEWAIT_EXIT and the like say nothing about the accept
            }
        }
    }

    /** Completions were processed for our connection: read, resume writing, notice ends and failures. */
    private void onConnectionEvent() {
        RsocketConnection c = connection;
        if (c == null || state != State.ACTIVE) {
            return;
        }
        RsocketFlow flow = c.flow();
        if (flow.failure() != null) {
            failAndClose(new IOException("rsocket connection to " + remote + " failed: " + flow.failure()));
            return;
        }
        if (flow.readableBytes() > 0 && readPending) {
            readNow();
            if (state != State.ACTIVE) {
                return;
            }
        }
        if (writeBlocked && flow.canSend()) {
            writeBlocked = false;
            ((RdmaUnsafe) unsafe()).resumeWrite();
        }
        checkInputEnd();
    }

    /** The peer closed or shut down its output and everything it sent has been read. */
    private void checkInputEnd() {
        RsocketFlow flow = connection.flow();
        if (state != State.ACTIVE || flow.readableBytes() > 0 || !flow.isPeerOutputDone() || inputShutdownReported) {
            return;
        }
        ChannelPipeline pipeline = pipeline();
        if (flow.isPeerDisconnected() || !config.isAllowHalfClosure()) {
            unsafe().close(voidPromise());
            return;
        }
        inputShutdownReported = true;
        inputShutdown = true;
        pipeline.fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        pipeline.fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
    }

    /** rdma_cm says the peer's id is gone: a close we heard of in-band, or a peer that died. */
    private void cmDisconnected() {
        if (state != State.ACTIVE || connection == null) {
            return;
        }
        connectionLoop.pollAll(); // its DISCONNECT may be in our completion queue already
        if (state != State.ACTIVE) {
            return;
        }
        RsocketFlow flow = connection.flow();
        if (flow.isPeerDisconnected()) {
            onConnectionEvent(); // orderly: the end of input follows the data
            return;
        }
        failAndClose(new IOException("connection reset: the peer's rdma_cm id was destroyed without an rsocket"
                + " DISCONNECT (its process ended or it was disconnected), " + remote));
    }

    private void failAndClose(Throwable cause) {
        if (state == State.CLOSED) {
            return;
        }
        pipeline().fireExceptionCaught(cause);
        unsafe().close(voidPromise());
    }

    // --------------------------------------------------------------------------------------------- reading

    @Override
    protected void doBeginRead() {
        if (state != State.ACTIVE) {
            readPending = true;
            return;
        }
        readPending = true;
        if (connection.flow().readableBytes() > 0) {
            eventLoop().execute(this::onConnectionEventIfActive);
        }
    }

    /** Auto-read went off: a read asked for earlier is not done (loop thread, or handed to it). */
    void clearReadPending() {
        if (!isRegistered() || eventLoop().inEventLoop()) {
            readPending = false;
        } else {
            eventLoop().execute(() -> readPending = false);
        }
    }

    private void onConnectionEventIfActive() {
        if (state == State.ACTIVE) {
            onConnectionEvent();
        }
    }

    private void readNow() {
        RsocketFlow flow = connection.flow();
        RecvByteBufAllocator.Handle handle = unsafe().recvBufAllocHandle();
        handle.reset(config);
        ChannelPipeline pipeline = pipeline();
        try {
            do {
                if (flow.readableBytes() == 0) {
                    break;
                }
                ByteBuf buffer = handle.allocate(config.getAllocator());
                handle.attemptedBytesRead(buffer.writableBytes());
                int read;
                try {
                    read = flow.read(readSink.of(buffer));
                } catch (RuntimeException e) {
                    buffer.release();
                    throw e;
                }
                handle.lastBytesRead(read);
                handle.incMessagesRead(1);
                readPending = false;
                if (inputShutdown) {
                    buffer.release(); // shutdownInput: what still arrives is dropped, as after SHUT_RD
                } else {
                    pipeline.fireChannelRead(buffer);
                }
            } while (handle.continueReading() && state == State.ACTIVE);
            handle.readComplete();
            pipeline.fireChannelReadComplete();
        } finally {
            if (connection != null && !connection.isClosed()) {
                connection.flow().afterCompletions(); // grant what was freed
            }
        }
    }

    // --------------------------------------------------------------------------------------------- writing

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf || msg instanceof RdmaDirectWrite) {
            return msg;
        }
        throw new UnsupportedOperationException("RdmaSocketChannel writes ByteBuf and RdmaDirectWrite only, not "
                + msg.getClass().getName());
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (state != State.ACTIVE) {
            throw new ClosedChannelException();
        }
        RsocketFlow flow = connection.flow();
        if (!flow.isOutputOpen()) {
            throw new ClosedChannelException();
        }
        boolean progressed = false;
        try {
            while (true) {
                Object message = in.current();
                if (message == null) {
                    writeBlocked = false;
                    break;
                }
                RdmaDirectWrite direct = message instanceof RdmaDirectWrite d ? d : null;
                ByteBuf buffer = direct != null ? direct.content() : (ByteBuf) message;
                if (!buffer.isReadable()) {
                    in.remove();
                    continue;
                }
                int sent;
                if (direct == null) {
                    sent = flow.write(writeSource.of(buffer));
                } else if (flow.peerRegionsCover(direct.nextOffset(), buffer.readableBytes())) {
                    sent = flow.writeDirect(writeSource.of(buffer), direct.nextOffset());
                } else {
                    in.remove(new IllegalArgumentException("the peer mapped no region for offsets ["
                            + direct.nextOffset() + ", " + (direct.nextOffset() + buffer.readableBytes())
                            + "); its regions: " + flow.describePeerRegions()));
                    continue;
                }
                if (sent > 0) {
                    progressed = true;
                    in.progress(sent);
                }
                if (!buffer.isReadable()) {
                    in.remove();
                    continue;
                }
                if (flow.failure() != null) {
                    throw new IOException("rsocket connection to " + remote + " failed: " + flow.failure());
                }
                writeBlocked = true; // out of credits, send buffer or target: resumed by the completions
                break;
            }
        } finally {
            flow.flush();
        }
        stall().afterWrite(progressed, writeBlocked, System.nanoTime());
    }

    private WriteStall stall() {
        if (writeStall == null) {
            writeStall = new WriteStall(eventLoop(), config::getWriteStallTimeoutMillis, this::writeStalled);
        }
        return writeStall;
    }

    private void writeStalled(long nanos) {
        if (!writeBlocked || state != State.ACTIVE) {
            return;
        }
        failAndClose(new RdmaWriteStalledException("the peer " + remote + " granted no credits for "
                + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms (write stall timeout " + config.getWriteStallTimeoutMillis()
                + " ms); " + unsafe().outboundBuffer().totalPendingWriteBytes() + " bytes were not sent"));
    }

    // ------------------------------------------------------------------------------------- mapped regions

    /**
     * {@code riomap(fd, buf, size, PROT_WRITE, 0, offset)}: new memory of this side that the peer may write into
     * directly at offsets {@code [offset, offset + size)}, with its {@code riowrite} or a Java peer's
     * {@link RdmaDirectWrite}. The entry reaches the peer before any data written after this call; the region
     * stays mapped until {@link RdmaMappedRegion#close()} or the channel's close.
     *
     * @param size   bytes, at least 1
     * @param offset the offset the peer knows the region by, not negative
     * @return completes with the region on the event loop, or fails with {@link IllegalStateException} when the
     *         peer accepts no more regions (it offers no iomap table, rsocket's {@code RDMA_IOMAPSIZE} 0, the
     *         default; or every entry is taken), {@link java.nio.channels.ClosedChannelException} when the channel
     *         is not connected, or the library's exception when the memory cannot be registered (the locked-memory
     *         limit; PVRDMA, which has no RDMA WRITE)
     * @throws IllegalArgumentException if {@code size} is below 1 or {@code offset} is negative
     * @throws IllegalStateException    if the channel is not registered with an event loop
     */
    public io.netty.util.concurrent.Future<RdmaMappedRegion> mapRegion(int size, long offset) {
        if (size < 1 || offset < 0) {
            throw new IllegalArgumentException("a mapped region needs at least 1 byte and an offset of 0 or more,"
                    + " not " + size + " bytes at " + offset);
        }
        io.netty.util.concurrent.Promise<RdmaMappedRegion> promise = eventLoop().newPromise();
        if (eventLoop().inEventLoop()) {
            mapRegion0(size, offset, promise);
        } else {
            eventLoop().execute(() -> mapRegion0(size, offset, promise));
        }
        return promise;
    }

    private void mapRegion0(int size, long offset, io.netty.util.concurrent.Promise<RdmaMappedRegion> promise) {
        if (state != State.ACTIVE || connection == null || connection.isClosed()) {
            promise.setFailure(new ClosedChannelException());
            return;
        }
        try {
            RsocketConnection.Mapped mapped = connection.mapRegion(size, offset);
            promise.setSuccess(new RdmaMappedRegion(this, connection, mapped, offset));
        } catch (RuntimeException e) {
            promise.setFailure(e);
        }
    }

    // ------------------------------------------------------------------------------------- shutdown, close

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || state == State.CLOSED;
    }

    @Override
    public boolean isOutputShutdown() {
        RsocketConnection c = connection;
        return state == State.CLOSED || (c != null && state == State.ACTIVE && !c.flow().isOutputOpen());
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
        } else {
            loop.execute(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        }
        return promise;
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            shutdownInput0(promise);
        } else {
            loop.execute(() -> shutdownInput0(promise));
        }
        return promise;
    }

    private void shutdownInput0(ChannelPromise promise) {
        if (state != State.ACTIVE) {
            promise.setFailure(new ClosedChannelException());
            return;
        }
        inputShutdown = true;
        if (connection.flow().readableBytes() > 0) {
            readNow(); // discarded: nobody reads a shut input
        }
        if (!connection.flow().isOutputOpen()) {
            unsafe().close(voidPromise());
        }
        promise.setSuccess();
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        ChannelFuture output = shutdownOutput();
        output.addListener(f -> shutdownInput(promise));
        return promise;
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        if (state != State.ACTIVE) {
            throw new ClosedChannelException();
        }
        connection.flow().shutdownOutput();
        connection.flow().flush();
        if (inputShutdown) {
            unsafe().close(voidPromise());
        }
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        if (!(localAddress instanceof InetSocketAddress address)) {
            throw new IllegalArgumentException("an RDMA channel binds to an InetSocketAddress, not " + localAddress);
        }
        local = address; // bound when connecting (rdma_bind_addr before rdma_resolve_addr)
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        State previous = state;
        state = State.CLOSED;
        cancel(connectTimeout);
        if (writeStall != null) {
            writeStall.cancel();
        }
        cancel(keepalive);
        unfollow();
        if (request != null) {
            request.closeAsync(); // a child closed before it was registered: the request is refused by its destruction
            request = null;
        }
        if (connection != null) {
            connection.close();
        } else if (connectingId != null) {
            connectingId.closeAsync();
        }
        connectingId = null;
        connectSteps = null;
        if (previous == State.CONNECTING && connectPromise != null) {
            connectPromise.tryFailure(new ClosedChannelException());
        }
    }

    private static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }

    // --------------------------------------------------------------------------------------------- connect

    /**
     * A client's connect, kept on the loop: the id is made on the loop's polled event channel and each step is
     * started by the event that ends the one before ({@link RsocketConnectSteps}); the connect timeout bounds the whole.
     */
    private void startConnect(InetSocketAddress target, InetSocketAddress bindTo, ChannelPromise promise) {
        state = State.CONNECTING;
        connectPromise = promise;
        int timeoutMillis = Math.max(1, config.getConnectTimeoutMillis());
        connectTimeout = eventLoop().schedule(() -> failConnect(new ConnectTimeoutException("connection timed out after "
                + timeoutMillis + " ms: " + target)), timeoutMillis, TimeUnit.MILLISECONDS);
        RdmaLoop rdmaLoop = registration.loop();
        try {
            // as Netty's default resolver does, on the loop; Bootstrap hands over resolved addresses
            InetSocketAddress resolved = target.isUnresolved()
                    ? new InetSocketAddress(InetAddress.getByName(target.getHostString()), target.getPort()) : target;
            CmId id = CmId.create(rdmaLoop.cmChannel(), PortSpace.TCP);
            connectingId = id;
            follow(rdmaLoop, id);
            if (bindTo != null) {
                id.bind(bindTo);
            }
            connectSteps = new RsocketConnectSteps(id, resolved, Duration.ofMillis(timeoutMillis), new RsocketConnectSteps.Outcome() {
                @Override
                public RsocketConnection open() {
                    connectionLoop = rdmaLoop;
                    connection = RsocketConnection.open(rdmaLoop, id, config.settings());
                    connectingId = null; // the connection owns the id now
                    connection.attach(registration::notifyHandle);
                    return connection;
                }

                @Override
                public void established(RsocketWire.ConnectionData peer) {
                    finishConnect(id, peer);
                }

                @Override
                public void failed(Throwable cause) {
                    failConnect(cause);
                }
            }, ConnectTimeoutException::new);
            connectSteps.start();
        } catch (Exception e) {
            failConnect(RsocketConnectSteps.asConnectFailure(e, target, ConnectTimeoutException::new));
        }
    }

    private void finishConnect(CmId id, RsocketWire.ConnectionData peer) {
        cancel(connectTimeout);
        connectSteps = null;
        connection.flow().start(peer);
        local = id.localAddress();
        remote = id.peerAddress();
        established();
        if (connectPromise.trySuccess()) {
            pipeline().fireChannelActive();
        } else {
            unsafe().close(voidPromise()); // the promise was cancelled meanwhile
        }
    }

    /** A connect or an accept failed (or timed out): the promise fails and the channel closes, its id with it. */
    private void failConnect(Throwable cause) {
        if (state != State.CONNECTING) {
            return;
        }
        cancel(connectTimeout);
        connectSteps = null;
        connectPromise.tryFailure(cause);
        if (parent() == null) {
            unsafe().close(voidPromise()); // a child's failed registration is closed by Netty itself
        }
    }

    /** The channel's and its stream's state in words (credits, buffers, what waits), for failure messages. */
    String describeState() {
        RsocketConnection c = connection;
        return state + (writeBlocked ? ", write blocked" : "") + (readPending ? ", read pending" : "")
                + ", pending writes " + (unsafe().outboundBuffer() == null ? 0
                        : unsafe().outboundBuffer().totalPendingWriteBytes()) + ", " + (c == null ? "no connection" : c);
    }

    /** The unsafe: Netty's entry points, and what the loop's {@link RdmaLoop} hands completions to. */
    private final class RdmaUnsafe extends AbstractRdmaUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            if (state == State.ACTIVE) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            if (state == State.CONNECTING) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (!(remoteAddress instanceof InetSocketAddress target)) {
                promise.setFailure(new IllegalArgumentException("an RDMA channel connects to an InetSocketAddress, not "
                        + remoteAddress));
                return;
            }
            InetSocketAddress bindTo = localAddress instanceof InetSocketAddress a ? a : local;
            startConnect(target, bindTo, promise);
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            onConnectionEvent();
        }

        void resumeWrite() {
            flush0();
        }

        @Override
        protected java.util.concurrent.Executor prepareToClose() {
            return null;
        }
    }
}
