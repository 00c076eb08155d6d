package org.panamaverbs.netty;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;

/**
 * The Netty 4.2 {@link IoHandler} of {@link RdmaSocketChannel} and {@link RdmaServerSocketChannel}: one per event
 * loop, with one completion channel ({@code ibv_create_comp_channel}) and its completion queues
 * ({@code ibv_create_cq}) per RDMA device, shared by every connection of the loop, and one rdma_cm event
 * channel ({@code rdma_create_event_channel}). Use it as Netty's own handlers are used:
 *
 * <pre>{@code
 * EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
 * new ServerBootstrap().group(group).channel(RdmaServerSocketChannel.class)...
 * }</pre>
 *
 * <p>Each {@link #run} polls the completion queues ({@code ibv_poll_cq}) and hands each connection its
 * completions. When there is nothing to do and the loop may block, it first polls for the busy-poll time
 * (default 0: off), then arms the queues ({@code ibv_req_notify_cq}), polls once more, and blocks in
 * {@code epoll_wait} on the completion channels' descriptors, the rdma_cm event channel's and an eventfd that
 * {@link #wakeup()} writes, until a completion, an rdma_cm event, a task or the next scheduled task. rdma_cm events
 * (connection requests, connects, disconnects) are read on the loop too ({@code rdma_get_cm_event} on a non-blocking
 * channel): a loop busy with traffic looks at its descriptors at least once a millisecond. Busy-polling trades a core for latency; it is
 * bounded, so a loop never spins while idle for longer than that time.
 *
 * <p>The channels also run on Netty's own epoll loops ({@code MultiThreadIoEventLoopGroup(EpollIoHandler.newFactory())},
 * netty-transport-native-epoll on the class path), beside epoll TCP channels: the completion channels are then
 * registered with Netty's epoll set and dispatched the same way, without busy-polling. This handler is for loops that
 * serve RDMA channels only: it needs no native library of Netty's and can busy-poll.
 *
 * <p>Errors: creating a completion queue or channel fails with the library's {@code VerbsException} (naming the
 * verb and errno) in the channel that needed it; completions in error close that channel with the status.
 */
public final class RdmaIoHandler implements IoHandler {
    /** How often a loop that never blocks still looks at its descriptors: 1 ms, a syscall that costs about 1 µs. */
    private static final long DESCRIPTOR_CHECK_NANOS = 1_000_000;
    private final ThreadAwareExecutor executor;
    private final long busyPollNanos;
    private final EpollWaiter waiter;
    private final RdmaLoop loop;
    private volatile boolean wakenUp;
    /** When the descriptors were last looked at ({@code epoll_wait}), by {@link System#nanoTime()}. */
    private long lastDescriptorCheck;
    /** The last pass blocked in {@code epoll_wait}: the next takes its start as the time of that check. */
    private boolean descriptorsJustWatched;

    private RdmaIoHandler(ThreadAwareExecutor executor, Duration busyPoll) {
        this.executor = executor;
        this.busyPollNanos = busyPoll.toNanos();
        try {
            this.waiter = new EpollWaiter();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.loop = newLoop(executor, waiter);
    }

    private static RdmaLoop newLoop(ThreadAwareExecutor executor, EpollWaiter waiter) {
        try {
            return new RdmaLoop(executor, new WaiterWatcher(waiter));
        } catch (RuntimeException | Error e) {
            waiter.close();
            throw e;
        }
    }

    /** The loop's descriptors are watched by this handler's own epoll set. */
    private record WaiterWatcher(EpollWaiter waiter) implements RdmaLoop.Watcher {
        @Override
        public void watch(int fd, Object owner) {
            try {
                waiter.add(fd);
            } catch (IOException e) {
                throw new UncheckedIOException(new IOException("watching the descriptor of " + owner + ": "
                        + e.getMessage(), e));
            }
        }

        @Override
        public void unwatch(int fd) {
            try {
                waiter.remove(fd);
            } catch (IOException e) {
                // the descriptor is closed right after; epoll forgets it then anyway
            }
        }
    }

    /**
     * A factory for handlers that never busy-poll: an idle loop arms its completion queues and blocks at once.
     *
     * @return the factory, for {@code new MultiThreadIoEventLoopGroup(n, factory)}
     */
    public static IoHandlerFactory newFactory() {
        return newFactory(Duration.ZERO);
    }

    /**
     * A factory for handlers that busy-poll their completion queues for up to {@code busyPoll} before they block
     * (lower latency, at the cost of a core while traffic lasts).
     *
     * @param busyPoll how long an idle loop keeps polling before it arms and blocks; zero for never, at most 1 s
     * @return the factory, for {@code new MultiThreadIoEventLoopGroup(n, factory)}
     * @throws IllegalArgumentException if {@code busyPoll} is negative or above 1 s
     */
    public static IoHandlerFactory newFactory(Duration busyPoll) {
        if (busyPoll.isNegative() || busyPoll.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("busy-poll time must be 0 to 1 s, not " + busyPoll);
        }
        return executor -> new RdmaIoHandler(executor, busyPoll);
    }

    @Override
    public int run(IoHandlerContext context) {
        // one clock read per pass (under emulation, or with a clock source that is not the TSC, each is a system
        // call); the waits below take their delay from it, at most a pass late on a deadline rounded up to 1 ms
        long now = System.nanoTime();
        if (descriptorsJustWatched) {
            descriptorsJustWatched = false;
            lastDescriptorCheck = now;
        } else if (now - lastDescriptorCheck > DESCRIPTOR_CHECK_NANOS) {
            // a loop kept busy by completions or tasks never blocks in epoll_wait: look at the descriptors anyway,
            // or a connection request or a peer's disconnect would wait for traffic to stop
            lastDescriptorCheck = now;
            handleReady(waiter.await(0));
        }
        int handled = loop.pollAll();
        loop.reapClosing(false);
        if (handled > 0 || !context.canBlock()) {
            return handled;
        }
        if (busyPollNanos > 0) {
            long until = now + Math.min(busyPollNanos, Math.max(0, context.delayNanos(now)));
            while (!wakenUp && System.nanoTime() - until < 0) {
                handled = loop.pollAll();
                if (handled > 0) {
                    return handled;
                }
                Thread.onSpinWait();
            }
        }
        handled = loop.armAndPoll();
        if (handled > 0 || wakenUp) {
            wakenUp = false;
            return handled;
        }
        long delay = context.delayNanos(busyPollNanos > 0 ? System.nanoTime() : now); // busy-polling took time
        int millis = delay <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (delay + 999_999) / 1_000_000);
        int ready = waiter.await(millis);
        wakenUp = false;
        descriptorsJustWatched = true;
        handleReady(ready);
        handled = loop.pollAll();
        if (context.shouldReportActiveIoTime()) {
            context.reportActiveIoTime(0);
        }
        return handled;
    }

    private void handleReady(int ready) {
        for (int i = 0; i < ready; i++) {
            loop.onReadable(waiter.readyFd(i));
        }
    }

    @Override
    public void wakeup() {
        if (!executor.isExecutorThread(Thread.currentThread())) {
            wakenUp = true;
            waiter.wakeUp();
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        if (!(handle instanceof RdmaIoHandle rdma)) {
            throw new IllegalArgumentException("an RdmaIoHandler serves RDMA channels, not " + handle.getClass().getName());
        }
        return loop.register(rdma);
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    @Override
    public void prepareToDestroy() {
        loop.closeChannels();
    }

    @Override
    public void destroy() {
        try {
            loop.destroy();
        } finally {
            waiter.close();
        }
    }
}
