package org.panamaverbs.netty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.ThreadAwareExecutor;
import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketHost;
import org.panamaverbs.verbs.CompletionChannel;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.WorkCompletion;
import org.panamaverbs.verbs.CompletionArray;

/**
 * The RDMA side of one event loop, whichever {@code IoHandler} drives it ({@link RdmaIoHandler}, or Netty's
 * {@code EpollIoHandler} through {@link EpollRdmaLoop}): per device a protection domain, a completion channel and
 * its completion queues, shared by every connection of the loop; the loop's rdma_cm event channel; the RDMA
 * channels registered with the loop; and the one way completions and rdma_cm events are polled and handed to
 * connections (their {@link RsocketHost}). Loop thread only, except {@link #unfollow} and a {@link Registration}'s
 * cancel.
 */
final class RdmaLoop implements RsocketHost {
    /** Completions taken per poll. */
    private static final int POLL_BATCH = 64;
    /** Entries per completion queue; a queue pair reserves its send and receive depth in one. */
    private static final int CQ_ENTRIES = 4096;
    /** Whether Netty's epoll classes are on the class path (the optional dependency); checked without loading them. */
    private static final boolean EPOLL_CLASSES = classPresent("io.netty.channel.epoll.EpollIoHandle");

    /**
     * Who watches the loop's descriptors (the completion channels' and the rdma_cm event channel's) for
     * readability: the handler's own epoll set, or Netty's epoll loop. Either hands a readable one to
     * {@link #onReadable(int)}.
     */
    interface Watcher {
        /** Starts watching {@code fd}, the descriptor of {@code owner}, for readability (level-triggered). */
        void watch(int fd, Object owner);

        /** Stops watching {@code fd} (before its owner closes it). */
        void unwatch(int fd);
    }

    private final ThreadAwareExecutor executor;
    private final Watcher watcher;
    private final CompletionArray completions = CompletionArray.allocate(POLL_BATCH);
    private final Map<Context, DeviceQueues> devices = new IdentityHashMap<>();
    private final List<Queue> queues = new ArrayList<>();
    private final List<Registration> registrations = new ArrayList<>();
    private final List<RsocketConnection> ready = new ArrayList<>();
    private final List<RsocketConnection> closing = new ArrayList<>();
    private final LoopCmEvents cm;
    private boolean destroyed;

    RdmaLoop(ThreadAwareExecutor executor, Watcher watcher) {
        this.executor = executor;
        this.watcher = watcher;
        this.cm = new LoopCmEvents(watcher);
    }

    private static boolean classPresent(String name) {
        try {
            Class.forName(name, false, RdmaLoop.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    // ------------------------------------------------------------------------------------------- which loops

    /**
     * Whether RDMA channels can be registered with {@code loop}: one of {@link RdmaIoHandler}, or of Netty's
     * {@code EpollIoHandler} when netty-transport-native-epoll is on the class path.
     */
    static boolean serves(EventLoop loop) {
        return loop instanceof IoEventLoop io
                && (io.isCompatible(RdmaIoHandle.class) || (EPOLL_CLASSES && EpollRdmaLoop.serves(io)));
    }

    /**
     * Registers a channel's handle with its event loop (loop thread): with the loop's {@link RdmaIoHandler}, or with
     * the RDMA side of an epoll loop. {@code then} gets the registration to cancel on deregistration and the loop's
     * {@link Registration}; {@code promise} the failure.
     */
    static void register(EventLoop loop, RdmaIoHandle handle, ChannelPromise promise,
            BiConsumer<IoRegistration, Registration> then) {
        IoEventLoop io = (IoEventLoop) loop;
        if (io.isCompatible(RdmaIoHandle.class)) {
            io.register(handle).addListener(f -> {
                if (f.isSuccess()) {
                    IoRegistration registration = (IoRegistration) f.getNow();
                    then.accept(registration, registration.attachment()); // the loop's wrapper around ours
                } else {
                    promise.setFailure(f.cause());
                }
            });
            return;
        }
        if (!EPOLL_CLASSES) {
            promise.setFailure(new IllegalStateException("RDMA channels need an event loop of RdmaIoHandler, or of"
                    + " Netty's EpollIoHandler with netty-transport-native-epoll on the class path, not " + loop));
            return;
        }
        Registration registration;
        try {
            registration = EpollRdmaLoop.register(io, handle);
        } catch (RuntimeException e) {
            promise.setFailure(e);
            return;
        }
        then.accept(registration, registration);
    }

    // ----------------------------------------------------------------------------------------- completions

    /** Polls every completion queue until empty; hands each connection its completions. */
    int pollAll() {
        if (destroyed) {
            return 0;
        }
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
                    if (connection != null && connection.onCompletion(wc)) {
                        ready.add(connection);
                    }
                }
                total += n;
            } while (n == completions.capacity());
        }
        if (!ready.isEmpty()) {
            for (int i = 0; i < ready.size(); i++) {
                ready.get(i).afterCompletions();
            }
            ready.clear();
        }
        return total;
    }

