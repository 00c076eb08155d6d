package org.panamaverbs.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;

/**
 * The TCP listening socket behind a {@link RsocketServerSocketChannel} bound to an address no RDMA device serves
 * (the fallback): a non-blocking kernel socket ({@link NativeSockets}) whose connections the kernel completes into
 * the listen backlog, as the JDK's server channel has them. A blocking accept waits in {@code poll} on it and an
 * eventfd {@link #close()} writes to. The channel's accept lock serializes {@link #accept}; the rest is under the
 * channel's lock.
 */
final class TcpListener {
    private final NativeSockets calls = new NativeSockets();
    private final NativeSockets acceptCalls = new NativeSockets();
    private final WakeupFd wake;
    private final int fd;
    private final int family;
    private final InetSocketAddress local;
    private volatile boolean closed;

    private TcpListener(int fd, int family) throws IOException {
        this.fd = fd;
        this.family = family;
        this.wake = new WakeupFd();
        this.local = calls.localAddress(fd);
    }

    /**
     * Listens on {@code address} with {@code backlog} (as {@code listen} takes it) and the address reuse asked;
     * the wildcard on an IPv6 socket takes IPv4 peers too, or on an IPv4 one where the kernel has no IPv6.
     */
    static TcpListener listen(InetSocketAddress address, int backlog, boolean reuseAddress) throws IOException {
        NativeSockets setup = new NativeSockets();
        int family = NativeSockets.family(address);
        int fd = setup.socket(family);
        if (fd < 0 && family == NativeSockets.AF_INET6 && address.getAddress().isAnyLocalAddress()) {
            family = NativeSockets.AF_INET;
            fd = setup.socket(family);
        }
        if (fd < 0) {
            throw NativeSockets.failure("socket", fd, null);
        }
        int rc = reuseAddress ? setup.setInt(fd, NativeSockets.SOL_SOCKET, NativeSockets.SO_REUSEADDR, 1) : 0;
        if (rc >= 0) {
            rc = setup.bind(fd, address, family);
        }
        if (rc >= 0) {
            rc = setup.listen(fd, backlog);
        }
        if (rc < 0) {
            setup.close(fd);
            throw NativeSockets.failure(rc == -98 || rc == -99 ? "bind" : "listen", rc, address);
        }
        try {
            return new TcpListener(fd, family);
        } catch (IOException e) {
            setup.close(fd);
            throw e;
        }
    }

    InetSocketAddress localAddress() {
        return local;
    }

    /**
     * The next connection the kernel completed, or null when none waits and {@code blocking} is false; a blocking
     * caller waits for one or for {@link #close()}.
     */
    TcpConnection accept(boolean blocking, long writeStallNanos) throws IOException {
        for (;;) {
            if (closed) {
                throw new ClosedChannelException();
            }
            int connection = acceptCalls.accept(fd);
            if (connection >= 0) {
                return TcpConnection.accepted(connection, family, writeStallNanos);
            }
            if (connection != -NativeSockets.EAGAIN && connection != -NativeSockets.EINTR
                    && connection != -103) { // ECONNABORTED: that client gave up; take the next
                throw NativeSockets.failure("accept", connection, local);
            }
            if (!blocking) {
                return null;
            }
            acceptCalls.poll(fd, NativeSockets.POLLIN, wake.fd(), -1);
        }
    }

    /** {@code OP_ACCEPT} when a connection waits. */
    int readyOps() {
        if (closed) {
            return 0;
        }
        return (calls.poll(fd, NativeSockets.POLLIN, -1, 0) & NativeSockets.POLLIN) != 0 ? SelectionKey.OP_ACCEPT : 0;
    }

    int descriptors(int[] fds, short[] events, int at) {
        if (closed) {
            return 0;
        }
        fds[at] = fd;
        events[at] = NativeSockets.POLLIN;
        return 1;
    }

    /** {@code SO_RCVBUF} (the accepted connections' first) and {@code SO_REUSEADDR} on the listening socket. */
    void setOption(SocketOption<?> name, Object value) throws IOException {
        int option = name == StandardSocketOptions.SO_RCVBUF ? NativeSockets.SO_RCVBUF : NativeSockets.SO_REUSEADDR;
        int rc = calls.setInt(fd, NativeSockets.SOL_SOCKET, option, value instanceof Boolean flag ? (flag ? 1 : 0)
                : (Integer) value);
        if (rc < 0) {
            throw NativeSockets.failure("setsockopt " + name, rc, null);
        }
    }

    /** Blocked accepts return; the socket is closed by {@link #release()}. */
    void close() {
        closed = true;
        wake.signal();
    }

    /** Closes the socket, once the accept lock is held (no accept runs) or a selector let the channel go. */
    void release() {
        wake.close(false);
        calls.close(fd);
    }
}
