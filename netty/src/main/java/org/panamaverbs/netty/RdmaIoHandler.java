package org.panamaverbs.netty;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.ThreadAwareExecutor;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.verbs.CompletionChannel;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.WorkCompletions;

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
 * {@code epoll_wait} on the completion channels' descriptors and an eventfd that {@link #wakeup()} writes,
 * until a completion, a task or the next scheduled task. Busy-polling trades a core for latency; it is
 * bounded, so a loop never spins while idle for longer than that time.
 *
 * <p>Errors: creating a completion queue or channel fails with the library's {@code VerbsException} (naming the
 * verb and errno) in the channel that needed it; completions in error close that channel with the status.
 */
public final class RdmaIoHandler implements IoHandler {
    /** Completions taken per poll. */
    private static final int POLL_BATCH = 64;
    /** Entries per completion queue; a queue pair reserves its send and receive depth in one. */
    private static final int CQ_ENTRIES = 4096;

    private final ThreadAwareExecutor executor;
    private final long busyPollNanos;
    private final EpollWaiter waiter;
    private final WorkCompletions completions = WorkCompletions.allocate(POLL_BATCH);
    private final Map<Context, DeviceQueues> devices = new IdentityHashMap<>();
    private final List<Queue> queues = new ArrayList<>();
    private final List<Registration> registrations = new ArrayList<>();
    private final List<RsocketConnection> ready = new ArrayList<>();
    private final List<RsocketConnection> closing = new ArrayList<>();
    private volatile boolean wakenUp;
    private volatile CmEventChannel cmChannel;

    private RdmaIoHandler(ThreadAwareExecutor executor, Duration busyPoll) {
        this.executor = executor;
        this.busyPollNanos = busyPoll.toNanos();
        try {
            this.waiter = new EpollWaiter();
        } catch (IOException e) {
            completions.close();
            throw new UncheckedIOException(e);
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

    // ----------------------------------------------------------------------------------------------- loop

    @Override
    public int run(IoHandlerContext context) {
        int handled = pollAll();
        reapClosing(false);
        if (handled > 0 || !context.canBlock()) {
            return handled;
        }
        long start = System.nanoTime();
        if (busyPollNanos > 0) {
            long until = start + Math.min(busyPollNanos, Math.max(0, context.delayNanos(start)));
            while (!wakenUp && System.nanoTime() - until < 0) {
                handled = pollAll();
                if (handled > 0) {
                    return handled;
                }
                Thread.onSpinWait();
            }
        }
        for (Queue queue : queues) {
            int rc = queue.cq.requestNotification(false);
            if (rc != 0) {
                throw new IllegalStateException("ibv_req_notify_cq failed with errno " + rc + " on " + queue.cq);
            }
        }
        handled = pollAll();
        if (handled > 0 || wakenUp) {
            wakenUp = false;
            return handled;
        }
        long delay = context.delayNanos(System.nanoTime());
        int millis = delay <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (delay + 999_999) / 1_000_000);
        int ready = waiter.await(millis);
        wakenUp = false;
        for (int i = 0; i < ready; i++) {
            int fd = waiter.readyFd(i);
            for (DeviceQueues device : devices.values()) {
                if (device.channelFd == fd) {
                    while (device.channel.awaitEvent(Duration.ZERO) != null) {
                        // consumed; acknowledged in batches by the library
                    }
                }
            }
        }
        handled = pollAll();
        if (context.shouldReportActiveIoTime()) {
            context.reportActiveIoTime(0);
        }
        return handled;
    }

    /** Polls every completion queue until empty; hands each connection its completions. */
    private int pollAll() {
        int total = 0;
        for (int q = 0; q < queues.size(); q++) {
            Queue queue = queues.get(q);
            int n;
            do {
                n = queue.cq.poll(completions);
                if (n < 0) {
                    throw new IllegalStateException("ibv_poll_cq failed with " + n + " on " + queue.cq);
                }
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = completions.get(i);
                    RsocketConnection connection = queue.byQp.get(wc.qpNumber());
                    if (connection != null && connection.onCompletion(wc) && !connection.queuedReady) {
                        connection.queuedReady = true;
                        ready.add(connection);
                    }
                }
                total += n;
            } while (n == completions.capacity());
        }
        if (!ready.isEmpty()) {
            for (int i = 0; i < ready.size(); i++) {
                RsocketConnection connection = ready.get(i);
                connection.queuedReady = false;
                connection.afterCompletions();
            }
            ready.clear();
        }
        return total;
    }

    /** Polls now (outside {@link #run}), so that completions already queued are seen before a decision. */
    void pollNow() {
        pollAll();
    }

