package org.panamaverbs.nio;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The few libc calls a channel's waits need beside the library's: {@code eventfd} (the descriptor a close or a
 * {@code wakeup} writes to), {@code poll} over a channel's descriptors, and their reads, writes and closes.
 */
final class NativeDescriptors {
    static final short POLLIN = 1;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;
    /** {@code struct pollfd}: int fd, short events, short revents. */
    static final long POLLFD_BYTES = 8;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle EVENTFD = downcall("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle POLL = downcall("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG,
            JAVA_INT));
    private static final MethodHandle READ = downcall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle WRITE = downcall("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private NativeDescriptors() {
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(
                "libc has no " + name)), descriptor);
    }

    /** A non-blocking eventfd for wake-ups. */
    static int eventFd() throws IOException {
        int fd;
        try {
            fd = (int) EVENTFD.invokeExact(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new IOException("eventfd failed", t);
        }
        if (fd < 0) {
            throw new IOException("eventfd failed: the process may have no descriptors left (ulimit -n)");
        }
        return fd;
    }

    /** Makes {@code eventFd} readable (a waiter's poll returns). */
    static void signal(int eventFd, MemorySegment scratch) {
        scratch.set(JAVA_LONG, 0, 1L);
        try {
            long ignored = (long) WRITE.invokeExact(eventFd, scratch, 8L); // fails only when the counter is full
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Takes what was signalled, so that {@code eventFd} is no longer readable. */
    static void drain(int eventFd, MemorySegment scratch) {
        try {
            long ignored = (long) READ.invokeExact(eventFd, scratch, 8L); // EAGAIN when nothing was signalled
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * {@code poll} over {@code count} entries of {@code pollFds}, each with {@code POLLIN} set by {@link #watch}.
     *
     * @return the entries ready (0 on timeout or {@code EINTR})
     */
    static int poll(MemorySegment pollFds, int count, int timeoutMillis) {
        try {
            int n = (int) POLL.invokeExact(pollFds, (long) count, timeoutMillis);
            return Math.max(n, 0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Sets entry {@code index} of {@code pollFds} to wait for {@code fd} to be readable. */
    static void watch(MemorySegment pollFds, int index, int fd) {
        watch(pollFds, index, fd, POLLIN);
    }

    /** Sets entry {@code index} of {@code pollFds} to wait for {@code events} ({@code POLLIN}, ...) on {@code fd}. */
    static void watch(MemorySegment pollFds, int index, int fd, short events) {
        long at = index * POLLFD_BYTES;
        pollFds.set(JAVA_INT, at, fd);
        pollFds.set(JAVA_SHORT, at + 4, events);
        pollFds.set(JAVA_SHORT, at + 6, (short) 0);
    }

    /** Whether entry {@code index} came back readable (or in error, which a read then reports). */
    static boolean ready(MemorySegment pollFds, int index) {
        return pollFds.get(JAVA_SHORT, index * POLLFD_BYTES + 6) != 0;
    }

    static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
