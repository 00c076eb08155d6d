package org.panamaverbs.nio;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import jdk.net.ExtendedSocketOptions;

/**
 * The TCP socket behind a {@link RsocketSocketChannel} whose address no RDMA device serves (the fallback): a
 * non-blocking kernel socket ({@link NativeSockets}) that the channel drives with its own blocking protocol. A
 * blocking call waits in {@code poll} on the socket and an eventfd {@link #close()} writes to; reads and writes go
 * through a {@link DescriptorTransfer} each. One reader and one writer at a time (the channel's read and write
 * locks), the rest under {@link #lock}. A connect is bounded by {@link RsocketStream#CONNECT_TIMEOUT}, as the rsocket
 * connect is.
 */
final class TcpConnection implements SocketTransport {
    /** The options a TCP connection supports: the rsocket channel's, and address reuse. */
    static final Set<SocketOption<?>> OPTIONS = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.SO_KEEPALIVE,
            StandardSocketOptions.SO_REUSEADDR, ExtendedSocketOptions.TCP_KEEPIDLE);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(1);

    private enum State { UNCONNECTED, CONNECTING, CONNECTED, CLOSED }

    private final ReentrantLock lock = new ReentrantLock();
    private final NativeSockets control = new NativeSockets();
    private final DescriptorTransfer reads = new DescriptorTransfer(true, "socket");
    private final DescriptorTransfer writes = new DescriptorTransfer(true, "socket");
    /** finishConnect's calls: under the channel's read and write locks. */
    private final NativeSockets connects = new NativeSockets();
    private final WakeupFd wake;
    private final int fd;
    private final int family;
    /** How long a blocking write may wait without taking a byte; 0 for no bound. */
    private final long writeStallNanos;
    private volatile State state;
    private InetSocketAddress remote;
    private long connectDeadline;
    private ScheduledFuture<?> connectBound;
    /** Wakes the channel's selectors (the connect's bound passed). */
    private final Runnable wakeSelectors;
    private volatile boolean inputShutdown;
    private volatile boolean outputShutdown;
    private boolean released;

    private TcpConnection(int fd, int family, State state, InetSocketAddress remote, long writeStallNanos,
            Runnable wakeSelectors) throws IOException {
        this.fd = fd;
        this.wakeSelectors = wakeSelectors;
        this.writeStallNanos = writeStallNanos;
        this.family = family;
        this.state = state;
        this.remote = remote;
        try {
            this.wake = new WakeupFd();
        } catch (IOException e) {
            control.close(fd);
            throw e;
        }
    }

    /** An unconnected socket for a connect to {@code target}. */
    static TcpConnection open(InetSocketAddress target, long writeStallNanos, Runnable wakeSelectors)
            throws IOException {
        NativeSockets calls = new NativeSockets();
        int family = NativeSockets.family(target);
        int fd = calls.socket(family);
        if (fd < 0) {
            throw NativeSockets.failure("socket", fd, null);
        }
        return new TcpConnection(fd, family, State.UNCONNECTED, null, writeStallNanos, wakeSelectors);
    }

    /** A connection a listener accepted (its socket non-blocking already). */
    static TcpConnection accepted(int fd, int family, long writeStallNanos) throws IOException {
        TcpConnection made = new TcpConnection(fd, family, State.CONNECTED, null, writeStallNanos, () -> { });
        made.remote = made.control.remoteAddress(fd);
        return made;
    }

    // ---------------------------------------------------------------------------------------------- connect

    /** Binds the socket before its connect (a channel's {@code bind}). */
    void bind(InetSocketAddress local) throws IOException {
        lock.lock();
        try {
            int rc = control.bind(fd, local, family);
            if (rc < 0) {
                throw NativeSockets.failure("bind", rc, local);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Starts the connect; true when it completed at once. A refused start throws (the channel closes itself). */
    @Override
    public boolean startConnect(InetSocketAddress target) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (state == State.CONNECTED) {
                throw new AlreadyConnectedException();
            }
            if (state == State.CONNECTING) {
                throw new ConnectionPendingException();
            }
            remote = target;
            int rc = control.connect(fd, target, family);
            if (rc == 0) {
                state = State.CONNECTED;
                return true;
            }
            if (rc != -NativeSockets.EINPROGRESS && rc != -NativeSockets.EINTR) {
                throw NativeSockets.failure("connect", rc, target);
            }
            state = State.CONNECTING;
            connectDeadline = System.nanoTime() + RsocketStream.CONNECT_TIMEOUT.toNanos();
            // an unanswered SYN keeps the socket silent past the bound: a selection waiting for it is woken then
            connectBound = ChannelTimers.after(RsocketStream.CONNECT_TIMEOUT, wakeSelectors);
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** {@code finishConnect}: under the channel's read and write locks; true once connected. */
    @Override
    public boolean finishConnect(boolean blocking) throws IOException {
        for (;;) {
            long left;
            lock.lock();
            try {
                ensureOpen();
                if (state == State.CONNECTED) {
                    return true;
                }
                if (state != State.CONNECTING) {
                    throw new NoConnectionPendingException();
                }
                if (connects.poll(fd, NativeSockets.POLLOUT, -1, 0) != 0) {
                    cancelConnectBound();
                    int error = connects.getInt(fd, NativeSockets.SOL_SOCKET, NativeSockets.SO_ERROR);
                    if (error == 0) {
                        state = State.CONNECTED;
                        return true;
                    }
                    throw NativeSockets.failure("connect", error, remote);
                }
                left = connectDeadline - System.nanoTime();
                if (left <= 0) {
                    cancelConnectBound();
                    throw new ConnectException("connection timed out after "
                            + RsocketStream.CONNECT_TIMEOUT.toSeconds() + " s: " + remote);
                }
                if (!blocking) {
                    return false;
                }
            } finally {
                lock.unlock();
            }
            await(NativeSockets.POLLOUT, left);
        }
    }

    /** Under the lock: the connect ended; its bound needs no wake-up. */
    private void cancelConnectBound() {
        if (connectBound != null) {
            connectBound.cancel(false);
            connectBound = null;
        }
    }

    @Override
    public boolean isConnected() {
        return state == State.CONNECTED;
    }

    @Override
    public boolean isConnectionPending() {
        return state == State.CONNECTING;
    }

    // --------------------------------------------------------------------------------------- read and write

    /**
     * Under the channel's read lock: fills {@code single}, or the buffers of {@code targets} in order, with what
     * arrived; waits when nothing did and {@code blocking}.
     *
     * @return the bytes read, -1 at the end of the stream, 0 when none came and the channel does not block
     */
    @Override
    public long read(ByteBuffer single, ByteBuffer[] targets, int offset, int length, boolean blocking)
            throws IOException {
        return reads.read(fd, wake.fd(), this::readable, single, targets, offset, length, blocking, remote);
    }

    private boolean readable() throws IOException {
        ensureConnected();
        return inputShutdown;
    }

    /**
     * Under the channel's write lock: sends {@code single}, or the buffers of {@code sources} in order; a blocking
     * caller waits until every byte was taken by the kernel.
     *
     * @return the bytes taken
     */
    @Override
    public long write(ByteBuffer single, ByteBuffer[] sources, int offset, int length, boolean blocking)
            throws IOException {
        return writes.write(fd, wake.fd(), this::writable, single, sources, offset, length, blocking, remote,
                writeStallNanos);
    }

    private boolean writable() throws IOException {
        ensureConnected();
        if (outputShutdown) {
            throw new ClosedChannelException(); // as the JDK's channel after shutdownOutput
        }
        return false;
    }

    /** Waits up to {@code nanos} for {@code events} on the socket, or for {@link #close()}. */
    private void await(short events, long nanos) throws ClosedChannelException {
        ensureOpen();
        connects.poll(fd, events, wake.fd(), (int) Math.min(Integer.MAX_VALUE, Math.max(1, nanos / 1_000_000)));
    }

    // --------------------------------------------------------------------------------------------- shutdown

    @Override
    public void shutdownInput() throws IOException {
        shutdown(NativeSockets.SHUT_RD);
        inputShutdown = true;
    }

    @Override
    public void shutdownOutput() throws IOException {
        shutdown(NativeSockets.SHUT_WR);
        outputShutdown = true;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown;
    }

    private void shutdown(int how) throws IOException {
        lock.lock();
        try {
            ensureConnected();
            int rc = control.shutdown(fd, how);
            if (rc < 0 && rc != -107) { // ENOTCONN: the peer reset it already
                throw NativeSockets.failure("shutdown", rc, remote);
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------- selection

    /** The operations ready now, as a selector reports them ({@code SelectionKey.OP_*}). */
    @Override
    public int readyOps() {
        lock.lock();
        try {
            if (state == State.CLOSED || state == State.UNCONNECTED) {
                return 0;
            }
            int events = control.poll(fd, (short) (NativeSockets.POLLIN | NativeSockets.POLLOUT), -1, 0);
            boolean failed = (events & (NativeSockets.POLLERR | NativeSockets.POLLHUP)) != 0;
            if (state == State.CONNECTING) {
                return failed || (events & NativeSockets.POLLOUT) != 0 || connectDeadline - System.nanoTime() <= 0
                        ? SelectionKey.OP_CONNECT : 0;
            }
            int ops = 0;
            if (failed || inputShutdown || (events & NativeSockets.POLLIN) != 0) {
                ops |= SelectionKey.OP_READ;
            }
            if (failed || outputShutdown || (events & NativeSockets.POLLOUT) != 0) {
                ops |= SelectionKey.OP_WRITE;
            }
            return ops;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void arm() {
        // the kernel's socket needs no arming
    }

    /** The socket, waited on for what {@code interest} asks ({@code POLLIN}, {@code POLLOUT}); how many: 0 or 1. */
    @Override
    public int descriptors(int interest, int[] fds, short[] events, int at) {
        if (state == State.CLOSED) {
            return 0;
        }
        short wanted = 0;
        if ((interest & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
            wanted |= NativeSockets.POLLIN;
        }
        if ((interest & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) {
            wanted |= NativeSockets.POLLOUT;
        }
        fds[at] = fd;
        events[at] = wanted;
        return 1;
    }

    // -------------------------------------------------------------------------------------- addresses, options

    /** The socket's address, or null before a bind or a connect gave it one. */
    @Override
    public InetSocketAddress localAddress() {
        lock.lock();
        try {
            if (released) {
                return null;
            }
            InetSocketAddress local = control.localAddress(fd);
            return local == null || local.getPort() == 0 ? null : local;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return state == State.CONNECTED ? remote : null;
    }

    /** Sets {@code name} on the socket: one of {@link #OPTIONS}, of its type; sizes must be positive. */
    void setOption(SocketOption<?> name, Object value) throws IOException {
        int number = optionNumber(name);
        if (!name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
        if (value instanceof Integer size && size <= 0) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
        int intValue = value instanceof Boolean flag ? (flag ? 1 : 0) : (Integer) value;
        lock.lock();
        try {
            ensureOpen();
            int rc = control.setInt(fd, level(name), number, intValue);
            if (rc < 0) {
                throw NativeSockets.failure("setsockopt " + name, rc, null);
            }
        } finally {
            lock.unlock();
        }
    }

    <T> T getOption(SocketOption<T> name) throws IOException {
        int number = optionNumber(name);
        lock.lock();
        try {
            ensureOpen();
            int value = control.getInt(fd, level(name), number);
            if (value < 0) {
                throw NativeSockets.failure("getsockopt " + name, value, null);
            }
            Object typed = name.type() == Boolean.class ? Boolean.valueOf(value != 0) : Integer.valueOf(value);
            return name.type().cast(typed);
        } finally {
            lock.unlock();
        }
    }

    private static int level(SocketOption<?> name) {
        return name == StandardSocketOptions.TCP_NODELAY || name == ExtendedSocketOptions.TCP_KEEPIDLE
                ? NativeSockets.IPPROTO_TCP : NativeSockets.SOL_SOCKET;
    }

    private static int optionNumber(SocketOption<?> name) {
        java.util.Objects.requireNonNull(name, "name");
        if (name == StandardSocketOptions.SO_SNDBUF) {
            return NativeSockets.SO_SNDBUF;
        } else if (name == StandardSocketOptions.SO_RCVBUF) {
            return NativeSockets.SO_RCVBUF;
        } else if (name == StandardSocketOptions.TCP_NODELAY) {
            return NativeSockets.TCP_NODELAY;
        } else if (name == StandardSocketOptions.SO_KEEPALIVE) {
            return NativeSockets.SO_KEEPALIVE;
        } else if (name == StandardSocketOptions.SO_REUSEADDR) {
            return NativeSockets.SO_REUSEADDR;
        } else if (name == ExtendedSocketOptions.TCP_KEEPIDLE) {
            return NativeSockets.TCP_KEEPIDLE;
        }
        throw new UnsupportedOperationException("'" + name + "' not supported by a TCP fallback channel");
    }

    // ------------------------------------------------------------------------------------------------ close

    /**
     * Ends the connection: blocked readers and writers return (the eventfd, and {@code shutdown} for a peer's
     * sake); the socket itself is closed by {@link #release} once no thread can be using it. Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.CONNECTED) {
                // the peer reads the end now, as with the JDK's close while a selector still holds the socket
                control.shutdown(fd, NativeSockets.SHUT_RDWR);
            }
            state = State.CLOSED;
            cancelConnectBound();
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the socket once the channel's reader and writer are out ({@code readLock}, {@code writeLock}, waited
     * for up to a second each; a thread that does not leave keeps the descriptor open rather than risk its reuse).
     */
    @Override
    public void release(ReentrantLock readLock, ReentrantLock writeLock) {
        boolean read = false;
        boolean write = false;
        try {
            read = readLock.tryLock(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            write = writeLock.tryLock(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            lock.lock();
            try {
                if (released || !read || !write) {
                    return;
                }
                released = true;
                wake.close(false);
                control.close(fd);
            } finally {
                lock.unlock();
            }
        } finally {
            if (write) {
                writeLock.unlock();
            }
            if (read) {
                readLock.unlock();
            }
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        if (state == State.CLOSED) {
            throw new ClosedChannelException();
        }
    }

    private void ensureConnected() throws IOException {
        ensureOpen();
        if (state != State.CONNECTED) {
            throw new NotYetConnectedException();
        }
    }

    @Override
    public String toString() {
        return "TCP " + state + (remote == null ? "" : " remote=" + remote);
    }
}
