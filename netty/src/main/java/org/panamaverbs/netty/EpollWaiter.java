package org.panamaverbs.netty;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * An epoll set with an eventfd for wake-ups, through libc (epoll_create1, epoll_ctl, epoll_wait, eventfd):
 * what {@link RdmaIoHandler} blocks in when its completion queues are armed and idle. One owner thread waits;
 * {@link #wakeUp()} may be called from any thread. No JNI: the calls go through the FFM linker.
 */
final class EpollWaiter implements AutoCloseable {
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLL_CTL_DEL = 2;
    private static final int EPOLLIN = 0x001;
    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final int EFD_CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EINTR = 4;
    private static final int MAX_EVENTS = 16;

    /** struct epoll_event is packed on x86-64 (12 bytes) and naturally aligned elsewhere (16). */
    private static final boolean PACKED = "amd64".equals(System.getProperty("os.arch"))
            || "x86_64".equals(System.getProperty("os.arch"));
    private static final long EVENT_SIZE = PACKED ? 12 : 16;
    private static final long DATA_OFFSET = PACKED ? 4 : 8;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle EPOLL_CREATE1 = downcall("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle EPOLL_CTL = downcall("epoll_ctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle EPOLL_WAIT = downcall("epoll_wait",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle EVENTFD = downcall("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = downcall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = downcall("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name)),
                descriptor, Linker.Option.captureCallState("errno"));
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState = arena.allocate(CALL_STATE);
    private final MemorySegment wakeState = arena.allocate(CALL_STATE);
    private final MemorySegment events = arena.allocate(EVENT_SIZE * MAX_EVENTS, 8);
    private final MemorySegment control = arena.allocate(EVENT_SIZE, 8);
    private final MemorySegment counter = arena.allocate(JAVA_LONG);
    private final MemorySegment wakeValue = arena.allocate(JAVA_LONG);
    private final int epollFd;
    private final int wakeFd;
    private int readyCount;
    private boolean closed;

    EpollWaiter() throws IOException {
        try {
            epollFd = (int) EPOLL_CREATE1.invokeExact(callState, EPOLL_CLOEXEC);
            if (epollFd < 0) {
                throw new IOException("epoll_create1 failed: errno " + errno(callState));
            }
            wakeFd = (int) EVENTFD.invokeExact(callState, 0, EFD_CLOEXEC | EFD_NONBLOCK);
            if (wakeFd < 0) {
                int errno = errno(callState);
                int ignored = (int) CLOSE.invokeExact(callState, epollFd);
                throw new IOException("eventfd failed: errno " + errno + (ignored == 0 ? "" : ""));
            }
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        } catch (Throwable t) {
            arena.close();
            throw new IllegalStateException(t);
        }
        wakeValue.set(JAVA_LONG, 0, 1L);
        add(wakeFd);
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Watches {@code fd} for readability (level-triggered). */
    void add(int fd) throws IOException {
        control.set(JAVA_INT, 0, EPOLLIN);
        control.set(ValueLayout.JAVA_INT_UNALIGNED, DATA_OFFSET, fd);
        ctl(EPOLL_CTL_ADD, fd);
    }

    /** Stops watching {@code fd}. */
    void remove(int fd) throws IOException {
        ctl(EPOLL_CTL_DEL, fd);
    }

    private void ctl(int op, int fd) throws IOException {
        try {
            int rc = (int) EPOLL_CTL.invokeExact(callState, epollFd, op, fd, control);
            if (rc != 0) {
                throw new IOException("epoll_ctl(" + (op == EPOLL_CTL_ADD ? "ADD" : "DEL") + ", fd " + fd + ") failed: errno "
                        + errno(callState));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Waits until a watched descriptor is readable, {@link #wakeUp()} is called, or the timeout passes.
     *
     * @param timeoutMillis the longest wait; 0 returns at once, negative waits without limit
     * @return the number of ready descriptors other than the wake-up ({@link #readyFd(int)} tells which)
     */
    int await(int timeoutMillis) {
        try {
            int n = (int) EPOLL_WAIT.invokeExact(callState, epollFd, events, MAX_EVENTS, timeoutMillis);
            if (n < 0) {
                int errno = errno(callState);
                if (errno == EINTR) {
                    return readyCount = 0;
                }
                throw new IllegalStateException("epoll_wait failed: errno " + errno);
            }
            int ready = 0;
            for (int i = 0; i < n; i++) {
                int fd = events.get(ValueLayout.JAVA_INT_UNALIGNED, i * EVENT_SIZE + DATA_OFFSET);
                if (fd == wakeFd) {
                    long ignored = (long) READ.invokeExact(callState, wakeFd, counter, 8L); // drain (non-blocking)
                    assert ignored == 8 || ignored < 0;
                } else {
                    events.set(ValueLayout.JAVA_INT_UNALIGNED, ready++ * EVENT_SIZE + DATA_OFFSET, fd);
                }
            }
            return readyCount = ready;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The descriptor of ready event {@code index}, 0 to the last {@link #await} result less one. */
    int readyFd(int index) {
        if (index >= readyCount) {
            throw new IndexOutOfBoundsException(index);
        }
        return events.get(ValueLayout.JAVA_INT_UNALIGNED, index * EVENT_SIZE + DATA_OFFSET);
    }

    /** Makes a current or the next {@link #await} return (from any thread). */
    void wakeUp() {
        try {
            synchronized (wakeState) {
                if (closed) {
                    return;
                }
                long ignored = (long) WRITE.invokeExact(wakeState, wakeFd, wakeValue, 8L);
                assert ignored == 8 || ignored < 0; // EAGAIN: the counter is already full, a wake-up is pending
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void close() {
        try {
            synchronized (wakeState) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            int a = (int) CLOSE.invokeExact(callState, wakeFd);
            int b = (int) CLOSE.invokeExact(callState, epollFd);
            assert a == 0 && b == 0;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        } finally {
            arena.close();
        }
    }
}
