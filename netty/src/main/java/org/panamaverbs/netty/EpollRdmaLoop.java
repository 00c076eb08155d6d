package org.panamaverbs.netty;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.SingleThreadEventExecutor;

/**
 * The RDMA side of a Netty epoll event loop (netty-transport-native-epoll's {@code EpollIoHandler}), so that
 * {@link RdmaSocketChannel} and {@link RdmaServerSocketChannel} run on the same loops as an application's epoll TCP
 * channels. Made on the loop's thread when the first RDMA channel registers with it; one {@link RdmaLoop} per loop,
 * as with {@link RdmaIoHandler}.
 *
 * <p>Each device's completion channel descriptor is registered with the loop as an {@link EpollIoHandle}
 * (level-triggered {@code EPOLLIN}). When it is readable the loop consumes the channel's events, polls the
 * completion queues and hands each connection its completions, re-arms the queues and polls once more: the dispatch
 * of {@link RdmaIoHandler}, without its busy-poll (Netty's loop, not this class, decides when to block). The
 * descriptor stays the library's: the loop never closes it ({@link BorrowedDescriptor}).
 *
 * <p>The loop's rdma_cm event channel is a polled one ({@code CmEventChannel.createPolled()}): its descriptor is
 * registered the same way, and its events (connection requests, connects, disconnects) are read and handled on the
 * loop, as with {@link RdmaIoHandler}.
 *
 * <p>When the loop shuts down (Netty's {@code prepareToDestroy} closes the completion channel handles, or the loop's
 * shutdown hook runs, whichever is first) every RDMA channel of the loop is closed, their last sends get a short
 * bounded time to complete, and the loop's queues, channels and rdma_cm ids are freed. This class is loaded only when
 * a channel is registered with an epoll loop, so nothing of netty-transport-native-epoll is needed without one.
 */
final class EpollRdmaLoop {
    /** How long a loop that shuts down keeps polling for its closed connections' last sends. */
    private static final long SHUTDOWN_DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final Map<IoEventLoop, EpollRdmaLoop> LOOPS = new ConcurrentHashMap<>();

    private final IoEventLoop eventLoop;
    private final RdmaLoop rdma;
    private final IntObjectHashMap<DescriptorHandle> handles = new IntObjectHashMap<>();
    private boolean shutDown;

    private EpollRdmaLoop(IoEventLoop eventLoop, SingleThreadEventExecutor executor) {
        this.eventLoop = eventLoop;
        this.rdma = new RdmaLoop(eventLoop, new RdmaLoop.Watcher() {
            @Override
            public void watch(int fd, Object owner) {
                handles.put(fd, new DescriptorHandle(fd, owner));
            }

            @Override
            public void unwatch(int fd) {
                DescriptorHandle handle = handles.remove(fd);
                if (handle != null) {
                    handle.unregister();
                }
            }
        });
        executor.addShutdownHook(this::shutdown);
    }

    /** Whether {@code loop} is an epoll loop (its handler takes {@link EpollIoHandle}s). */
    static boolean serves(IoEventLoop loop) {
        return loop.isCompatible(EpollIoHandle.class);
    }

    /**
     * Registers an RDMA channel's handle with the RDMA side of the epoll loop {@code loop}, made on first use; loop
     * thread only.
     *
     * @throws RejectedExecutionException if the loop is shutting down
     * @throws IllegalArgumentException   if the loop is not a {@link SingleThreadEventExecutor} (the loops of
     *                                    {@code MultiThreadIoEventLoopGroup} are), whose shutdown hook frees the
     *                                    RDMA resources
     */
    static RdmaLoop.Registration register(IoEventLoop loop, RdmaIoHandle handle) {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("registering an RDMA channel outside its event loop's thread");
        }
        if (loop.isShuttingDown()) {
            throw new RejectedExecutionException("the event loop " + loop + " is shutting down");
        }
        EpollRdmaLoop rdmaLoop = LOOPS.get(loop);
        if (rdmaLoop == null) {
            if (!(loop instanceof SingleThreadEventExecutor executor)) {
                throw new IllegalArgumentException("RDMA channels on an epoll loop need a loop of"
                        + " MultiThreadIoEventLoopGroup (a SingleThreadEventExecutor, whose shutdown frees the RDMA"
                        + " resources), not " + loop.getClass().getName());
            }
            rdmaLoop = new EpollRdmaLoop(loop, executor);
            LOOPS.put(loop, rdmaLoop);
        }
        return rdmaLoop.rdma.register(handle);
    }

    /** Whether RDMA resources are held for {@code loop} (made by a registration, freed by the loop's shutdown). */
    static boolean holds(IoEventLoop loop) {
        return LOOPS.containsKey(loop);
    }

    /**
     * A descriptor is readable: a completion channel's (consume its events) or the rdma_cm event channel's (handle
     * its events); then poll, re-arm, poll once more, free finished closes.
     */
    private void onReadable(int fd) {
        rdma.onReadable(fd);
        rdma.pollAll();
        rdma.armAndPoll();
        rdma.reapClosing(false);
    }

    /** Closes the loop's RDMA channels and frees its RDMA resources; once, on the loop's thread. */
    private void shutdown() {
        if (shutDown) {
            return;
        }
        shutDown = true;
        LOOPS.remove(eventLoop, this);
        try {
            rdma.closeChannels();
            rdma.awaitClosing(SHUTDOWN_DRAIN_NANOS);
        } finally {
            rdma.destroy();
        }
    }

    /**
     * A descriptor of the library's (a completion channel's, the rdma_cm event channel's) as an {@link EpollIoHandle}
     * of the loop. Netty's {@code prepareToDestroy} closes it when the loop shuts down: the whole RDMA side of the
     * loop goes then.
     */
    private final class DescriptorHandle implements EpollIoHandle {
        private final Object owner;
        private final int number;
        private final BorrowedDescriptor fd;
        private final IoRegistration registration;

        DescriptorHandle(int number, Object owner) {
            this.owner = owner;
            this.number = number;
            this.fd = new BorrowedDescriptor(number);
            Future<IoRegistration> registered = eventLoop.register(this);
            if (!registered.isSuccess()) { // on the loop's thread, a registration completes at once
                throw new IllegalStateException("registering " + owner + " with " + eventLoop + " failed",
                        registered.cause());
            }
            this.registration = registered.getNow();
            try {
                registration.submit(EpollIoOps.EPOLLIN);
            } catch (RuntimeException e) {
                registration.cancel();
                throw e;
            }
        }

        @Override
        public FileDescriptor fd() {
            return fd;
        }

        @Override
        public void handle(IoRegistration ignored, IoEvent event) {
            onReadable(number);
        }

        /** Leaves the epoll set before the library closes the descriptor. */
        void unregister() {
            registration.cancel();
            fd.forget();
        }

        @Override
        public void close() {
            shutdown();
        }

        @Override
        public String toString() {
            return "DescriptorHandle[" + owner + "]";
        }
    }

    /**
     * A descriptor the library owns, lent to Netty: closing it only marks it closed (so the loop stops using it); the
     * library closes the descriptor itself ({@code ibv_destroy_comp_channel}).
     */
    static final class BorrowedDescriptor extends FileDescriptor {
        BorrowedDescriptor(int fd) {
            super(fd);
        }

        /** Marks the descriptor closed without closing it. */
        void forget() {
            markClosed();
        }

        @Override
        public void close() {
            markClosed();
        }
    }
}
