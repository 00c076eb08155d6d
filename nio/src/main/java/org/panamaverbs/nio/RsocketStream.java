package org.panamaverbs.nio;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.rsocket.RsocketConnectSteps;
import org.panamaverbs.rsocket.RsocketConnection;
import org.panamaverbs.rsocket.RsocketFlow;
import org.panamaverbs.rsocket.RsocketWire;

/**
 * The connection behind one {@link RsocketSocketChannel}: its rdma_cm id and the steps of its connect or accept,
 * the rdma_cm events routed to it, the {@link RsocketConnection} (queue pair and rings) on queues of its own, and
 * what it takes to free them. Every method runs under the channel's lock; {@link #deliver} alone is called from any
 * thread (whichever read the event channel), and only queues the event and wakes the channel.
 */
final class RsocketStream {
    /** The bound of a connect, and of an accepted connection's wait for rdma_cm's ESTABLISHED. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    /** Each address and route resolution's own bound, as librdmacm's rsocket sets it. */
    private static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(2);

    enum State { UNCONNECTED, CONNECTING, ACCEPTING, CONNECTED, CLOSED }

    /** Wakes the channel's waiters and selectors: an event came from another thread. */
    private final Runnable wake;
    private final ConcurrentLinkedQueue<CmEvent> inbox = new ConcurrentLinkedQueue<>();
    private State state = State.UNCONNECTED;
    private CmEvents events;
    private CmId id;
    private RsocketConnectSteps steps;
    private ConnectionQueues queues;
    private RsocketConnection connection;
    private IOException connectFailure;
    private long connectDeadline;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    /** rdma_cm said DISCONNECTED (or the device went) after the stream started. */
    private boolean peerGone;

    RsocketStream(Runnable wake) {
        this.wake = wake;
    }

