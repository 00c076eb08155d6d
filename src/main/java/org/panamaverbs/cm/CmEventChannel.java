package org.panamaverbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.panamaverbs.ffi.ibv_ah_attr;
import org.panamaverbs.ffi.ibv_global_route;
import org.panamaverbs.ffi.rdmacm.rdma_cm_event;
import org.panamaverbs.ffi.rdmacm.rdma_cma_h;
import org.panamaverbs.ffi.rdmacm.rdma_conn_param;
import org.panamaverbs.ffi.rdmacm.rdma_event_channel;
import org.panamaverbs.ffi.rdmacm.rdma_ud_param;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.FdPoller;
import org.panamaverbs.internal.Libc;
import org.panamaverbs.internal.NativeLibrary;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.verbs.AddressHandle;
import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.RdmaUnavailableException;
import org.panamaverbs.verbs.VerbsException;

/**
 * {@code struct rdma_event_channel} from {@code rdma_create_event_channel}, destroyed with
 * {@code rdma_destroy_event_channel}: the descriptor on which rdma_cm reports events of the ids created
 * on it ({@link CmId#create}).
 *
 * <p>The descriptor is non-blocking. One virtual thread per channel waits for it through the shared
 * descriptor poller (parking, never blocking a carrier in native code), reads every event with
 * {@code rdma_get_cm_event}, copies it out (private data included), acknowledges it exactly once with
 * {@code rdma_ack_cm_event}, and only then logs it and hands it to its id, whose {@link CmId#awaitEvent}
 * returns it. A connection request's event creates the new id and goes to the listening id. Because every event
 * is acknowledged before any application code (a log handler) runs, {@code rdma_destroy_id} never waits for the
 * application. A failure while handling one event (a log handler that throws, a failed read) is reported and
 * the next event is delivered as usual: one bad event never ends the delivery.
 *
 * <p>While no event comes, the reader stays parked: it has no timed re-check that would wake it (and
 * preempt a thread spinning on a completion queue on the same core). Closing the channel closes its ids
 * first (newest first), then interrupts the reader and waits for it to stop; the reader destroys the channel as it
 * stops. Idempotent.
 */
public final class CmEventChannel implements AutoCloseable {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final MemorySegment channel;
    private final int fd;
    private final Map<Long, CmId> ids = new ConcurrentHashMap<>();
    private final List<CmId> creationOrder = new ArrayList<>();
    private final Thread reader;
    /** Set, under this object's lock, once every id is closed; the reader stops and destroys the channel. */
    private volatile boolean closed;
    /** {@code rdma_destroy_event_channel} has run; guarded by this. */
    private boolean destroyed;

    private static final class Native {
        static final MethodHandle CREATE_CHANNEL = CallState.capturingErrno(
                rdma_cma_h.rdma_create_event_channel$address(), rdma_cma_h.rdma_create_event_channel$descriptor());
        static final MethodHandle GET_EVENT = CallState.capturingErrno(
                rdma_cma_h.rdma_get_cm_event$address(), rdma_cma_h.rdma_get_cm_event$descriptor());
    }

    private CmEventChannel(MemorySegment channel) {
        this.channel = channel;
        this.fd = rdma_event_channel.fd(channel);
        int rc = Libc.setNonBlocking(fd);
        if (rc != 0) {
            rdma_cma_h.rdma_destroy_event_channel(channel);
            throw new VerbsException("fcntl", rc, "making the rdma_cm event channel non-blocking");
        }
        reader = Thread.ofVirtual().name("panama-verbs-cm-events-" + SEQUENCE.incrementAndGet()).unstarted(this::readEvents);
        reader.start();
    }

