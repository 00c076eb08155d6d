package org.panamaverbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The few libc calls the event machinery needs: making a verbs file descriptor non-blocking, and
 * waiting on several of them at once. Bound from the C library the JVM already links
 * ({@code Linker.defaultLookup()}); errno is captured where a caller needs it.
 */
public final class Libc {
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 0x800;
    public static final short POLLIN = 1;
    public static final int EFD_NONBLOCK = 0x800;
    public static final int EFD_CLOEXEC = 0x80000;
    /** {@code struct pollfd}: int fd; short events; short revents. */
    public static final long POLLFD_SIZE = 8;

    private static final Linker LINKER = Linker.nativeLinker();
    // fcntl(int fd, int cmd, ...): the third argument is variadic
    private static final MethodHandle FCNTL = CallState.capturingErrno(symbol("fcntl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle POLL = LINKER.downcallHandle(symbol("poll"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Linker.Option.captureCallState("errno"));
    private static final MethodHandle EVENTFD = CallState.capturingErrno(symbol("eventfd"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle WRITE = LINKER.downcallHandle(symbol("write"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle READ = LINKER.downcallHandle(symbol("read"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(symbol("close"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Libc() {
    }

    private static MemorySegment symbol(String name) {
        return LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
    }

    /**
     * Sets {@code O_NONBLOCK} on {@code fd}.
     *
     * @return 0, or the errno of the failing fcntl
     */
    public static int setNonBlocking(int fd) {
        try (CallState state = CallState.open()) {
            int flags = (int) FCNTL.invokeExact(state.segment(), fd, F_GETFL, 0);
            if (flags < 0) {
                return state.errno();
            }
            int rc = (int) FCNTL.invokeExact(state.segment(), fd, F_SETFL, flags | O_NONBLOCK);
            return rc < 0 ? state.errno() : 0;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@code poll(fds, n, timeoutMillis)}: the number of ready descriptors, or -errno. Blocks: never call it critical. */
    public static int poll(MemorySegment fds, long count, int timeoutMillis, MemorySegment callState) {
        try {
            int rc = (int) POLL.invokeExact(callState, fds, count, timeoutMillis);
            return rc;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** A non-blocking, close-on-exec eventfd, or -errno. */
    public static int eventfd() {
        try (CallState state = CallState.open()) {
            int fd = (int) EVENTFD.invokeExact(state.segment(), 0, EFD_NONBLOCK | EFD_CLOEXEC);
            return fd < 0 ? -state.errno() : fd;
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@code write(fd, buffer, length)}. */
    public static long write(int fd, MemorySegment buffer, long length) {
        try {
            return (long) WRITE.invokeExact(fd, buffer, length);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@code read(fd, buffer, length)}. */
    public static long read(int fd, MemorySegment buffer, long length) {
        try {
            return (long) READ.invokeExact(fd, buffer, length);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /** {@code close(fd)}: 0, or -1. */
    public static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }
}
