package org.panamaverbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.panamaverbs.ffi.rdmacm.rdma_cma_h;
import org.panamaverbs.ffi.rdmacm.rdma_event_channel;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.FdPoller;
import org.panamaverbs.internal.Libc;
import org.panamaverbs.internal.Liveness;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.NativeLibrary;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.verbs.RdmaUnavailableException;
import org.panamaverbs.verbs.VerbsException;

/**
 * {@code struct rdma_event_channel} from {@code rdma_create_event_channel}, destroyed with
 * {@code rdma_destroy_event_channel}: the descriptor on which rdma_cm reports events of the ids created
 * on it ({@link CmId#create}).
 *
 * <p>The descriptor is non-blocking, and every event is read the same way: {@code rdma_get_cm_event}, a copy
 * into a reused {@link CmEventView}, {@code rdma_ack_cm_event} exactly once, and only then application code. So
 * {@code rdma_destroy_id} never waits for the application, and reading an event allocates nothing. Who reads
 * depends on how the channel was made:
 * <ul>
 * <li>{@link #create()}: a virtual thread of the channel reads and queues each event on its id, whose blocking
 *     calls ({@link CmId#connect}, {@link CmId#awaitEvent}, ...) take it from there;</li>
 * <li>{@link #createPolled()}: nothing reads until the application calls {@link #poll}, typically from an event
 *     loop when {@link #fd()} is readable; the ids of such a channel have no queue, so only their
 *     non-blocking calls ({@code begin...}, {@code accept}, {@code disconnect}) apply.</li>
 * </ul>
 *
 * <p>Closing the channel closes its ids first (newest first), then waits (bounded) for its reader or for a poll
 * in flight, then destroys the channel. Idempotent. Errors: {@link VerbsException} naming
 * {@code rdma_create_event_channel} or {@code rdma_get_cm_event} and the errno.
 */
public final class CmEventChannel implements AutoCloseable {
    /** errno's EAGAIN on Linux: nothing more to read now. */
    private static final int EAGAIN = 11;

    private final MemorySegment channel;
    private final long channelAddress;
    private final int fd;
    private final CmIdTable ids = new CmIdTable();
    /** Null on a polled channel. */
    private final CmEventReader reader;
    /** Held by a read of events: a close waits for it before destroying the channel. */
    private final ReentrantLock reading = new ReentrantLock();
    private final CmEventView view = new CmEventView();
    /** Keeps what librdmacm does inside a read apart from the calls that break it ({@link #nextEvent}). */
    private final Object nativeRead = new Object();
    /** How many {@link #wakeup()} calls ran: a timed poll returns once it moved. */
    private final AtomicLong wakeups = new AtomicLong();
    /** What {@code rdma_get_cm_event} writes (errno, the event pointer), made once; guarded by {@link #reading}. */
    private final MemorySegment errnoCapture;
    private final MemorySegment eventOut;
    private final long eventOutAddress;
    /** Set, under this object's lock, once every id is closed: no id is made for a connection request after it. */
    private volatile boolean closed;
    /** {@code rdma_destroy_event_channel} has run; guarded by this. */
    private boolean destroyed;