    /**
     * {@code rdma_create_event_channel}, with its descriptor made non-blocking and its reader thread started.
     *
     * @return the new channel, which the caller closes (closing it also closes the ids created on it)
     * @throws RdmaUnavailableException with {@link RdmaUnavailableException.Reason#LIBRARY_MISSING} if libibverbs
     *                                  or librdmacm cannot be loaded, saying which package to install
     * @throws VerbsException naming the call and errno (ENODEV: no RDMA device; ENOENT: the rdma_ucm module
     *                        is not loaded, {@code /dev/infiniband/rdma_cm} is missing)
     */
    public static CmEventChannel create() {
        requireLibraries();
        try (CallState state = CallState.open()) {
            MemorySegment channel = (MemorySegment) Native.CREATE_CHANNEL.invokeExact(state.segment());
            if (channel.equals(MemorySegment.NULL)) {
                throw new VerbsException("rdma_create_event_channel", state.errno(), "check that /dev/infiniband/rdma_cm"
                        + " exists (modprobe rdma_ucm) and is accessible, and that an RDMA device is present");
            }
            return new CmEventChannel(channel.reinterpret(rdma_event_channel.layout().byteSize()));
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

    void register(CmId id) {
        ids.put(id.address(), id);
        synchronized (creationOrder) {
            creationOrder.add(id);
        }
    }

    void unregister(CmId id) {
        ids.remove(id.address());
        synchronized (creationOrder) {
            creationOrder.remove(id);
        }
    }

    /**
     * The ids of this channel that are open (a snapshot).
     *
     * @return an unmodifiable copy, oldest first, of the ids created on this channel (including the ids of
     *         connection requests) and not yet closed; later creations and closes do not change it
     */
    public List<CmId> ids() {
        synchronized (creationOrder) {
            return List.copyOf(creationOrder);
        }
    }

    /** The reader: delivers events until the channel closes, then destroys it (whoever closed it may have stopped waiting). */
    private void readEvents() {
        try {
            while (!closed) {
                try {
                    // no timed re-check: close() interrupts this thread, so an idle channel costs no wake-up
                    FdPoller.instance().awaitNonBlocking(fd, FdPoller.UNTIL_INTERRUPTED, this::readAvailable);
                } catch (RuntimeException readFailed) {
                    // rdma_get_cm_event or the poller failed: report, pause, read again (never end the delivery)
                    reportFailure("reading an rdma_cm event of " + this + " failed; reading again in 1 s", readFailed);
                    pause();
                }
                if (!closed) {
                    Thread.interrupted(); // not from close(): a stray interrupt must not stop the events
                }
            }
        } finally {
            destroyIfClosed(); // a reader that ends otherwise (an Error) leaves it to close()
        }
    }

    /** Destroys the native channel once, if the channel is closed (every id of it is freed by then). */
    private synchronized void destroyIfClosed() {
        if (closed && !destroyed) {
            destroyed = true;
            rdma_cma_h.rdma_destroy_event_channel(channel);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            // from close, or stray: the loop's condition tells
        }
    }

    /**
     * A failure of the reader, as WARNING on {@code org.panamaverbs.cm}; if the log handler fails too, to the
     * thread's uncaught-exception handler. Never throws: the reader goes on.
     */
    private static void reportFailure(String message, Throwable failure) {
        try {
            ControlEvents.CM.log(System.Logger.Level.WARNING, message, failure);
        } catch (RuntimeException logFailed) {
            failure.addSuppressed(logFailed);
            Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), failure);
        }
    }

