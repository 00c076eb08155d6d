package org.panamaverbs.netty;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;

import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.rsocket.RsocketWire;

/**
 * A Netty server channel that accepts rsocket connections ({@link RdmaSocketChannel}s) from Java and C peers:
 * an rdma_cm id in the TCP port space bound ({@code rdma_bind_addr}) and listening ({@code rdma_listen}, with
 * {@code SO_BACKLOG} as the backlog). Use it where {@code NioServerSocketChannel} would be used, with event
 * loops of {@link RdmaIoHandler}, or of Netty's {@code EpollIoHandler} (netty-transport-native-epoll) beside epoll TCP
 * server channels:
 *
 * <pre>{@code
 * new ServerBootstrap().group(boss, workers).channel(RdmaServerSocketChannel.class)
 *     .childHandler(...).bind(new InetSocketAddress("10.0.0.1", 7471));
 * }</pre>
 *
 * <p>Connection requests are rdma_cm events of the listening id, read on this channel's event loop from the loop's
 * polled event channel (no thread waits for them); a request whose private data is not rsocket's version 1 is
 * rejected ({@code rdma_reject}) and never reaches the pipeline. A child's queue pair is made on the child's own
 * event loop when it is registered, then accepted ({@code rdma_accept}); {@code channelActive} follows rdma_cm's
 * ESTABLISHED event. The child's id stays on this channel's event channel: its few later events (ESTABLISHED,
 * DISCONNECTED) are handed to the child's loop as tasks, as Netty hands an accepted channel to its worker. The port is rdma_cm's, in the TCP port space: it does not collide with TCP
 * sockets on the same number.
 */
public final class RdmaServerSocketChannel extends AbstractRdmaChannel implements ServerChannel {
    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(RdmaServerSocketChannel.class);

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    private final RdmaServerSocketChannelConfig config = new RdmaServerSocketChannelConfig(this);
    /** Requests taken from rdma_cm and not yet read by the pipeline (auto-read off, or past a read's limit). */
    private final ArrayDeque<CmEvent> requests = new ArrayDeque<>();
    private volatile CmId listening;
    private volatile boolean open = true;
    private boolean readPending;

    /** A server channel ({@code serverBootstrap.channel(RdmaServerSocketChannel.class)}). */
    public RdmaServerSocketChannel() {
        super(null);
    }

    @Override
    public RdmaServerSocketChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && listening != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return null;
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ServerUnsafe();
    }

    @Override
    void registered(ChannelPromise promise) {
        promise.setSuccess();
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        if (!(localAddress instanceof InetSocketAddress address)) {
            throw new IllegalArgumentException("an RDMA server binds to an InetSocketAddress, not " + localAddress);
        }
        CmId id = CmId.create(registration.loop().cmChannel(), PortSpace.TCP);
        follow(registration.loop(), id);
        try {
            id.bind(address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address);
            id.listen(config.getBacklog());
        } catch (RuntimeException e) {
            unfollow();
            id.close();
            throw e;
        }
        local = id.localAddress();
        listening = id;
    }

    /**
     * A connection request (on this channel's loop, from the loop's polled event channel): queued for the pipeline,
     * or refused at once if it does not speak rsocket version 1.
     */
    @Override
    void onCmEvent(CmEvent event) {
        if (event.type() != CmEventType.CONNECT_REQUEST) {
            if (event.type() == CmEventType.DEVICE_REMOVAL && open) {
                pipeline().fireExceptionCaught(new IOException("the RDMA device of " + local + " was removed"));
                unsafe().close(voidPromise());
            }
            return;
        }
        CmId request = event.id();
        if (!open) {
            request.closeAsync(); // the listener is closing: refused by the destruction, as a closed C listener does
            return;
        }
        try {
            RsocketWire.ConnectionData.decode(event.privateData());
        } catch (RsocketWire.MalformedConnectionData e) {
            LOG.info("refused a connection request from {}: {}", request.peerAddress(), e.getMessage());
            try {
                request.reject(null);
            } finally {
                request.closeAsync(); // on the loop: rdma_destroy_id's wait in the kernel runs elsewhere
            }
            return;
        }
        requests.add(event);
        readRequests();
    }

    /** Hands waiting requests to the pipeline as child channels, as far as reading is wanted. */
    private void readRequests() {
        if (!readPending || !isActive()) {
            return;
        }
        ChannelPipeline pipeline = pipeline();
        RecvByteBufAllocator.Handle handle = unsafe().recvBufAllocHandle();
        handle.reset(config);
        boolean any = false;
        do {
            CmEvent request = requests.poll();
            if (request == null) {
                break;
            }
            any = true;
            readPending = false;
            RsocketWire.ConnectionData data = RsocketWire.ConnectionData.decode(request.privateData());
            handle.incMessagesRead(1);
            pipeline.fireChannelRead(new RdmaSocketChannel(this, request.id(), data));
        } while (handle.continueReading());
        if (any) {
            handle.readComplete();
            pipeline.fireChannelReadComplete();
        }
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
        if (!requests.isEmpty()) {
            eventLoop().execute(this::readRequests);
        }
    }

    @Override
    protected void doDisconnect() {
        throw new UnsupportedOperationException("a server channel does not disconnect");
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        throw new UnsupportedOperationException("a server channel does not write");
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        throw new UnsupportedOperationException("a server channel does not write");
    }

    @Override
    protected void doClose() {
        open = false;
        unfollow();
        CmId id = listening;
        if (id != null) {
            id.close();
        }
        for (CmEvent request; (request = requests.poll()) != null; ) {
            request.id().closeAsync();
        }
    }

    private final class ServerUnsafe extends AbstractRdmaUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            safeSetFailure(promise, new UnsupportedOperationException("a server channel does not connect"));
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            // a server channel has no queue pair; requests come as its id's rdma_cm events (onCmEvent)
        }
    }
}