    private static final class Native {
        static final MethodHandle CREATE_CHANNEL = CallState.capturingErrno(NativeFunction.RDMA_CREATE_EVENT_CHANNEL);
        // the pointers as longs: an event read must not make a segment per call (the same registers on LP64)
        static final MethodHandle GET_EVENT = CallState.capturingErrno(NativeFunction.RDMA_GET_CM_EVENT.address(),
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        static final MethodHandle ACK_EVENT = Linker.nativeLinker().downcallHandle(NativeFunction.RDMA_ACK_CM_EVENT.address(),
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    }

    private CmEventChannel(MemorySegment channel, boolean polled) {
        this.channel = channel;
        this.channelAddress = channel.address();
        this.fd = rdma_event_channel.fd(channel);
        Arena getEventCall = Arena.ofAuto();
        this.errnoCapture = CallState.allocateBuffer(getEventCall);
        this.eventOut = getEventCall.allocate(ADDRESS);
        this.eventOutAddress = eventOut.address();
        int rc = Libc.setNonBlocking(fd);
        if (rc != 0) {
            rdma_cma_h.rdma_destroy_event_channel(channel);
            throw new VerbsException("fcntl", rc, "making the rdma_cm event channel non-blocking");
        }
        reader = polled ? null : new CmEventReader(this);
        if (reader != null) {
            reader.start();
        }
    }

    /**
     * {@code rdma_create_event_channel}, with its descriptor made non-blocking and its reader thread started: the
     * ids of this channel wait for their events with blocking calls.
     *
     * @return the new channel, which the caller closes (closing it also closes the ids created on it)
     * @throws RdmaUnavailableException with {@link RdmaUnavailableException.Reason#LIBRARY_MISSING} if libibverbs
     *                                  or librdmacm cannot be loaded, saying which package to install
     * @throws VerbsException naming the call and errno (ENODEV: no RDMA device; ENOENT: the rdma_ucm module
     *                        is not loaded, {@code /dev/infiniband/rdma_cm} is missing)
     */
    public static CmEventChannel create() {
        return create(false);
    }

    /**
     * {@code rdma_create_event_channel}, with its descriptor made non-blocking and no thread: the application
     * reads the events with {@link #poll} (from an event loop, when {@link #fd()} is readable). The blocking
     * calls of its ids ({@link CmId#awaitEvent}, {@link CmId#connect}, {@link CmId#resolveAddress}, ...) throw
     * {@link IllegalStateException}; their {@code begin} forms start each step, and the step's outcome is an event.
     *
     * @return the new channel, which the caller closes (closing it also closes the ids created on it)
     * @throws RdmaUnavailableException as {@link #create()}
     * @throws VerbsException           as {@link #create()}
     */
    public static CmEventChannel createPolled() {
        return create(true);
    }

    private static CmEventChannel create(boolean polled) {
        requireLibraries();
        try (CallState state = CallState.open()) {
            MemorySegment channel = (MemorySegment) Native.CREATE_CHANNEL.invokeExact(state.segment());
            if (channel.equals(MemorySegment.NULL)) {
                throw new VerbsException("rdma_create_event_channel", state.errno(), "check that /dev/infiniband/rdma_cm"
                        + " exists (modprobe rdma_ucm) and is accessible, and that an RDMA device is present");
            }
            return new CmEventChannel(channel.reinterpret(rdma_event_channel.layout().byteSize()), polled);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * Refuses a missing libibverbs or librdmacm with the package to install, before the generated {@code rdma_cma_h}
     * is touched: its static initializer would otherwise fail with an {@code ExceptionInInitializerError}.
     */
    private static void requireLibraries() {
        for (String soname : new String[] {NativeLibrary.IBVERBS, NativeLibrary.RDMACM}) {
            String problem = soname.equals(NativeLibrary.IBVERBS) ? NativeLibrary.ibverbsProblem() : NativeLibrary.rdmacmProblem();
            if (problem != null) {
                throw new RdmaUnavailableException(RdmaUnavailableException.Reason.LIBRARY_MISSING,
                        NativeLibrary.missingMessage(soname, problem), null);
            }
        }
    }

    MemorySegment handle() {
        ensureOpen();
        return channel;
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * Whether {@link #close()} has run.
     *
     * @return true once {@link #close()} has closed this channel's ids; the channel is unusable from then on
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Whether the application reads this channel's events ({@link #createPolled()}).
     *
     * @return true for a channel made by {@link #createPolled()}, false for one made by {@link #create()}
     */
    public boolean isPolled() {
        return reader == null;
    }

    /**
     * The channel's descriptor ({@code rdma_event_channel.fd}, non-blocking), for an event loop: it is readable
     * while events wait to be read by {@link #poll}. Level-triggered readiness stays set until they are read.
     * The descriptor is closed with the channel.
     *
     * @return the file descriptor
     * @throws IllegalStateException if the channel is closed, or is not polled (its own reader reads the events)
     */
    public int fd() {
        requirePolled("fd()");
        return fd;
    }

    /** The lock {@code rdma_destroy_qp} of this channel's ids takes (see the field). */
    Object nativeReadLock() {
        return nativeRead;
    }

    int descriptor() {
        return fd;
    }

    /**
     * Reads up to {@code maxEvents} events that are waiting now and hands each to {@code handler}, without
     * blocking: {@code rdma_get_cm_event} on the non-blocking descriptor, the event copied into a view, then
     * {@code rdma_ack_cm_event}, then the handler. Allocates nothing per event (a connection request's new
     * {@link CmId} aside). A connection request whose listener was closed meanwhile is refused here, and an event
     * of an id closed meanwhile is dropped; neither reaches the handler. Polls of one channel from several threads
     * take turns.
     *
     * @param handler   called once per event, on this thread
     * @param maxEvents the most events to hand over in this call, at least 1
     * @return how many events the handler was given; 0 when none was waiting
     * @throws IllegalStateException    if the channel is closed or not polled ({@link #createPolled()}), or
     *                                  if called from this channel's own handler
     * @throws IllegalArgumentException if {@code maxEvents} is less than 1
     * @throws VerbsException           naming {@code rdma_get_cm_event} and the errno if reading failed
     * @throws RuntimeException         what the handler threw (the events after it stay queued)
     */
    public int poll(CmEventHandler handler, int maxEvents) {
        Objects.requireNonNull(handler, "handler");
        if (maxEvents < 1) {
            throw new IllegalArgumentException("maxEvents must be at least 1, was " + maxEvents);
        }
        requirePolled("poll");
        return read(handler, maxEvents);
    }

    /**
     * {@link #poll(CmEventHandler, int)}, waiting up to {@code timeout} for the first event: for a thread of the
     * application's own that waits for the events of a polled channel (where an event loop would watch
     * {@link #fd()}). The thread parks on the descriptor through the library's descriptor poller, so a virtual
     * thread pins no carrier; a {@link #close()} from another thread wakes it.
     *
     * @param handler   called once per event, on this thread
     * @param maxEvents the most events to hand over in this call, at least 1
     * @param timeout   the longest wait for the first event; zero or negative does not wait; a duration beyond
     *                  {@code Long.MAX_VALUE} nanoseconds waits until an event comes or the thread is interrupted
     * @return how many events the handler was given; 0 when none came within the timeout, or the thread was
     *         interrupted (its interrupt status stays set)
     * @throws IllegalStateException    as {@link #poll(CmEventHandler, int)}, also when the channel is closed during
     *                                  the wait
     * @throws IllegalArgumentException if {@code maxEvents} is less than 1
     * @throws VerbsException           naming {@code rdma_get_cm_event} and the errno if reading failed
     * @throws RuntimeException         what the handler threw (the events after it stay queued)
     */
    public int poll(CmEventHandler handler, int maxEvents, Duration timeout) {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(timeout, "timeout");
        if (maxEvents < 1) {
            throw new IllegalArgumentException("maxEvents must be at least 1, was " + maxEvents);
        }
        requirePolled("poll");
        long nanos = timeout.isNegative() ? 0 : saturatedNanos(timeout);
        long wakeupsBefore = wakeups.get();
        Integer handled = FdPoller.instance().awaitNonBlocking(fd, nanos, () -> {
            ensureOpen(); // a close during the wait wakes it: the next attempt throws
            int n = read(handler, maxEvents);
            return n > 0 || wakeups.get() != wakeupsBefore ? n : null;
        });
        return handled == null ? 0 : handled;
    }

    /**
     * Makes the timed polls ({@link #poll(CmEventHandler, int, Duration)}) waiting on other threads
     * return now, with what they read (0 if nothing), as {@code Selector.wakeup()} does; a poll that starts later
     * is not affected. For a thread of the application's own that must stop waiting without closing the channel.
     *
     * @throws IllegalStateException if the channel is not polled ({@link #createPolled()}); on a closed channel
     *                               nothing waits and this does nothing
     */
    public void wakeup() {
        if (reader != null) {
            throw new IllegalStateException("wakeup on " + this + ": only a polled channel's polls wait");
        }
        wakeups.incrementAndGet();
        FdPoller.wakeAllWaitingFor(fd);
    }

    private static long saturatedNanos(Duration timeout) {
        try {
            return timeout.toNanos();
        } catch (ArithmeticException beyondLong) {
            return FdPoller.UNTIL_INTERRUPTED;
        }
    }

    private void requirePolled(String call) {
        ensureOpen();
        if (reader != null) {
            throw new IllegalStateException(call + " on " + this + ": its own reader thread reads its events (made by"
                    + " CmEventChannel.create()); make the channel with createPolled() to read them from an event loop");
        }
    }

    /** The read of {@link #poll} and of the reader thread. */
    int read(CmEventHandler handler, int maxEvents) {
        if (reading.isHeldByCurrentThread()) {
            throw new IllegalStateException("poll of " + this + " called from its own handler");
        }
        reading.lock();
        try {
            int handled = 0;
            while (handled < maxEvents && !closed) {
                long event = nextEvent();
                if (event == 0) {
                    break;
                }
                boolean known;
                try {
                    known = view.copy(event, ids);
                } finally {
                    acknowledge(event); // before any application code: rdma_destroy_id waits for this, never for it
                }
                if (known && deliverable()) {
                    CmEventReports.report(view);
                    view.id().observed(view.type());
                    try {
                        handler.onEvent(view);
                    } finally {
                        view.invalidate();
                    }
                    handled++;
                }
            }
            return handled;
        } finally {
            reading.unlock();
        }
    }

    /** One non-blocking {@code rdma_get_cm_event}: the event's address, or 0 when none is waiting. */
    private long nextEvent() {
        int rc;
        try {
            // inside the read librdmacm moves an active side's queue pair to RTS (so rdma_destroy_qp takes this lock)
            // and queries the kernel by the event's id handle (so rdma_create_id and rdma_migrate_id onto this channel
            // take it: a destroyed id's handle, reused by a new id, answered without a device). See docs/misuse.md.
            synchronized (nativeRead) {
                rc = (int) Native.GET_EVENT.invokeExact(errnoCapture, channelAddress, eventOutAddress);
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
        if (rc == 0) {
            return eventOut.get(JAVA_LONG, 0);
        }
        int errno = CallState.errnoIn(errnoCapture);
        if (errno == EAGAIN) {
            return 0;
        }
        throw new VerbsException("rdma_get_cm_event", errno, toString());
    }

    private static void acknowledge(long event) {
        try {
            int ignored = (int) Native.ACK_EVENT.invokeExact(event); // returns 0 always
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * Whether the copied event goes to the handler. A connection request first becomes a {@link CmId}: not if the
     * channel closed meanwhile (the native id is destroyed), nor if its listener did (the request is refused).
     */
    private boolean deliverable() {
        long request = view.requestAddress();
        if (request == 0) {
            view.open(null);
            return true;
        }
        CmId id;
        synchronized (this) {
            id = closed ? null : CmId.ofRequest(this, MemorySegment.ofAddress(request), view.requestSpace());
        }
        if (id == null) {
            rdma_cma_h.rdma_destroy_id(MemorySegment.ofAddress(request));
            return false;
        }
        view.open(id);
        if (view.listenId() == null) {
            CmId.refuse(id, "its listener was closed");
            return false;
        }
        return true;
    }

    /** Registers a new id; returns the slot number it stores in its {@code context}. */
    int register(CmId id) {
        return ids.add(id);
    }

    void unregister(CmId id, int slot) {
        ids.remove(id, slot);
    }

    /**
     * The ids of this channel that are open (a snapshot).
     *
     * @return an unmodifiable copy, oldest first, of the ids created on this channel (including the ids of
     *         connection requests) and not yet closed; later creations and closes do not change it
     */
    public List<CmId> ids() {
        return ids.snapshot();
    }

    /** Destroys the native channel once, if the channel is closed (every id of it is freed by then). */
    synchronized void destroyIfClosed() {
        if (closed && !destroyed) {
            destroyed = true;
            rdma_cma_h.rdma_destroy_event_channel(channel);
        }
    }

    /**
     * Closes every id of this channel (newest first), stops the reader or waits for a poll in flight, then
     * {@code rdma_destroy_event_channel}. Idempotent; a second caller returns once the channel is destroyed. May be
     * called from a poll's handler: the poll then ends after the handler.
     *
     * @throws IllegalStateException if closing an id failed (the channel then stays open: close it again), or if the
     *                               reader or a poll has not returned within 10 s (held up in application code, such
     *                               as a handler or a log handler; the channel is destroyed once it returns, and
     *                               closing again waits for that once more)
     * @throws VerbsException        if {@code rdma_destroy_id} failed for an id (the channel then stays open)
     */
    @Override
    public void close() {
        synchronized (this) {
            if (!closed) {
                for (CmId id : ids().reversed()) {
                    id.close();
                }
                closed = true; // under this lock: no id is made for a connection request from here on
            }
        }
        FdPoller.wakeAllWaitingFor(fd); // a timed poll waiting for an event throws at its next attempt
        if (reader != null) {
            reader.stop();
        }
        try {
            if (!reading.tryLock(Liveness.CLOSE_WAIT_NANOS, TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException("a poll of " + this + " has not returned within "
                        + TimeUnit.NANOSECONDS.toSeconds(Liveness.CLOSE_WAIT_NANOS) + " s (its handler is still running);"
                        + " close again once it returned");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while closing " + this, e);
        }
        try {
            destroyIfClosed(); // a close from the handler: its poll reads nothing more once closed is set
        } finally {
            reading.unlock();
        }
    }

    @Override
    public String toString() {
        return "CmEventChannel[fd " + fd + (reader == null ? ", polled]" : "]");
    }
}