    /**
     * A request a listener took: the queue pair on its id, the stream started with the client's rsocket data, and
     * {@code rdma_accept}; ESTABLISHED comes later, as rsocket's {@code raccept} leaves it, within
     * {@link #CONNECT_TIMEOUT}.
     */
    void accept(CmEvents shared, CmId request, RsocketWire.ConnectionData client, RsocketConnection.Settings settings)
            throws IOException {
        try {
            shared.retain();
            events = shared;
            id = request;
            events.follow(request, this::deliver);
            queues = new ConnectionQueues();
            connection = RsocketConnection.open(queues, request, settings);
            connection.flow().start(client);
            request.accept(new ConnParam(connection.localData(), 0, 0, 7, 7));
            local = request.localAddress();
            remote = request.peerAddress();
            state = State.ACCEPTING;
            connectDeadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        } catch (RuntimeException e) {
            release();
            throw new IOException("accepting the rsocket connection from " + request.peerAddress() + " failed: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Starts a client's connect (rdma_cm's steps follow as its events come); bound to {@code bindTo} first if not
     * null. A refused first step frees what was made and throws the {@code ConnectException} a socket would.
     */
    void connect(InetSocketAddress target, InetSocketAddress bindTo, RsocketConnection.Settings settings)
            throws IOException {
        try {
            events = new CmEvents();
            CmId created = CmId.create(events.channel(), PortSpace.TCP);
            id = created;
            events.follow(created, this::deliver);
            if (bindTo != null) {
                created.bind(bindTo);
            }
            remote = target;
            steps = new RsocketConnectSteps(created, target, RESOLVE_TIMEOUT, new Outcome(settings),
                    ConnectException::new);
            state = State.CONNECTING;
            connectDeadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
            steps.start();
        } catch (RuntimeException e) {
            Throwable failure = RsocketConnectSteps.asConnectFailure(e, target, ConnectException::new);
            connectFailure = failure instanceof IOException io ? io : new IOException("cannot connect to " + target
                    + ": " + e.getMessage(), e);
            throw connectFailure;
        }
    }

    /** What the connect steps do at the points that concern the stream (from {@link #progress()}). */
    private final class Outcome implements RsocketConnectSteps.Outcome {
        private final RsocketConnection.Settings settings;

        Outcome(RsocketConnection.Settings settings) {
            this.settings = settings;
        }

        @Override
        public RsocketConnection open() {
            queues = new ConnectionQueues();
            connection = RsocketConnection.open(queues, id, settings);
            return connection;
        }

        @Override
        public void established(RsocketWire.ConnectionData peer) {
            steps = null;
            connection.flow().start(peer);
            local = id.localAddress();
            remote = id.peerAddress();
            RsocketStream.this.established();
        }

        @Override
        public void failed(Throwable cause) {
            connectFailure = cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        }
    }

    /** An rdma_cm event of the id, from any thread: queued, and the channel woken. */
    private void deliver(CmEvent event) {
        inbox.add(event);
        wake.run();
    }

    /** Reads the rdma_cm events and the completions that arrived, and acts on them. */
    void progress() {
        if (events != null) {
            events.poll();
        }
        for (CmEvent event; (event = inbox.poll()) != null; ) {
            onCmEvent(event);
        }
        if (queues != null) {
            queues.poll();
        }
    }

    private void onCmEvent(CmEvent event) {
        switch (state) {
            case CONNECTING -> steps.onCmEvent(event);
            case ACCEPTING -> {
                switch (event.type()) {
                    case ESTABLISHED -> established();
                    case REJECTED, CONNECT_ERROR, UNREACHABLE, DISCONNECTED, DEVICE_REMOVAL -> connectFailure =
                            new IOException("the connection from " + remote + " did not complete: rdma_cm reported "
                                    + event.type());
                    default -> { }
                }
            }
            case CONNECTED -> {
                switch (event.type()) {
                    case DISCONNECTED, DEVICE_REMOVAL -> peerGone = true;
                    default -> { }
                }
            }
            default -> { }
        }
    }

    private void established() {
        state = State.CONNECTED;
        RsocketFlow flow = connection.flow();
        flow.afterCompletions();
        flow.flush();
    }

    /** Before a wait: arms the completion queue. The caller looks once more before it waits. */
    void arm() {
        if (queues != null && state != State.CLOSED) {
            queues.arm();
        }
    }

    /** Writes the completion channel's and the rdma_cm event channel's descriptors from {@code at}; how many. */
    int descriptors(int[] into, int at) {
        int n = 0;
        int completions = completionFd();
        if (completions >= 0) {
            into[at + n++] = completions;
        }
        int cm = eventFd();
        if (cm >= 0) {
            into[at + n++] = cm;
        }
        return n;
    }

    int completionFd() {
        return queues == null ? -1 : queues.fd();
    }

    int eventFd() {
        return events == null ? -1 : events.fd();
    }

    /** The calling thread's turn with the connection ends (before the channel's lock is released). */
    void releaseThread() {
        if (queues != null) {
            queues.releaseThread();
        }
    }

    State state() {
        return state;
    }

    boolean isConnected() {
        return state == State.CONNECTED || state == State.ACCEPTING;
    }

    /** The stream's flow; only while {@link #isConnected()}. */
    RsocketFlow flow() {
        return connection.flow();
    }

    /** Why the connect or the accept failed, or null. */
    IOException connectFailure() {
        return connectFailure;
    }

    /** Nanoseconds left of the connect's (or the accept's) bound. */
    long connectNanosLeft() {
        return connectDeadline - System.nanoTime();
    }

    boolean peerGone() {
        return peerGone;
    }

    InetSocketAddress local() {
        return local;
    }

    /** The address a later connect binds to ({@code rdma_bind_addr} before {@code rdma_resolve_addr}). */
    void bindLocal(InetSocketAddress address) {
        local = address;
    }

    InetSocketAddress remote() {
        return remote;
    }

    /** Closes the stream (DISCONNECT to the peer); {@link #lingerAndRelease()} frees it. Idempotent. */
    void close() {
        state = State.CLOSED;
        if (connection != null) {
            connection.close();
        }
    }

    /** Waits up to the linger for the last sends to complete, then frees the connection and the rest. */
    void lingerAndRelease() {
        if (connection != null) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RsocketConnection.LINGER_MILLIS);
            while (!connection.canBeFreed(System.nanoTime()) && deadline - System.nanoTime() > 0) {
                queues.poll();
                LockSupport.parkNanos(100_000);
            }
        }
        release();
    }

    /** Frees the connection (queue pair, id, buffers), its queues and the hold on the event channel. */
    void release() {
        if (events != null && id != null) {
            events.unfollow(id);
        }
        if (connection != null) {
            connection.free(); // the id with it
            connection = null;
        } else if (id != null) {
            id.closeAsync();
        }
        id = null;
        steps = null;
        if (queues != null) {
            queues.free();
            queues = null;
        }
        if (events != null) {
            events.release();
            events = null;
        }
    }

    @Override
    public String toString() {
        return state + (local == null ? "" : " local=" + local) + (remote == null ? "" : " remote=" + remote);
    }
}
