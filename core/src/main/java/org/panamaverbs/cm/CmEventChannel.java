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
 * {@code rdma_ack_cm_event} and hands it to its id, whose {@link CmId#awaitEvent} returns it. A connection
 * request's event creates the new id and goes to the listening id. Because events are acknowledged at
 * once, {@code rdma_destroy_id} never waits for an acknowledgement.
 *
 * <p>While no event comes, the reader stays parked: it has no timed re-check that would wake it (and
 * preempt a thread spinning on a completion queue on the same core). Closing the channel closes its ids
 * first (newest first), then interrupts the reader, waits for it to stop and destroys the channel. Idempotent.
 */
public final class CmEventChannel implements AutoCloseable {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final MemorySegment channel;
    private final int fd;
    private final Map<Long, CmId> ids = new ConcurrentHashMap<>();
    private final List<CmId> creationOrder = new ArrayList<>();
    private final Thread reader;
    private volatile boolean closed;

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

    private void readEvents() {
        while (!closed) {
            // no timed re-check: close() interrupts this thread, so an idle channel costs no wake-up
            FdPoller.instance().awaitNonBlocking(fd, FdPoller.UNTIL_INTERRUPTED, this::readAvailable);
            if (!closed) {
                Thread.interrupted(); // not from close(): a stray interrupt must not stop the events
            }
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
                CmEvent copied;
                try {
                    copied = copyOut(event);
                    if (copied != null) {
                        report(copied); // before the ack: until then rdma_destroy_id waits, so the id is readable
                    }
                } finally {
                    rdma_cma_h.rdma_ack_cm_event(event);
                }
                if (copied != null && copied.type() == CmEventType.CONNECT_REQUEST) {
                    if (copied.listenId() != null) {
                        copied.listenId().deliver(copied);
                    } else {
                        copied.id().close(); // its listener closed meanwhile: librdmacm's new id must still be freed
                    }
                } else if (copied != null) {
                    copied.id().deliver(copied);
                }
                any = true;
            }
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
        return any ? Boolean.TRUE : null;
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

    private CmEvent copyOut(MemorySegment event) {
        CmEventType type = CmEventType.of(rdma_cm_event.event(event));
        int status = rdma_cm_event.status(event);
        long idAddress = rdma_cm_event.id(event).address();
        CmId listenId = ids.get(rdma_cm_event.listen_id(event).address());
        CmId id = ids.get(idAddress);
        if (type == CmEventType.CONNECT_REQUEST && id == null) {
            PortSpace space = listenId != null ? listenId.portSpace()
                    : org.panamaverbs.ffi.rdmacm.rdma_cm_id.ps(rdma_cm_event.id(event).reinterpret(
                    org.panamaverbs.ffi.rdmacm.rdma_cm_id.layout().byteSize())) == PortSpace.UDP.code() ? PortSpace.UDP : PortSpace.TCP;
            id = CmId.ofRequest(this, rdma_cm_event.id(event), space);
        }
        if (id == null) {
            return null; // an id closed from Java while its event was in flight
        }
        MemorySegment param = rdma_cm_event.param(event);
        boolean ud = id.portSpace() == PortSpace.UDP;
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
        return new CmEvent(type, status, id, type == CmEventType.CONNECT_REQUEST ? listenId : null, privateData,
                parameters, udPeer);
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

    /** Closes every id of this channel (newest first), stops the event reader and destroys the channel. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            for (CmId id : ids().reversed()) {
                id.close();
            }
            closed = true;
        }
        reader.interrupt();
        try {
            // the reader leaves rdma_get_cm_event before the channel is freed under it
            if (!reader.join(java.time.Duration.ofSeconds(5))) {
                throw new IllegalStateException("the rdma_cm event reader of " + this + " did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while closing " + this, e);
        }
        rdma_cma_h.rdma_destroy_event_channel(channel);
    }

    @Override
    public String toString() {
        return "CmEventChannel[fd " + fd + "]";
    }
}
