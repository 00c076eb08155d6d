package org.panamaverbs.nio;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
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
import java.time.Duration;
import java.util.Objects;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.panamaverbs.cm.CmEvent;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.rsocket.RsocketConnectSteps;
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
 * {@code rdma_connect}) is bounded by {@link #CONNECT_TIMEOUT}; a closed channel lingers up to
 * {@link RsocketConnection#LINGER_MILLIS} for its last sends, as {@code rclose} waits for them.
 */
final class RsocketSocketChannel extends SocketChannel implements RsocketSelectable {
    /** The bound of a connect, and of an accepted connection's wait for rdma_cm's ESTABLISHED. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    /** Each address and route resolution's own bound, as librdmacm's rsocket sets it. */
    private static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(2);
    private static final Set<SocketOption<?>> OPTIONS = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.TCP_NODELAY);

    private enum State { UNCONNECTED, CONNECTING, ACCEPTING, CONNECTED, CLOSED }

    private final ChannelWaits waits;
    private final ReentrantLock lock;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** rdma_cm events routed here by whichever thread read the event channel; handled under {@link #lock}. */
    private final ConcurrentLinkedQueue<CmEvent> inbox = new ConcurrentLinkedQueue<>();
    private final RsocketOptions options;
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
    private boolean inputShutdown;
    private boolean outputShutdown;
    /** rdma_cm said DISCONNECTED (or the device went) after the stream started. */
    private boolean peerGone;
    /** A connect was started and finishConnect has not yet said it ended (OP_CONNECT's subject). */
    private boolean connectPending;
    /** The selectors this channel is registered with, woken when its readiness changes off their thread. */
    private final List<RsocketSelector> selectors = new CopyOnWriteArrayList<>();

    /** A client's channel, unconnected. */
    RsocketSocketChannel(SelectorProvider provider) throws IOException {
        this(provider, new RsocketOptions());
    }

    private RsocketSocketChannel(SelectorProvider provider, RsocketOptions options) throws IOException {
        super(provider);
        this.options = options;
        this.waits = new ChannelWaits(this::endTurn);
        this.lock = waits.lock;
    }

    /**
     * A connection a server channel accepts: the queue pair on the request's id, the stream started with the
     * client's rsocket data, and {@code rdma_accept}; ESTABLISHED is awaited by the first read or write (as rsocket's
     * {@code raccept} leaves it), within {@link #CONNECT_TIMEOUT}.
     */
    static RsocketSocketChannel accepted(SelectorProvider provider, CmEvents events, CmEvent request,
            RsocketWire.ConnectionData client, RsocketOptions inherited) throws IOException {
        RsocketSocketChannel channel = new RsocketSocketChannel(provider, inherited.copy());
        channel.accept(events, request.id(), client);
        return channel;
    }

    private void accept(CmEvents shared, CmId request, RsocketWire.ConnectionData client) throws IOException {
        lock.lock();
        try {
            shared.retain();
            events = shared;
            id = request;
            events.follow(request, this::deliver);
            queues = new ConnectionQueues();
            connection = RsocketConnection.open(queues, request, options.settings());
            connection.flow().start(client);
            request.accept(new ConnParam(connection.localData(), 0, 0, 7, 7));
            local = request.localAddress();
            remote = request.peerAddress();
            state = State.ACCEPTING;
            connectDeadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        } catch (RuntimeException e) {
            releaseConnection();
            throw new IOException("accepting the rsocket connection from " + request.peerAddress() + " failed: "
                    + e.getMessage(), e);
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
        if (queues != null) {
            queues.releaseThread();
        }
    }

    // ----------------------------------------------------------------------------------------------- events

    /** An rdma_cm event of this channel's id, from any thread: queued, and the channel's waiters woken. */
    private void deliver(CmEvent event) {
        inbox.add(event);
        waits.wakeup();
        for (RsocketSelector selector : selectors) {
            selector.wakeup();
        }
    }

    /** Under the lock: reads the rdma_cm events and the completions that arrived, and acts on them. */
    private void progress() {
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

    /** Before a wait: arms the completion queue, then takes what arrived before the arming. */
    private void armAndProgress() {
        if (queues != null) {
            queues.arm();
        }
        progress();
    }

    private void await(long nanos) {
        waits.await(queues == null ? -1 : queues.fd(), events == null ? -1 : events.fd(), nanos);
    }

    // ---------------------------------------------------------------------------------------------- connect

    @Override
    public boolean connect(SocketAddress address) throws IOException {
        InetSocketAddress target = checkRemote(address);
        readLock.lock();
        try {
            writeLock.lock();
            try {
                lock.lock();
                try {
                    startConnect(target);
                } finally {
                    unlock();
                }
                return finishConnect(); // a non-blocking channel's connect goes on in its later finishConnect calls
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
    }

    private static InetSocketAddress checkRemote(SocketAddress address) {
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

    private void startConnect(InetSocketAddress target) throws IOException {
        ensureOpen();
        if (state == State.CONNECTED || state == State.ACCEPTING) {
            throw new AlreadyConnectedException();
        }
        if (state == State.CONNECTING) {
            throw new ConnectionPendingException();
        }
        try {
            events = new CmEvents();
            CmId created = CmId.create(events.channel(), PortSpace.TCP);
            id = created;
            events.follow(created, this::deliver);
            if (local != null) {
                created.bind(local);
            }
            remote = target;
            steps = new RsocketConnectSteps(created, target, RESOLVE_TIMEOUT, new Outcome(), ConnectException::new);
            state = State.CONNECTING;
            connectPending = true;
            connectDeadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
            steps.start();
        } catch (RuntimeException e) {
            Throwable failure = RsocketConnectSteps.asConnectFailure(e, target, ConnectException::new);
            closeAfterFailedConnect();
            throw failure instanceof IOException io ? io : new IOException("cannot connect to " + target + ": "
                    + e.getMessage(), e);
        }
    }

    /** What the connect steps do at the points that concern the channel (under the lock, from progress()). */
    private final class Outcome implements RsocketConnectSteps.Outcome {
        @Override
        public RsocketConnection open() {
            queues = new ConnectionQueues();
            connection = RsocketConnection.open(queues, id, options.settings());
            return connection;
        }

        @Override
        public void established(RsocketWire.ConnectionData peer) {
            steps = null;
            connection.flow().start(peer);
            local = id.localAddress();
            remote = id.peerAddress();
            RsocketSocketChannel.this.established();
        }

        @Override
        public void failed(Throwable cause) {
            connectFailure = cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        boolean blocking = isBlocking();
        boolean ended = false; // connected, or failed with the connect's own exception, which end() must not replace
        try {
            if (blocking) {
                begin();
            }
            lock.lock();
            try {
                ensureOpen();
                if (state == State.CONNECTED || state == State.ACCEPTING) {
                    connectPending = false;
                    return ended = true;
                }
                if (state != State.CONNECTING) {
                    throw new NoConnectionPendingException();
                }
                for (;;) {
                    progress();
                    if (connectFailure != null) {
                        IOException failure = connectFailure;
                        ended = true;
                        closeAfterFailedConnect();
                        throw failure;
                    }
                    if (state == State.CONNECTED) {
                        connectPending = false;
                        return ended = true;
                    }
                    long left = connectDeadline - System.nanoTime();
                    if (left <= 0) {
                        ended = true;
                        closeAfterFailedConnect();
                        throw new ConnectException("connection timed out after " + CONNECT_TIMEOUT.toSeconds()
                                + " s: " + remote);
                    }
                    if (!blocking) {
                        return false;
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
        lock.lock();
        try {
            return state == State.CONNECTED || state == State.ACCEPTING;
        } finally {
            unlock();
        }
    }

    @Override
    public boolean isConnectionPending() {
        lock.lock();
        try {
            return state == State.CONNECTING;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------- read

    @Override
    public int read(ByteBuffer target) throws IOException {
        Objects.requireNonNull(target, "target");
        return read(target, null, 0, 0);
    }

    @Override
    public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, targets.length);
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
                    RsocketFlow flow = connection.flow();
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
            progress();
            if (state == State.ACCEPTING && !awaitEstablished(blocking)) {
                return 0;
            }
            RsocketFlow flow = connection.flow();
            if (flow.readableBytes() > 0) {
                return 1;
            }
            if (flow.isPeerOutputDone() || peerGone) {
                return -1;
            }
            if (flow.failure() != null) {
                throw new IOException("rsocket connection to " + remote + " failed: " + flow.failure());
            }
            if (!blocking) {
                return 0;
            }
            armAndProgress();
            if (flow.readableBytes() == 0 && !flow.isPeerOutputDone() && !peerGone && flow.failure() == null) {
                ensureOpen();
                await(ChannelWaits.FOREVER);
            }
        }
    }

    /** An accepted connection before ESTABLISHED: whether it came (waiting for it when blocking). */
    private boolean awaitEstablished(boolean blocking) throws IOException {
        while (state == State.ACCEPTING) {
            if (connectFailure != null) {
                throw connectFailure;
            }
            long left = connectDeadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("the client " + remote + " did not complete the connection within "
                        + CONNECT_TIMEOUT.toSeconds() + " s of rdma_accept");
            }
            if (!blocking) {
                return false;
            }
            ensureOpen();
            await(left);
            progress();
        }
        ensureConnected();
        return true;
    }

    // ------------------------------------------------------------------------------------------------ write

    @Override
    public int write(ByteBuffer source) throws IOException {
        Objects.requireNonNull(source, "source");
        return (int) write(source, null, 0, 0);
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, sources.length);
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
                        if (state == State.ACCEPTING) {
                            return 0; // a non-blocking channel's connection is not yet established
                        }
                        RsocketFlow flow = connection.flow();
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
                            if (!flow.canSend() && flow.failure() == null && !peerGone) {
                                ensureOpen();
                                await(ChannelWaits.FOREVER);
                            }
                        }
                        progress();
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
        progress();
        if (state == State.ACCEPTING && !awaitEstablished(blocking)) {
            return;
        }
        RsocketFlow flow = connection.flow();
        if (flow.failure() != null) {
            throw new IOException("rsocket connection to " + remote + " failed: " + flow.failure());
        }
        if (peerGone || flow.isPeerDisconnected() || !flow.isOutputOpen()) {
            throw new IOException("Broken pipe: the peer " + remote + " closed the connection");
        }
    }

    // --------------------------------------------------------------------------------------------- shutdown

    @Override
    public SocketChannel shutdownInput() throws IOException {
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
        lock.lock();
        try {
            ensureConnected();
            if (!outputShutdown && connection != null) {
                outputShutdown = true;
                connection.flow().shutdownOutput(); // SHUTDOWN, or DISCONNECT when the input is done too
                connection.flow().flush();
            }
            return this;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------- selection

    @Override
    public int readyOps() {
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return 0;
            }
            progress();
            boolean expired = connectDeadline - System.nanoTime() <= 0;
            return switch (state) {
                case CONNECTING -> connectPending && (connectFailure != null || expired) ? SelectionKey.OP_CONNECT : 0;
                case ACCEPTING -> connectFailure != null || expired ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : 0;
                case CONNECTED -> (connectPending ? SelectionKey.OP_CONNECT : 0) | connectedReadyOps();
                default -> 0;
            };
        } finally {
            unlock();
        }
    }

    /** Under the lock: read when data, the end or a failure waits; write when a write takes bytes or throws. */
    private int connectedReadyOps() {
        RsocketFlow flow = connection.flow();
        boolean broken = flow.failure() != null || peerGone;
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
            if (state != State.CLOSED && queues != null) {
                queues.arm();
            }
        } finally {
            unlock();
        }
    }

    @Override
    public int descriptors(int[] into, int at) {
        lock.lock();
        try {
            int n = 0;
            int completions = queues == null ? -1 : queues.fd();
            if (completions >= 0) {
                into[at + n++] = completions;
            }
            int cm = events == null ? -1 : events.fd();
            if (cm >= 0) {
                into[at + n++] = cm;
            }
            return n;
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
            Thread.ofVirtual().name("rsocket close").start(this::lingerAndRelease);
        }
    }

    // ---------------------------------------------------------------------------------------------- close

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        lock.lock();
        try {
            State previous = state;
            state = State.CLOSED;
            if (previous == State.CLOSED) {
                return;
            }
            waits.close(TimeUnit.SECONDS.toNanos(1)); // blocked readers and writers return (closed)
            if (connection != null) {
                connection.close(); // DISCONNECT to the peer
            }
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
            if (connection != null) {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RsocketConnection.LINGER_MILLIS);
                while (!connection.canBeFreed(System.nanoTime()) && deadline - System.nanoTime() > 0) {
                    queues.poll();
                    LockSupport.parkNanos(100_000);
                }
            }
            releaseConnection();
        } finally {
            unlock();
        }
    }

    /** Frees the connection (queue pair, id, buffers), its queues and this channel's hold on the event channel. */
    private void releaseConnection() {
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
    protected void implConfigureBlocking(boolean block) {
        // each call looks at isBlocking(); there is no descriptor whose mode would change
    }

    // ----------------------------------------------------------------------------------- addresses, options

    @Override
    public SocketChannel bind(SocketAddress address) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (state == State.CONNECTING) {
                throw new ConnectionPendingException();
            }
            if (state != State.UNCONNECTED || local != null) {
                throw new AlreadyBoundException();
            }
            if (address != null && !(address instanceof InetSocketAddress)) {
                throw new UnsupportedAddressTypeException();
            }
            InetSocketAddress inet = address == null ? new InetSocketAddress(0) : (InetSocketAddress) address;
            if (inet.isUnresolved()) {
                throw new UnresolvedAddressException();
            }
            local = inet; // rdma_bind_addr when connecting, before rdma_resolve_addr
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
            return local;
        } finally {
            unlock();
        }
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        lock.lock();
        try {
            ensureOpen();
            return state == State.CONNECTED || state == State.ACCEPTING ? remote : null;
        } finally {
            unlock();
        }
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ensureOpen();
        options.set(name, value, OPTIONS);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        ensureOpen();
        return options.get(name, OPTIONS);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return OPTIONS;
    }

    @Override
    public Socket socket() {
        throw new UnsupportedOperationException("socket(): the java.net.Socket adaptor of an rsocket channel is not"
                + " implemented yet; use the channel's own methods (getOption, getRemoteAddress, shutdownOutput)");
    }

    // ---------------------------------------------------------------------------------------------- checks

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen() || state == State.CLOSED) {
            throw new ClosedChannelException();
        }
    }

    private void ensureConnected() throws IOException {
        ensureOpen();
        if (state != State.CONNECTED && state != State.ACCEPTING) {
            throw new NotYetConnectedException();
        }
    }

    @Override
    public String toString() {
        return "RsocketSocketChannel[" + state + (local == null ? "" : " local=" + local)
                + (remote == null ? "" : " remote=" + remote) + "]";
    }
}
