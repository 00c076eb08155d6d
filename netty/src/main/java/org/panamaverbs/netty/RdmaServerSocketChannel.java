package org.panamaverbs.netty;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;

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
 * <p>Connection requests are taken by a virtual thread parked on the listening id; a request whose private data
 * is not rsocket's version 1 is rejected ({@code rdma_reject}) and never reaches the pipeline. A child's queue
 * pair is made on the child's own event loop when it is registered, then accepted; {@code channelActive} follows
 * rdma_cm's ESTABLISHED event. The port is rdma_cm's, in the TCP port space: it does not collide with TCP
 * sockets on the same number.
 */
public final class RdmaServerSocketChannel extends AbstractServerChannel implements ServerChannel {
    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(RdmaServerSocketChannel.class);

    private final RdmaServerSocketChannelConfig config = new RdmaServerSocketChannelConfig(this);
    private final ConcurrentLinkedQueue<CmEvent> requests = new ConcurrentLinkedQueue<>();
    private RdmaLoop.Registration registration;
    private IoRegistration ioRegistration;
    private volatile CmId listening;
    private volatile InetSocketAddress local;
    private volatile boolean open = true;
    private boolean readPending;

    /** A server channel ({@code serverBootstrap.channel(RdmaServerSocketChannel.class)}). */
    public RdmaServerSocketChannel() {
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
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return RdmaLoop.serves(loop);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new ServerUnsafe();
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        RdmaLoop.register(eventLoop(), (ServerUnsafe) unsafe(), promise, (loopRegistration, rdmaRegistration) -> {
            ioRegistration = loopRegistration;
            registration = rdmaRegistration;
            promise.setSuccess();
        });
    }

    @Override
    protected void doDeregister() {
        IoRegistration current = ioRegistration;
        if (current != null) {
            ioRegistration = null;
            registration = null;
            current.cancel();
        }
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        if (!(localAddress instanceof InetSocketAddress address)) {
            throw new IllegalArgumentException("an RDMA server binds to an InetSocketAddress, not " + localAddress);
        }
        CmId id = CmId.create(registration.loop().cmChannel(), PortSpace.TCP);
        try {
            id.bind(address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address);
            id.listen(config.getBacklog());
        } catch (RuntimeException e) {
            id.close();
            throw e;
        }
        local = id.localAddress();
        listening = id;
        EventLoop loop = eventLoop();
        Thread.ofVirtual().name("rsocket-listen-" + local.getPort()).start(() -> acceptRequests(id, loop));
    }

    /** Takes connection requests until the listening id closes; refuses the ones that do not speak rsocket v1. */
    private void acceptRequests(CmId id, EventLoop loop) {
        try {
            while (!id.isClosed()) {
                CmEvent request = id.awaitConnectionRequest(Duration.ofHours(1));
                if (request == null) {
                    continue;
                }
                try {
                    RsocketWire.ConnectionData.decode(request.privateData());
                } catch (RsocketWire.MalformedConnectionData e) {
                    LOG.info("refused a connection request from {}: {}", request.id().peerAddress(), e.getMessage());
                    try {
                        request.id().reject(null);
                    } finally {
                        request.id().close();
                    }
                    continue;
                }
                requests.add(request);
                loop.execute(this::readRequests);
            }
        } catch (IllegalStateException e) {
            // the listening id was closed: the server channel is closing
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the event loop shut down: it closes this channel and its id
        } catch (RuntimeException e) {
            LOG.warn("the rdma_cm listener of {} stopped", local, e);
            loop.execute(() -> {
                pipeline().fireExceptionCaught(e);
                unsafe().close(voidPromise());
            });
        }
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
    protected void doClose() {
        open = false;
        CmId id = listening;
        if (id != null) {
            id.close();
        }
        for (CmEvent request; (request = requests.poll()) != null; ) {
            request.id().close();
        }
    }

    private final class ServerUnsafe extends AbstractUnsafe implements RdmaIoHandle {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            safeSetFailure(promise, new UnsupportedOperationException("a server channel does not connect"));
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            // a server channel has no queue pair; requests come from its rdma_cm listener
        }

        @Override
        public void close() {
            close(voidPromise());
        }
    }
}