    /**
     * Arms every completion queue not armed yet ({@code ibv_req_notify_cq}), then polls once more: a completion that
     * arrived between the last poll and the arming raises no event, so it is taken now; any later one signals the
     * channel. A queue stays armed until its event is read, so a loop that found work after arming does not arm
     * again (rsocket's {@code cq_armed}): an armed queue either still waits or has its event on the channel.
     */
    int armAndPoll() {
        for (int q = 0; q < queues.size(); q++) {
            Queue queue = queues.get(q);
            if (!queue.armed) {
                arm(queue);
            }
        }
        return pollAll();
    }

    private static void arm(Queue queue) {
        int rc = queue.cq.requestNotification(false);
        if (rc != 0) {
            throw new IllegalStateException("ibv_req_notify_cq failed with errno " + rc + " on " + queue.cq);
        }
        queue.armed = true;
    }

    /**
     * A watched descriptor is readable. The rdma_cm event channel's: its events are read and handed to the ids'
     * targets ({@link LoopCmEvents}). A completion channel's: its events are consumed (the library acknowledges
     * them in batches) and its queues stay disarmed until {@link #armAndPoll()}; the caller polls them next.
     */
    void onReadable(int fd) {
        if (cm.onReadable(fd)) {
            return;
        }
        for (DeviceQueues device : devices.values()) {
            if (device.channelFd == fd) {
                // a queue signals once per arming: as many reads as queues usually empty the channel without one
                // more that meets EAGAIN; if more were pending, the (level-triggered) descriptor stays readable
                CompletionQueue signalled;
                for (int read = 0; read < device.queueCount
                        && (signalled = device.channel.awaitEvent(Duration.ZERO)) != null; read++) {
                    disarmed(signalled); // the queue that signalled is polled next, and armed again when idle
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------- closing

    /** Frees the connections whose close has finished (every send completed) or whose linger ran out. */
    void reapClosing(boolean all) {
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

    /**
     * Polls until every connection that is closing has been freed, or {@code nanos} passed: a loop that shuts down
     * lets the last sends (the DISCONNECT) of its connections complete before it frees them.
     */
    void awaitClosing(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!closing.isEmpty() && !destroyed && System.nanoTime() - deadline < 0) {
            pollAll();
            reapClosing(false);
            if (!closing.isEmpty()) {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** A connection finished with: freed when its last sends completed or its linger passed. */
    @Override
    public void closing(RsocketConnection connection) {
        if (destroyed) {
            connection.free();
            return;
        }
        closing.add(connection);
        reapClosing(false);
        if (closing.contains(connection) && executor instanceof ScheduledExecutorService loop) {
            // be back no later than the linger, even if no completion comes
            try {
                loop.schedule(() -> reapClosing(false), RsocketConnection.LINGER_MILLIS + 1, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // the loop is shutting down: destroy() frees every connection still closing
            }
        }
    }

    // ------------------------------------------------------------------------------------------- resources

    /**
     * The loop's rdma_cm event channel, made on first use (loop thread): polled, its descriptor watched with the
     * completion channels', so every rdma_cm event of the loop's ids is handled on the loop without a thread of its
     * own. Its ids' events go to their targets ({@link #follow}).
     */
    CmEventChannel cmChannel() {
        if (destroyed) {
            throw new IllegalStateException("the event loop's RDMA resources are released: it shut down");
        }
        return cm.channel();
    }

    /** From now on {@code id}'s events (an id of this loop's {@link #cmChannel()}) go to {@code target}. */
    void follow(CmId id, LoopCmEvents.Target target) {
        cm.follow(id, target);
    }

    /** {@code id}'s events go nowhere any more (it is being closed); from any thread. */
    void unfollow(CmId id) {
        cm.unfollow(id);
    }

    /** The protection domain and completion channel of {@code context} on this loop, made on first use. */
    DeviceQueues device(Context context) {
        if (destroyed) {
            throw new IllegalStateException("the event loop's RDMA resources are released: it shut down");
        }
        DeviceQueues device = devices.get(context);
        if (device == null) {
            device = new DeviceQueues(context);
            devices.put(context, device);
            try {
                watcher.watch(device.channelFd, device.channel);
            } catch (RuntimeException e) {
                devices.remove(context);
                device.close();
                throw e;
            }
        }
        return device;
    }

    @Override
    public ProtectionDomain protectionDomain(Context context) {
        return device(context).pd;
    }

    @Override
    public CompletionQueue reserve(Context context, int entries) {
        return queueWith(device(context), entries).cq;
    }

    @Override
    public void dispatch(CompletionQueue cq, int qpNumber, RsocketConnection connection) {
        Queue queue = queueOf(cq);
        if (queue == null) {
            throw new IllegalArgumentException(cq + " is not a completion queue of this event loop");
        }
        queue.byQp.put(qpNumber, connection);
    }

    @Override
    public void release(CompletionQueue cq, int entries, int qpNumber) {
        Queue queue = queueOf(cq);
        if (queue != null) { // else the loop was destroyed and its queues with it
            queue.byQp.remove(qpNumber);
            queue.reserved -= entries;
        }
    }

    private void disarmed(CompletionQueue cq) {
        Queue queue = queueOf(cq);
        if (queue != null) {
            queue.armed = false;
        }
    }

    private Queue queueOf(CompletionQueue cq) {
        for (int i = 0; i < queues.size(); i++) {
            if (queues.get(i).cq == cq) {
                return queues.get(i);
            }
        }
        return null;
    }

    /** A completion queue of {@code device} with {@code entries} free, made (and armed) when none has them. */
    private Queue queueWith(DeviceQueues device, int entries) {
        for (Queue queue : queues) {
            if (queue.device == device && queue.cq.capacity() - queue.reserved >= entries) {
                queue.reserved += entries;
                return queue;
            }
        }
        int size = Math.max(entries, Math.min(CQ_ENTRIES, device.context.attributes().maxCqe()));
        Queue queue = new Queue(device, device.context.createCompletionQueue(size, device.channel));
        try {
            arm(queue); // an epoll loop never arms before it blocks: a new queue signals from its first completion
        } catch (RuntimeException e) {
            queue.cq.close();
            throw e;
        }
        queues.add(queue);
        device.queueCount++;
        queue.reserved = entries;
        return queue;
    }

    // ------------------------------------------------------------------------------------- registrations

    /** A channel's handle joins this loop. */
    Registration register(RdmaIoHandle handle) {
        Registration registration = new Registration(handle);
        registrations.add(registration);
        handle.registered();
        return registration;
    }

    /** Closes every channel registered (the loop is shutting down); each closes its connection. */
    void closeChannels() {
        for (Registration registration : List.copyOf(registrations)) {
            try {
                registration.handle.close();
            } catch (Exception e) {
                // closing each channel is best effort here; the channel reports its own failure
            }
        }
    }

    /** Frees every connection still closing, the rdma_cm channel (and its ids), the queues and devices. Idempotent. */
    void destroy() {
        if (destroyed) {
            return;
        }
        reapClosing(true);
        destroyed = true;
        cm.destroy(); // closes every id (and its queue pair) still open
        for (DeviceQueues device : devices.values()) {
            watcher.unwatch(device.channelFd);
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
    }

    /** The per-device part of a loop: a protection domain and the completion channel of its queues. */
    static final class DeviceQueues {
        final Context context;
        final ProtectionDomain pd;
        final CompletionChannel channel;
        final int channelFd;
        /** Completion queues made with {@link #channel}: at most one event each per arming. */
        int queueCount;

        DeviceQueues(Context context) {
            this.context = context;
            this.pd = context.allocateProtectionDomain();
            try {
                this.channel = context.createCompletionChannel();
                this.channelFd = channel.fd();
            } catch (RuntimeException e) {
                pd.close();
                throw e;
            }
        }

        void close() {
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
        /** Requested a notification whose event has not been read yet. */
        boolean armed;

        Queue(DeviceQueues device, CompletionQueue cq) {
            this.device = device;
            this.cq = cq;
        }
    }

    /** The registration of one channel with this loop. */
    final class Registration implements IoRegistration {
        final RdmaIoHandle handle;
        private volatile boolean valid = true;

        Registration(RdmaIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) this;
        }

        /** The loop this registration belongs to. */
        RdmaLoop loop() {
            return RdmaLoop.this;
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
