package org.panamaverbs.nio;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.BindException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

import org.panamaverbs.verbs.Errno;

/**
 * libc's calls on kernel descriptors for the channels that fall back to TCP ({@code socket}, {@code connect},
 * {@code accept4}, {@code recv}, {@code send} with {@code MSG_NOSIGNAL}, ...) and for pipes ({@code pipe2},
 * {@code read}, {@code write}). One instance per thread role (a channel's
 * reader, its writer, its control calls): it owns the memory its calls use (the errno capture, a
 * {@code sockaddr_storage}, a {@code pollfd} pair), so no call allocates. Calls return what libc returns, or
 * {@code -errno} on failure; {@link #failure} turns an errno into the exception the JDK's channels throw for it.
 */
final class NativeSockets {
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOL_SOCKET = 1;
    static final int IPPROTO_TCP = 6;
    static final int SO_REUSEADDR = 2;
    static final int SO_ERROR = 4;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_KEEPALIVE = 9;
    static final int TCP_NODELAY = 1;
    static final int TCP_KEEPIDLE = 4;
    static final int SHUT_RD = 0;
    static final int SHUT_WR = 1;
    static final int SHUT_RDWR = 2;
    static final short POLLIN = 1;
    static final short POLLOUT = 4;
    static final short POLLERR = 8;
    static final short POLLHUP = 16;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EINPROGRESS = 115;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int O_NONBLOCK = 0x800;
    private static final int O_CLOEXEC = 0x80000;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int EPIPE = 32;
    private static final int ENOTCONN = 107;
    private static final int ECONNRESET = 104;
    private static final int ETIMEDOUT = 110;
    private static final int ECONNREFUSED = 111;
    private static final int EHOSTUNREACH = 113;
    private static final int EADDRINUSE = 98;
    private static final int EADDRNOTAVAIL = 99;
    private static final int EACCES = 13;
    private static final long SOCKADDR_BYTES = 128; // sockaddr_storage

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final VarHandle ERRNO_VALUE = Linker.Option.captureStateLayout()
            .varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SOCKET = downcall("socket", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle CONNECT = downcall("connect", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle BIND = downcall("bind", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle LISTEN = downcall("listen", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle ACCEPT4 = downcall("accept4", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    private static final MethodHandle GETSOCKNAME = downcall("getsockname", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle GETPEERNAME = downcall("getpeername", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle SETSOCKOPT = downcall("setsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
            ADDRESS, JAVA_INT);
    private static final MethodHandle GETSOCKOPT = downcall("getsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
            ADDRESS, ADDRESS);
    private static final MethodHandle RECV = downcall("recv", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
    private static final MethodHandle SEND = downcall("send", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
    private static final MethodHandle READ = downcall("read", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
    private static final MethodHandle WRITE = downcall("write", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
    private static final MethodHandle PIPE2 = downcall("pipe2", JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle SHUTDOWN = downcall("shutdown", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle POLL = downcall("poll", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
    private static final MethodHandle CLOSE = downcall("close", JAVA_INT, JAVA_INT);

    private final Arena arena = Arena.ofAuto();
    private final MemorySegment errno = arena.allocate(Linker.Option.captureStateLayout());
    private final MemorySegment sockaddr = arena.allocate(SOCKADDR_BYTES, 8);
    /** A {@code socklen_t}, then an int option's value. */
    private final MemorySegment ints = arena.allocate(8, 4);
    private final MemorySegment pollFds = arena.allocate(2 * NativeDescriptors.POLLFD_BYTES, 8);

    private static MethodHandle downcall(String name, java.lang.foreign.MemoryLayout result,
            java.lang.foreign.MemoryLayout... arguments) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(
                "libc has no " + name)), FunctionDescriptor.of(result, arguments), ERRNO);
    }

    private int errno() {
        return (int) ERRNO_VALUE.get(errno, 0L);
    }

    private int result(int returned) {
        return returned < 0 ? -errno() : returned;
    }

    private long result(long returned) {
        return returned < 0 ? -errno() : returned;
    }

    /** A non-blocking, close-on-exec TCP socket of {@code family}, or {@code -errno}. */
    int socket(int family) {
        try {
            return result((int) SOCKET.invokeExact(errno, family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** 0, or {@code -EINPROGRESS} for a connect that goes on, or {@code -errno}. */
    int connect(int fd, InetSocketAddress target, int family) {
        int length = encode(target, family);
        try {
            return result((int) CONNECT.invokeExact(errno, fd, sockaddr, length));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    int bind(int fd, InetSocketAddress local, int family) {
        int length = encode(local, family);
        try {
            return result((int) BIND.invokeExact(errno, fd, sockaddr, length));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    int listen(int fd, int backlog) {
        try {
            return result((int) LISTEN.invokeExact(errno, fd, backlog));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A connection's non-blocking socket, or {@code -EAGAIN} when none waits, or {@code -errno}. */
    int accept(int fd) {
        try {
            return result((int) ACCEPT4.invokeExact(errno, fd, MemorySegment.NULL, MemorySegment.NULL,
                    SOCK_NONBLOCK | SOCK_CLOEXEC));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The socket's local address, or null when libc cannot say. */
    InetSocketAddress localAddress(int fd) {
        return address(GETSOCKNAME, fd);
    }

    /** The connected peer's address, or null. */
    InetSocketAddress remoteAddress(int fd) {
        return address(GETPEERNAME, fd);
    }

    private InetSocketAddress address(MethodHandle call, int fd) {
        ints.set(JAVA_INT, 0, (int) SOCKADDR_BYTES);
        int rc;
        try {
            rc = (int) call.invokeExact(errno, fd, sockaddr, ints);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return rc < 0 ? null : decode();
    }

    int setInt(int fd, int level, int option, int value) {
        ints.set(JAVA_INT, 4, value);
        try {
            return result((int) SETSOCKOPT.invokeExact(errno, fd, level, option, ints.asSlice(4, 4), 4));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** An int option's value, or {@code -errno} (no int option the channels read is negative). */
    int getInt(int fd, int level, int option) {
        ints.set(JAVA_INT, 0, 4);
        try {
            int rc = result((int) GETSOCKOPT.invokeExact(errno, fd, level, option, ints.asSlice(4, 4), ints));
            return rc < 0 ? rc : ints.get(JAVA_INT, 4);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Bytes received into {@code into}, 0 at the end of the stream, or {@code -errno} ({@code -EAGAIN}: none). */
    long recv(int fd, MemorySegment into, long length) {
        try {
            return result((long) RECV.invokeExact(errno, fd, into, length, 0));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Bytes sent, or {@code -errno}; a peer that closed gives {@code -EPIPE}, never SIGPIPE. */
    long send(int fd, MemorySegment from, long length) {
        try {
            return result((long) SEND.invokeExact(errno, fd, from, length, MSG_NOSIGNAL));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A pipe's {@code read}: bytes read, 0 at the end (the write end closed), or {@code -errno}. */
    long read(int fd, MemorySegment into, long length) {
        try {
            return result((long) READ.invokeExact(errno, fd, into, length));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A pipe's {@code write}: bytes written, or {@code -errno} ({@code -EPIPE} once the read end closed). */
    long write(int fd, MemorySegment from, long length) {
        try {
            return result((long) WRITE.invokeExact(errno, fd, from, length));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * A non-blocking, close-on-exec pipe: its read end in {@code ends[0]}, its write end in {@code ends[1]}.
     *
     * @return 0, or {@code -errno}
     */
    int pipe(int[] ends) {
        try {
            int rc = result((int) PIPE2.invokeExact(errno, ints, O_NONBLOCK | O_CLOEXEC));
            if (rc == 0) {
                ends[0] = ints.get(JAVA_INT, 0);
                ends[1] = ints.get(JAVA_INT, 4);
            }
            return rc;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    int shutdown(int fd, int how) {
        try {
            return result((int) SHUTDOWN.invokeExact(errno, fd, how));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Waits up to {@code timeoutMillis} (-1: no bound) for {@code events} on {@code fd} or for {@code wakeFd} to be
     * readable.
     *
     * @return the events that came on {@code fd} (0 on a timeout, a wake-up or {@code EINTR})
     */
    int poll(int fd, short events, int wakeFd, int timeoutMillis) {
        pollFds.set(JAVA_INT, 0, fd);
        pollFds.set(JAVA_SHORT, 4, events);
        pollFds.set(JAVA_SHORT, 6, (short) 0);
        int count = 1;
        if (wakeFd >= 0) {
            NativeDescriptors.watch(pollFds, count++, wakeFd, POLLIN);
        }
        try {
            int rc = (int) POLL.invokeExact(errno, pollFds, (long) count, timeoutMillis);
            return rc <= 0 ? 0 : pollFds.get(JAVA_SHORT, 6);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(errno, fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    // ------------------------------------------------------------------------------------------- addresses

    /** The family a socket for {@code address} takes: the wildcard listens on both (an IPv6 socket, IPv4-mapped). */
    static int family(InetSocketAddress address) {
        return address.getAddress() instanceof Inet4Address && !address.getAddress().isAnyLocalAddress()
                ? AF_INET : AF_INET6;
    }

    /** Writes {@code address} as a {@code sockaddr_in} or {@code sockaddr_in6} of {@code family}; its length. */
    private int encode(InetSocketAddress address, int family) {
        sockaddr.fill((byte) 0);
        byte[] ip = address.getAddress().getAddress();
        sockaddr.set(JAVA_SHORT, 0, (short) family);
        sockaddr.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) address.getPort());
        if (family == AF_INET) {
            MemorySegment.copy(ip, 0, sockaddr, JAVA_BYTE, 4, 4);
            return 16;
        }
        if (ip.length == 4) { // an IPv4 address on an IPv6 socket: IPv4-mapped (::ffff:a.b.c.d)
            if (!address.getAddress().isAnyLocalAddress()) {
                sockaddr.set(JAVA_SHORT, 18, (short) -1);
                MemorySegment.copy(ip, 0, sockaddr, JAVA_BYTE, 20, 4);
            }
        } else {
            MemorySegment.copy(ip, 0, sockaddr, JAVA_BYTE, 8, 16);
            if (address.getAddress() instanceof java.net.Inet6Address v6) {
                sockaddr.set(JAVA_INT, 24, v6.getScopeId());
            }
        }
        return 28;
    }

    private InetSocketAddress decode() {
        int family = sockaddr.get(JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(sockaddr.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        byte[] ip = sockaddr.asSlice(family == AF_INET ? 4 : 8, family == AF_INET ? 4 : 16).toArray(JAVA_BYTE);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port); // IPv4-mapped comes back as IPv4
        } catch (UnknownHostException e) {
            return null; // only for a length other than 4 or 16
        }
    }

    // ---------------------------------------------------------------------------------------------- errors

    /**
     * The exception the JDK's channels throw for {@code errno} in {@code call}: {@code ConnectException} for a refused
     * or timed-out connect, {@code NoRouteToHostException}, {@code BindException}, {@code SocketException} for a
     * reset, {@code IOException("Broken pipe")}, else a {@code SocketException} naming the errno.
     */
    static IOException failure(String call, int errno, InetSocketAddress address) {
        int e = Math.abs(errno);
        String where = address == null ? "" : ": " + address;
        return switch (e) {
            case ECONNREFUSED, ETIMEDOUT -> new ConnectException(Errno.message(e) + where);
            case EHOSTUNREACH -> new NoRouteToHostException(Errno.message(e) + where);
            case EADDRINUSE, EADDRNOTAVAIL, EACCES -> new BindException(Errno.message(e) + where);
            case ECONNRESET -> new SocketException("Connection reset");
            case EPIPE -> new IOException("Broken pipe");
            case ENOTCONN -> new SocketException("Socket is not connected");
            default -> new SocketException(call + " failed: " + Errno.describe(e) + where);
        };
    }
}
