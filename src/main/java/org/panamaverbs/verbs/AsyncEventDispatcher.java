package org.panamaverbs.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.panamaverbs.ffi.ibv_async_event;
import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.FdPoller;
import org.panamaverbs.internal.Libc;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.Unchecked;

/**
 * A context's asynchronous events ({@code ibv_get_async_event}, then {@code ibv_ack_async_event}): read on demand
 * ({@link Context#awaitAsyncEvent}) or by a virtual thread that hands each to the registered listeners
 * ({@link Context#addAsyncEventListener}). The thread starts with the first listener and ends when the context
 * closes ({@link #stop()}); while it runs it keeps the context reachable, so the backstop never frees a tree
 * whose events someone listens to.
 */
final class AsyncEventDispatcher {
    private final Context context;
    /** The context's scoped handle: a read after close throws instead of reaching freed memory. */
    private final MemorySegment handle;
    /** {@code ibv_context.async_fd}, non-blocking so that a wait can be bounded and interrupted. */
    private final int asyncFd;
    private final List<Consumer<AsyncEvent>> listeners = new CopyOnWriteArrayList<>();
    /** Guarded by the tree lock; null until the first listener. */
    private Thread thread;

    /** Linked on the first read only: creating a context must not need it. */
    private static final class Native {
        static final MethodHandle GET_ASYNC_EVENT = CallState.capturingErrno(NativeFunction.IBV_GET_ASYNC_EVENT);
    }

    /**
     * Makes {@code context}'s async event descriptor non-blocking; nothing is read until asked.
     *
     * @throws VerbsException naming {@code fcntl} if the descriptor cannot be made non-blocking
     */
    AsyncEventDispatcher(Context context, MemorySegment handle) {
        this.context = context;
        this.handle = handle;
        this.asyncFd = ibv_context.async_fd(handle);
        int rc = Libc.setNonBlocking(asyncFd);
        if (rc != 0) {
            throw new VerbsException("fcntl", rc, "making the async event descriptor of " + context.name()
                    + " non-blocking");
        }
    }

    /** {@link Context#awaitAsyncEvent} in nanoseconds, {@link FdPoller#UNTIL_INTERRUPTED} included. */
    AsyncEvent await(long timeoutNanos) {
        AsyncEvent event = FdPoller.instance().awaitNonBlocking(asyncFd, timeoutNanos, this::tryGet);
        if (event != null) {
            ControlEvents.asyncEvent(logLevel(event.type()), context.name(), event.type().name(),
                    event.source() == null ? null : event.source().toString(), event.port());
        }
        return event;
    }

    /** WARNING for errors, INFO for port and fabric changes, DEBUG for what a connection's life brings anyway. */
    private static System.Logger.Level logLevel(AsyncEventType type) {
        return switch (type) {
            case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, PATH_MIG_ERR, DEVICE_FATAL, PORT_ERR, SRQ_ERR, WQ_FATAL,
                    UNKNOWN -> System.Logger.Level.WARNING;
            case PORT_ACTIVE, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE, PATH_MIG ->
                    System.Logger.Level.INFO;
            case COMM_EST, SQ_DRAINED, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED -> System.Logger.Level.DEBUG;
        };
    }

    /** One non-blocking read, under the tree lock so that the object an event names cannot be freed meanwhile. */
    private AsyncEvent tryGet() {
        synchronized (context.treeLock()) {
            context.ensureOpen();
            try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
                MemorySegment event = arena.allocate(ibv_async_event.layout());
                int rc = (int) Native.GET_ASYNC_EVENT.invokeExact(state.segment(), handle, event);
                if (rc != 0) {
                    int errno = state.errno();
                    if (errno == Errno.EAGAIN) {
                        return null;
                    }
                    throw new VerbsException("ibv_get_async_event", errno, "device " + context.name());
                }
                AsyncEventType type = AsyncEventType.of(ibv_async_event.event_type(event));
                long element = event.get(ADDRESS, ibv_async_event.element$offset()).address();
                int port = type.concernsPort() ? event.get(JAVA_INT, ibv_async_event.element$offset()) : 0;
                VerbsResource source = type.concernsQueuePair() || type.concernsCompletionQueue()
                        || type.concernsSharedReceiveQueue() ? ResourceTreeWalk.findQueueByAddress(context, element) : null;
                ibverbs_h.ibv_ack_async_event(event);
                return new AsyncEvent(type, source, port);
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        }
    }

    /** Registers {@code listener} and starts the dispatcher thread with the first one. */
    void addListener(Consumer<AsyncEvent> listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (context.treeLock()) {
            context.ensureOpen();
            listeners.add(listener);
            if (thread == null) {
                thread = Thread.ofVirtual().name("panama-verbs-async-" + context.name()).start(this::dispatch);
            }
        }
    }

    void removeListener(Consumer<AsyncEvent> listener) {
        listeners.remove(listener);
    }

    private void dispatch() {
        while (!context.isClosed()) {
            AsyncEvent event;
            try {
                // no timed re-check: closing interrupts this thread (stop), so an idle dispatcher never wakes
                event = await(FdPoller.UNTIL_INTERRUPTED);
            } catch (IllegalStateException closedMeanwhile) {
                return;
            } catch (RuntimeException readFailed) {
                // a failed read (ibv_get_async_event's errno) must not end delivery for good: report, pause, retry
                if (context.isClosed()) {
                    return;
                }
                ControlEvents.VERBS.log(System.Logger.Level.WARNING,
                        "reading an asynchronous event of " + context.name() + " failed; retrying in 1 s", readFailed);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    // from close, or stray: the loop's condition tells
                }
                continue;
            }
            if (event == null) {
                if (!context.isClosed()) {
                    Thread.interrupted(); // not from close: a stray interrupt must not end delivery
                }
                continue;
            }
            for (Consumer<AsyncEvent> listener : listeners) {
                try {
                    listener.accept(event);
                } catch (RuntimeException e) {
                    Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), e);
                }
            }
        }
    }

    /** Wakes every thread waiting in {@link #await}: the context is closed, so each next attempt throws. */
    void wakeWaiters() {
        FdPoller.wakeAllWaitingFor(asyncFd);
    }

    /** Wakes the dispatcher thread (if any) to end: the context is closed, which its loop checks. */
    void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