    /** Frees the connections whose close has finished (every send completed) or whose linger ran out. */
    private void reapClosing(boolean all) {
        if (closing.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (int i = closing.size() - 1; i >= 0; i--) {
            RsocketConnection connection = closing.get(i);
            if (all || connection.canBeFreed(now)) {
                closing.remove(i);
                connection.free();
            }
        }
    }

    /** A connection finished with: freed when its last sends completed or its linger passed. */
    void closing(RsocketConnection connection) {
        closing.add(connection);
        reapClosing(false);
        if (closing.contains(connection) && executor instanceof java.util.concurrent.ScheduledExecutorService loop) {
            // be back no later than the linger, even if no completion comes
            try {
                loop.schedule(() -> reapClosing(false), RsocketConnection.LINGER_MILLIS + 1,
                        java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the loop is shutting down: destroy() frees every connection still closing
            }
        }
    }

    @Override
    public void wakeup() {
        if (!executor.isExecutorThread(Thread.currentThread())) {
            wakenUp = true;
            waiter.wakeUp();
        }
    }

    // ------------------------------------------------------------------------------------------- resources

    /** The loop's rdma_cm event channel, made on first use (from any thread). */
    CmEventChannel cmChannel() {
        CmEventChannel channel = cmChannel;
        if (channel == null) {
            synchronized (this) {
                channel = cmChannel;
                if (channel == null) {
                    channel = CmEventChannel.create();
                    cmChannel = channel;
                }
            }
        }
        return channel;
    }

    /** The protection domain and a completion queue with room for a queue pair of these depths; loop thread only. */
    DeviceQueues device(Context context) {
        DeviceQueues device = devices.get(context);
        if (device == null) {
            device = new DeviceQueues(context);
            devices.put(context, device);
        }
        return device;
    }

    /** A completion queue of {@code device} with {@code entries} free, made when none has them. */
    Queue reserve(DeviceQueues device, int entries) {
        for (Queue queue : queues) {
            if (queue.device == device && queue.cq.capacity() - queue.reserved >= entries) {
                queue.reserved += entries;
                return queue;
            }
        }
        int size = Math.max(entries, Math.min(CQ_ENTRIES, device.context.attributes().maxCqe()));
        Queue queue = new Queue(device, device.context.createCompletionQueue(size, device.channel));
        queues.add(queue);
        queue.reserved = entries;
        return queue;
    }

    /** Gives back what {@link #reserve} took. */
    void release(Queue queue, int entries, int qpNumber) {
        queue.byQp.remove(qpNumber);
        queue.reserved -= entries;
    }

    /**
     * Registers a channel's handle with its event loop (which must run an RdmaIoHandler); {@code then} gets the
     * loop's registration, or {@code promise} the failure.
     */
    static void register(io.netty.channel.EventLoop loop, RdmaIoHandle handle, io.netty.channel.ChannelPromise promise,
            java.util.function.Consumer<IoRegistration> then) {
        ((io.netty.channel.IoEventLoop) loop).register(handle).addListener(f -> {
            if (f.isSuccess()) {
                then.accept((IoRegistration) f.getNow());
            } else {
                promise.setFailure(f.cause());
            }
        });
    }

    /** This handler's own registration behind the loop's (which wraps it). */
    static Registration of(IoRegistration registration) {
        return registration.attachment();
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        if (!(handle instanceof RdmaIoHandle rdma)) {
            throw new IllegalArgumentException("an RdmaIoHandler serves RDMA channels, not " + handle.getClass().getName());
        }
        Registration registration = new Registration(rdma);
        registrations.add(registration);
        handle.registered();
        return registration;
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    @Override
    public void prepareToDestroy() {
        for (Registration registration : List.copyOf(registrations)) {
            try {
                registration.handle.close();
            } catch (Exception e) {
                // closing each channel is best effort here; the channel reports its own failure
            }
        }
    }

    @Override
    public void destroy() {
        reapClosing(true);
        CmEventChannel channel = cmChannel;
        if (channel != null) {
            channel.close(); // closes every id (and its queue pair) still open
        }
        for (Queue queue : queues) {
            queue.cq.close();
        }
        queues.clear();
        for (DeviceQueues device : devices.values()) {
            device.close();
        }
        devices.clear();
        completions.close();
        waiter.close();
    }

    /** The per-device part of a loop: a protection domain and the completion channel of its queues. */
    final class DeviceQueues {
        final Context context;
        final ProtectionDomain pd;
        final CompletionChannel channel;
        final int channelFd;

        DeviceQueues(Context context) {
            this.context = context;
            this.pd = context.allocateProtectionDomain();
            try {
                this.channel = context.createCompletionChannel();
                this.channelFd = channel.fd();
                waiter.add(channelFd);
            } catch (IOException e) {
                pd.close();
                throw new UncheckedIOException(e);
            } catch (RuntimeException e) {
                pd.close();
                throw e;
            }
        }

        void close() {
            try {
                waiter.remove(channelFd);
            } catch (IOException e) {
                // the descriptor is closed right after; epoll forgets it then anyway
            }
            channel.close();
            pd.close();
        }
    }

    /** A completion queue and the connections whose queue pairs use it, by queue pair number. */
    static final class Queue {
        final DeviceQueues device;
        final CompletionQueue cq;
        final IntObjectHashMap<RsocketConnection> byQp = new IntObjectHashMap<>();
        int reserved;

        Queue(DeviceQueues device, CompletionQueue cq) {
            this.device = device;
            this.cq = cq;
        }
    }

    /** The registration of one channel. */
    final class Registration implements IoRegistration {
        final RdmaIoHandle handle;
        private boolean valid = true;

        Registration(RdmaIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) this;
        }

        /** The handler this registration belongs to. */
        RdmaIoHandler handler() {
            return RdmaIoHandler.this;
        }

        @Override
        public long submit(IoOps ops) {
            throw new UnsupportedOperationException("RDMA channels are driven by their completions, not by IoOps");
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public boolean cancel() {
            if (!valid) {
                return false;
            }
            valid = false;
            if (executor.isExecutorThread(Thread.currentThread())) {
                cancelled();
            } else {
                executor.execute(this::cancelled);
            }
            return true;
        }

        private void cancelled() {
            if (registrations.remove(this)) {
                handle.unregistered();
            }
        }

        /** Tells the channel that its connection has news (data, credits, a close, a failure). */
        void notifyHandle() {
            if (valid) {
                handle.handle(this, RdmaIoEvent.INSTANCE);
            }
        }
    }

    /** The one event an RDMA channel is handed: its connection processed completions. */
    enum RdmaIoEvent implements IoEvent {
        INSTANCE
    }
}