    /** Reads and delivers every event available now; null when there was none (so the poller waits). */
    private Boolean readAvailable() {
        boolean any = false;
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment slot = arena.allocate(ADDRESS);
            while (!closed) {
                int rc = (int) Native.GET_EVENT.invokeExact(state.segment(), channel, slot);
                if (rc != 0) {
                    break; // EAGAIN: nothing more now
                }
                MemorySegment event = slot.get(ADDRESS, 0).reinterpret(rdma_cm_event.layout().byteSize());
                Copied copied = null;
                try {
                    copied = copyOut(event);
                } catch (RuntimeException failed) {
                    reportFailure("an rdma_cm event of " + this + " could not be read; it is dropped", failed);
                } finally {
                    // before any application code runs: rdma_destroy_id waits for this, never for a log handler
                    rdma_cma_h.rdma_ack_cm_event(event);
                }
                if (copied != null) {
                    dispatch(copied);
                }
                any = true;
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
        return any ? Boolean.TRUE : null;
    }

    /** Logs an acknowledged event and hands it to its id; a failure here costs this event's report, never delivery. */
    private void dispatch(Copied copied) {
        CmEvent event = copied.event();
        if (copied.requestId() != 0) {
            CmId id = requestId(copied);
            if (id == null) {
                return; // the channel closed meanwhile: the new id is freed already
            }
            event = new CmEvent(event.type(), event.status(), id, event.listenId(), event.privateData(),
                    event.parameters(), event.udPeer());
        }
        try {
            report(event);
        } catch (RuntimeException reportFailed) {
            reportFailure("reporting " + event.type().cName() + " of " + event.id() + " failed; it is delivered anyway",
                    reportFailed);
        }
        try {
            if (event.type() == CmEventType.CONNECT_REQUEST) {
                if (event.listenId() != null) {
                    event.listenId().deliverRequest(event); // queued, or refused: full backlog, closed listener
                } else {
                    event.id().close(); // its listener closed meanwhile: librdmacm's new id must still be freed
                }
            } else {
                event.id().deliver(event);
            }
        } catch (RuntimeException deliveryFailed) {
            reportFailure("delivering " + event.type().cName() + " to " + event.id() + " failed", deliveryFailed);
        }
    }

    /**
     * The id of a connection request, registered with this channel; or, if the channel closed meanwhile (its
     * close has already closed every id it knew), the native id destroyed and null.
     */
    private CmId requestId(Copied copied) {
        synchronized (this) {
            if (!closed) {
                return CmId.ofRequest(this, MemorySegment.ofAddress(copied.requestId()), copied.requestSpace());
            }
        }
        rdma_cma_h.rdma_destroy_id(MemorySegment.ofAddress(copied.requestId()));
        return null;
    }

    /**
     * What the reader copied out of an event before acknowledging it: the event (whose id is the listening id's
     * placeholder for a connection request), and for a connection request the new id's address and port space.
     */
    private record Copied(CmEvent event, long requestId, PortSpace requestSpace) {
    }

    /** Logs (org.panamaverbs.cm) and records (JFR ConnectionEvent) an event: WARNING for errors, else DEBUG. */
    private static void report(CmEvent event) {
        System.Logger.Level level = switch (event.type()) {
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, DEVICE_REMOVAL, MULTICAST_ERROR, UNKNOWN ->
                    System.Logger.Level.WARNING;
            case REJECTED -> System.Logger.Level.INFO;
            default -> System.Logger.Level.DEBUG;
        };
        CmId id = event.id();
        ControlEvents.connectionEvent(level, event.type().cName(), event.status(), id.toString(), () -> {
            try {
                java.net.InetSocketAddress peer = id.peerAddress();
                return peer == null ? null : peer.toString();
            } catch (RuntimeException e) { // reporting must not stop the delivery of events
                return "unknown (" + e.getMessage() + ")";
            }
        });
    }

    private Copied copyOut(MemorySegment event) {
        CmEventType type = CmEventType.of(rdma_cm_event.event(event));
        int status = rdma_cm_event.status(event);
        long idAddress = rdma_cm_event.id(event).address();
        CmId listenId = ids.get(rdma_cm_event.listen_id(event).address());
        CmId id = ids.get(idAddress);
        long requestId = 0;
        PortSpace space;
        if (type == CmEventType.CONNECT_REQUEST && id == null) {
            // a new id, which the application learns of only through this event: made once the event is acknowledged
            requestId = idAddress;
            space = listenId != null ? listenId.portSpace()
                    : org.panamaverbs.ffi.rdmacm.rdma_cm_id.ps(rdma_cm_event.id(event).reinterpret(
                    org.panamaverbs.ffi.rdmacm.rdma_cm_id.layout().byteSize())) == PortSpace.UDP.code() ? PortSpace.UDP : PortSpace.TCP;
        } else if (id == null) {
            return null; // an id closed from Java while its event was in flight
        } else {
            space = id.portSpace();
        }
        MemorySegment param = rdma_cm_event.param(event);
        boolean ud = space == PortSpace.UDP;
        byte[] privateData;
        ConnectionParameters parameters = null;
        UdPeer udPeer = null;
        if (ud) {
            MemorySegment p = rdma_cm_event.param.ud(param);
            privateData = bytes(rdma_ud_param.private_data(p), Byte.toUnsignedInt(rdma_ud_param.private_data_len(p)));
            if (type == CmEventType.ESTABLISHED) {
                udPeer = udPeer(p);
            }
        } else {
            MemorySegment p = rdma_cm_event.param.conn(param);
            privateData = bytes(rdma_conn_param.private_data(p), Byte.toUnsignedInt(rdma_conn_param.private_data_len(p)));
            if (type == CmEventType.CONNECT_REQUEST || type == CmEventType.CONNECT_RESPONSE
                    || type == CmEventType.ESTABLISHED) {
                parameters = new ConnectionParameters(privateData,
                        Byte.toUnsignedInt(rdma_conn_param.responder_resources(p)),
                        Byte.toUnsignedInt(rdma_conn_param.initiator_depth(p)),
                        Math.min(7, Byte.toUnsignedInt(rdma_conn_param.retry_count(p))),
                        Math.min(7, Byte.toUnsignedInt(rdma_conn_param.rnr_retry_count(p))));
            }
        }
        return new Copied(new CmEvent(type, status, id, type == CmEventType.CONNECT_REQUEST ? listenId : null, privateData,
                parameters, udPeer), requestId, space);
    }

    private static UdPeer udPeer(MemorySegment ud) {
        MemorySegment ah = rdma_ud_param.ah_attr(ud);
        MemorySegment grh = ibv_ah_attr.grh(ah);
        Gid gid = Gid.read(grh, ibv_global_route.dgid$offset());
        AddressHandle.Target target = new AddressHandle.Target(gid, Byte.toUnsignedInt(ibv_global_route.sgid_index(grh)),
                Byte.toUnsignedInt(ibv_ah_attr.port_num(ah)), Short.toUnsignedInt(ibv_ah_attr.dlid(ah)),
                Byte.toUnsignedInt(ibv_global_route.hop_limit(grh)), Byte.toUnsignedInt(ibv_ah_attr.sl(ah)));
        return new UdPeer(target, rdma_ud_param.qp_num(ud), rdma_ud_param.qkey(ud));
    }

    private static byte[] bytes(MemorySegment data, int length) {
        if (length == 0 || data.equals(MemorySegment.NULL)) {
            return new byte[0];
        }
        return data.reinterpret(length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    /**
     * Closes every id of this channel (newest first), stops the event reader, which destroys the channel
     * ({@code rdma_destroy_event_channel}) as it stops. Idempotent; a second caller returns once the channel is
     * destroyed.
     *
     * @throws IllegalStateException if closing an id failed (the channel then stays open: close it again), or if the
     *                               reader has not stopped within 10 s (it is held up in application code, such
     *                               as a log handler; it destroys the channel once it stops, and closing again
     *                               waits for that once more)
     * @throws VerbsException        if {@code rdma_destroy_id} failed for an id (the channel then stays open)
     */
    @Override
    public void close() {
        synchronized (this) {
            if (!closed) {
                for (CmId id : ids().reversed()) {
                    id.close();
                }
                closed = true; // under this lock: the reader makes no id for a connection request from here on
            }
        }
        reader.interrupt();
        try {
            if (!reader.join(java.time.Duration.ofNanos(org.panamaverbs.internal.Liveness.CLOSE_WAIT_NANOS))) {
                throw new IllegalStateException("the rdma_cm event reader of " + this + " has not stopped within "
                        + java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(org.panamaverbs.internal.Liveness.CLOSE_WAIT_NANOS)
                        + " s (" + describe(reader) + "); it destroys the channel when it stops");
            }
            destroyIfClosed(); // the reader did, unless it ended early
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while closing " + this + "; its reader destroys it when it stops", e);
        }
    }

    /** Where a thread is, for a message: the top frames of its stack. */
    private static String describe(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        StringBuilder where = new StringBuilder("at");
        for (int i = 0; i < Math.min(3, stack.length); i++) {
            where.append(' ').append(stack[i]);
        }
        return stack.length == 0 ? "running" : where.toString();
    }

    @Override
    public String toString() {
        return "CmEventChannel[fd " + fd + "]";
    }
}
