package org.panamaverbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.panamaverbs.ffi.rdmacm.rdma_addr;
import org.panamaverbs.ffi.rdmacm.rdma_cm_id;
import org.panamaverbs.ffi.rdmacm.rdma_cma_h;
import org.panamaverbs.ffi.rdmacm.rdma_route;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.CloseProtocol;
import org.panamaverbs.internal.ControlEvents;
import org.panamaverbs.internal.CountedLifetime;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.SocketAddresses;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.internal.VerbsBridge;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Transport;
import org.panamaverbs.verbs.VerbsException;

/**
 * {@code struct rdma_cm_id} from {@code rdma_create_id} (or from a connection request), destroyed with
 * {@code rdma_destroy_id}: one end of an rdma_cm connection, the RDMA counterpart of a socket.
 *
 * <p>Active side: {@link #resolveAddress}, {@link #resolveRoute}, {@link #createQueuePair},
 * {@link #connect}. Passive side: {@link #bind}, {@link #listen}, {@link #awaitConnectionRequest} (which
 * gives the request's new id), then on that id {@link #createQueuePair} and {@link #accept} or
 * {@link #reject}. Either side: {@link #disconnect}, {@link #awaitDisconnected}. Every wait has a bound and
 * a failure event becomes a {@link CmException} naming it ({@code RDMA_CM_EVENT_REJECTED} with "nothing is
 * listening" or the peer's private data, {@code ADDR_ERROR}, {@code ROUTE_ERROR}, {@code UNREACHABLE},
 * {@code CONNECT_ERROR}, timeouts).
 *
 * <p>Ownership: the device context ({@code cm_id->verbs}) is librdmacm's; {@link #context()} wraps it
 * without ever closing the device, one wrapper per device. The queue pair made by
 * {@link #createQueuePair} is an ordinary {@link QueuePair} with the same allocation-free data path, but
 * this id owns it: closing either frees it once with {@code rdma_destroy_qp}, and closing the id
 * (idempotent) closes it first. Private data is copied in and out; no buffer needs to outlive a call.
 */
public final class CmId implements AutoCloseable {
    /**
     * How much longer than the timeout handed to librdmacm ({@code rdma_resolve_addr},
     * {@code rdma_resolve_route}) Java waits for the event that ends such a call. The timeout bounds the
     * kernel's work, after which the kernel always reports an event (success or an error such as
     * {@code RDMA_CM_EVENT_ADDR_ERROR}); this margin is for that event to reach the waiting Java thread, which
     * in a cold JVM, or under emulation, took seconds. A wait that passes even this is reported as a timeout
     * of the wait ({@link CmException#timedOut()}), not as a failure event.
     */
    public static final Duration EVENT_DELIVERY_MARGIN = Duration.ofSeconds(30);

    /** The name of the thread on which {@link #close()} runs {@code rdma_destroy_id} (thread dumps; the fuzzer). */
    static final String DESTROY_THREAD_NAME = IdDestroyer.THREAD_NAME;

    private final CmEventChannel channel;
    /** The id; read and handed to librdmacm only inside {@link #lifetime}. */
    private final MemorySegment id;
    /** The id's address, for {@code rdma_destroy_id} once {@link #lifetime} has ended. */
    private final MemorySegment rawId;
    private final CountedLifetime lifetime = new CountedLifetime();
    private final PortSpace portSpace;
    /** Made for a connection request (by the channel's reader), not by the application. */
    private final boolean ofRequest;
    private final IdEvents events = new IdEvents();
    private final IdCalls calls;
    /** This id's number in its channel's table, kept in {@code rdma_cm_id.context} for finding it from an event. */
    private final int slot;
    /** The close protocol every object follows; its monitor also orders a queue pair's creation before a close. */
    private final CloseProtocol life = new CloseProtocol();
    private volatile QueuePair queuePair;

    private static final MethodHandle CREATE_ID = CallState.capturingErrno(NativeFunction.RDMA_CREATE_ID);

    private CmId(CmEventChannel channel, MemorySegment id, PortSpace portSpace, boolean ofRequest) {
        this.channel = channel;
        this.rawId = MemorySegment.ofAddress(id.address());
        this.id = id.reinterpret(rdma_cm_id.layout().byteSize());
        this.portSpace = portSpace;
        this.ofRequest = ofRequest;
        this.calls = new IdCalls(this.id, lifetime, this, ofRequest, channel.nativeReadLock());
        this.slot = channel.register(this);
        // a user field librdmacm never reads (it copies it to the ids of a listener's requests); set before any event
        rdma_cm_id.context(id.reinterpret(rdma_cm_id.layout().byteSize()), MemorySegment.ofAddress(slot));
    }

    /**
     * {@code rdma_create_id(channel, &id, NULL, ps)}.
     *
     * @param channel   the open channel that will report this id's events; closing it closes the id
     * @param portSpace {@link PortSpace#TCP} for an id that connects an RC queue pair, {@link PortSpace#UDP}
     *                  for UD
     * @return a new id, neither bound nor resolved and without a device yet; the caller closes it
     * @throws IllegalStateException if {@code channel} is closed
     * @throws VerbsException naming {@code rdma_create_id} and the errno
     */
    public static CmId create(CmEventChannel channel, PortSpace portSpace) {
        synchronized (channel) {
            try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
                MemorySegment slot = arena.allocate(ADDRESS);
                int rc;
                synchronized (channel.nativeReadLock()) { // see CmEventChannel#nativeRead: no handle reuse mid-read
                    rc = (int) CREATE_ID.invokeExact(state.segment(), channel.handle(), slot, MemorySegment.NULL,
                            portSpace.code());
                }
                if (rc != 0) {
                    throw new VerbsException("rdma_create_id", state.errno(), "port space " + portSpace);
                }
                return new CmId(channel, slot.get(ADDRESS, 0), portSpace, false);
            } catch (Throwable t) {
                throw Unchecked.rethrow(t);
            }
        }
    }

    /**
     * {@code rdma_create_ep}: an id for {@code address} made by librdmacm's own resolution
     * ({@code rdma_getaddrinfo}; for the active side the address and route are resolved synchronously inside
     * librdmacm, which bounds each step at 2 s), then moved to {@code channel} with {@code rdma_migrate_id}
     * so that connecting, accepting and disconnecting are event-driven like every other id. No queue pair is
     * made: call {@link #createQueuePair}.
     *
     * <p>Refused on PVRDMA (VMware lists {@code rdma_create_ep} as unsupported there): the device that would
     * serve the address is found first (resolving or binding a probe id; for a wildcard passive address,
     * every device), and its policy decides before {@code rdma_create_ep} is called.
     *
     * @param channel   the open channel the new id is moved to and reports its events to
     * @param address   a resolved IP address and port (passed to {@code rdma_getaddrinfo} in numeric form, so
     *                  no name lookup happens): the local address to bind when {@code passive} (port 0
     *                  picks a free one; the wildcard address checks every device), else the peer to reach
     * @param passive true for a listening endpoint ({@code RAI_PASSIVE}: {@code address} is local), false to
     *                connect to {@code address}
     * @param portSpace {@link PortSpace#TCP} for RC, {@link PortSpace#UDP} for UD; also the queue pair type
     *                  given to {@code rdma_getaddrinfo} as a hint
     * @param timeout   bounds only the address resolution of the probe id that finds the device on the
     *                  active side (not used when {@code passive}); librdmacm's own steps inside
     *                  {@code rdma_create_ep} keep their fixed bounds. Not null
     * @return the new id on {@code channel}: bound to {@code address} when passive (call {@link #listen}
     *         next), or with address and route resolved (call {@link #createQueuePair}, then
     *         {@link #connect}); the caller closes it
     * @throws org.panamaverbs.verbs.UnsupportedVerbException on a PVRDMA device (detected or emulated)
     * @throws VerbsException naming {@code rdma_getaddrinfo}, {@code rdma_create_ep} or {@code rdma_migrate_id}
     */
    public static CmId createEndpoint(CmEventChannel channel, InetSocketAddress address, boolean passive,
            PortSpace portSpace, Duration timeout) {
        return CmEndpoints.create(channel, address, passive, portSpace, timeout);
    }

    /** An id librdmacm made ({@code rdma_create_ep}) and moved to {@code channel}, which it now belongs to. */
    static CmId adopt(CmEventChannel channel, MemorySegment id, PortSpace portSpace) {
        return new CmId(channel, id, portSpace, false);
    }

    /** The id of a connection request, made by the channel's reader. */
    static CmId ofRequest(CmEventChannel channel, MemorySegment id, PortSpace portSpace) {
        return new CmId(channel, id, portSpace, true);
    }

    long address() {
        return rawId.address();
    }

    /**
     * The port space this id was created in.
     *
     * @return {@link PortSpace#TCP} (RC) or {@link PortSpace#UDP} (UD), as given at creation or, for a
     *         connection request's id, as the listening id's
     */
    public PortSpace portSpace() {
        return portSpace;
    }

    /**
     * The channel this id reports to.
     *
     * @return the event channel that delivers this id's events and closes the id when it is closed
     */
    public CmEventChannel channel() {
        return channel;
    }

    /**
     * The device this id is bound to ({@code cm_id->verbs}), known after {@link #bind} to a device's address,
     * {@link #resolveAddress}, or on a connection request's id. Closing the returned context closes what was
     * created on it, never the device (librdmacm keeps it open).
     *
     * @return the device context; the same wrapper for every id on that device, as long as it is neither closed
     *         nor unreachable (the library keeps no strong reference to it: once the application drops it, its
     *         backstop may free what was left open on it, and a later call returns a new wrapper)
     * @throws IllegalStateException if the id is closed or not bound to a device yet
     */
    public Context context() {
        ensureOpen(); // for the message; the read below throws too once the id is closed, and never overlaps its free
        MemorySegment verbs = calls.read(rdma_cm_id::verbs);
        if (verbs.equals(MemorySegment.NULL)) {
            throw new IllegalStateException(this + " is not bound to a device yet: bind it to a device's address or"
                    + " resolve an address first");
        }
        return BorrowedContexts.of(verbs);
    }

    /**
     * The port of {@link #context()} this id uses ({@code cm_id->port_num}), read from librdmacm's structure.
     *
     * @return the port number, 1-based; 0 while the id has no device
     * @throws IllegalStateException if the id is closed (its structure is freed)
     */
    public int port() {
        // a read inside the id's lifetime: it throws once closed, and the id is freed only after every read ended
        return calls.read(i -> Byte.toUnsignedInt(rdma_cm_id.port_num(i)));
    }

    /**
     * The local address ({@code rdma_get_local_addr}), or null before bind/resolve, read from librdmacm's
     * structure.
     *
     * @return the local IP address and port (the port picked by {@link #bind} when 0 was asked for); null
     *         while no IPv4 or IPv6 address is set
     * @throws IllegalStateException if the id is closed (its structure is freed)
     */
    public InetSocketAddress localAddress() {
        return calls.read(i -> SocketAddresses.read(rdma_addr.src_addr(rdma_route.addr(rdma_cm_id.route(i)))));
    }

    /** {@link #localAddress()}, or null once the id is closed (for descriptions, which must not throw). */
    InetSocketAddress localAddressOrNull() {
        try {
            return localAddress();
        } catch (IllegalStateException closedMeanwhile) {
            return null;
        }
    }

    /**
     * The peer's address ({@code rdma_get_peer_addr}), or null before resolve / a request, read from
     * librdmacm's structure.
     *
     * @return the peer's IP address and port; null while no IPv4 or IPv6 address is set
     * @throws IllegalStateException if the id is closed (its structure is freed)
     */
    public InetSocketAddress peerAddress() {
        return calls.read(i -> SocketAddresses.read(rdma_addr.dst_addr(rdma_route.addr(rdma_cm_id.route(i)))));
    }

    /** {@link #peerAddress()}, or null once the id is closed (for descriptions, which must not throw). */
    InetSocketAddress peerAddressOrNull() {
        try {
            return peerAddress();
        } catch (IllegalStateException closedMeanwhile) {
            return null;
        }
    }

    /**
     * {@code rdma_bind_addr}: binds to a local address (and port; 0 picks one). Binding to a specific address
     * also binds the id to that address's RDMA device; the wildcard ({@code 0.0.0.0} or {@code ::}) listens
     * on every device.
     *
     * @param local the local IP address and port, resolved (not a host name to look up); port 0 lets the
     *              kernel pick a free port ({@link #localAddress()} tells which)
     * @throws IllegalStateException if the id is closed
     * @throws VerbsException EADDRINUSE when the port is taken, EADDRNOTAVAIL / ENODEV when no RDMA device has the address
     */
    public void bind(InetSocketAddress local) {
        ensureOpen();
        calls.bind(local, () -> "binding to " + local + " (EADDRNOTAVAIL/ENODEV: no RDMA device has this address;"
                + " EADDRINUSE: the port is taken)");
    }

    /**
     * {@code rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1)}: the type of service of the
     * connection's packets (on RoCE the IP header's DSCP and ECN bits, the traffic class of the queue pair's GRH).
     * Set it before {@link #resolveRoute}: the route the kernel resolves carries it to the queue pair.
     *
     * @param tos 0..255
     * @throws IllegalArgumentException outside 0..255
     * @throws IllegalStateException if the id is closed
     * @throws VerbsException naming {@code rdma_set_option} and the errno
     */
    public void setTypeOfService(int tos) {
        byteOption(rdma_cma_h.RDMA_OPTION_ID_TOS(), "RDMA_OPTION_ID_TOS", "type of service", tos, 255);
    }

    /**
     * {@code rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, 1)}: the local ACK timeout of
     * the queue pair rdma_cm connects (its {@code timeout}: 4.096 µs × 2^value per attempt), instead of the one the
     * kernel derives from the path. Set it before the connection is made ({@link #connect} or {@link #accept}).
     *
     * @param exponent 0..31
     * @throws IllegalArgumentException outside 0..31
     * @throws IllegalStateException if the id is closed
     * @throws VerbsException naming {@code rdma_set_option} and the errno (ENOSYS or EINVAL from a kernel before
     *                        Linux 4.18, which lacks the option)
     */
    public void setAckTimeout(int exponent) {
        byteOption(rdma_cma_h.RDMA_OPTION_ID_ACK_TIMEOUT(), "RDMA_OPTION_ID_ACK_TIMEOUT", "ACK timeout", exponent, 31);
    }

    private void byteOption(int name, String option, String what, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(what + " must be in 0.." + max + ", not " + value);
        }
        ensureOpen();
        calls.setByteOption(name, option, value, () -> what + " " + value + " on " + this);
    }

    /**
     * {@code rdma_resolve_addr}, then waits for {@code RDMA_CM_EVENT_ADDR_RESOLVED}: finds the local device
     * and port that reach {@code destination}.
     *
     * @param destination the peer's IP address and port (resolved; the port is the peer's rdma_cm port)
     * @param timeout     given to {@code rdma_resolve_addr} in milliseconds (at least 1 ms): the kernel's
     *                    bound on the resolution. The wait for its event is at most
     *                    {@link #EVENT_DELIVERY_MARGIN} longer; not null
     * @throws CmException on {@code ADDR_ERROR} (no route from an RDMA device; a resolution that took the
     *                     kernel longer than {@code timeout} ends in ADDR_ERROR with status -110), or
     *                     {@link CmException#timedOut()} when no event came within the wait's bound
     * @throws VerbsException naming {@code rdma_resolve_addr} when the call itself is refused
     */
    public void resolveAddress(InetSocketAddress destination, Duration timeout) {
        resolveAddress(destination, timeout, timeout.plus(EVENT_DELIVERY_MARGIN));
    }

    /** {@link #resolveAddress(InetSocketAddress, Duration)} with the wait for the event bounded by {@code wait}. */
    void resolveAddress(InetSocketAddress destination, Duration timeout, Duration wait) {
        requireQueue("resolveAddress");
        beginResolveAddress(destination, timeout);
        events.queue().expectAfterNativeTimeout(CmEventType.ADDR_RESOLVED, "rdma_resolve_addr", timeout,
                wait.minus(timeout), "resolving " + destination, this);
    }

    /**
     * {@code rdma_resolve_addr} alone: starts the resolution and returns. Its outcome is this id's next event
     * ({@link #awaitEvent}): {@code ADDR_RESOLVED}, or {@code ADDR_ERROR} with a negative errno as status
     * (-110, ETIMEDOUT, when the kernel could not resolve within {@code timeout}). For programs that handle
     * events themselves; {@link #resolveAddress(InetSocketAddress, Duration)} waits for it.
     *
     * @param destination the peer's IP address and port (resolved; the port is the peer's rdma_cm port)
     * @param timeout     given to {@code rdma_resolve_addr} in milliseconds (at least 1 ms); not null
     * @throws IllegalStateException if the id is closed
     * @throws VerbsException naming {@code rdma_resolve_addr} and the errno when the call is refused
     */
    public void beginResolveAddress(InetSocketAddress destination, Duration timeout) {
        ensureOpen();
        calls.resolveAddress(destination, timeout, () -> "resolving " + destination);
    }

    /**
     * {@code rdma_resolve_route}, then waits for {@code RDMA_CM_EVENT_ROUTE_RESOLVED}.
     *
     * @param timeout given to {@code rdma_resolve_route} in milliseconds (at least 1 ms): the kernel's bound
     *                on the resolution. The wait for its event is at most {@link #EVENT_DELIVERY_MARGIN}
     *                longer; not null
     * @throws CmException on {@code ROUTE_ERROR}, or {@link CmException#timedOut()} when no event came within
     *                     the wait's bound
     * @throws VerbsException naming {@code rdma_resolve_route} when the call itself is refused
     * @throws IllegalStateException if the id is closed, or has no device yet (resolve an address first)
     */
    public void resolveRoute(Duration timeout) {
        resolveRoute(timeout, timeout.plus(EVENT_DELIVERY_MARGIN));
    }

    /** {@link #resolveRoute(Duration)} with the wait for the event bounded by {@code wait}. */
    void resolveRoute(Duration timeout, Duration wait) {
        requireQueue("resolveRoute");
        beginResolveRoute(timeout);
        events.queue().expectAfterNativeTimeout(CmEventType.ROUTE_RESOLVED, "rdma_resolve_route", timeout,
                wait.minus(timeout), "to " + peerAddress(), this);
    }

    /**
     * {@code rdma_resolve_route} alone: starts the resolution and returns. Its outcome is this id's next event
     * ({@link #awaitEvent}): {@code ROUTE_RESOLVED} or {@code ROUTE_ERROR}. {@link #resolveRoute(Duration)}
     * waits for it.
     *
     * @param timeout given to {@code rdma_resolve_route} in milliseconds (at least 1 ms); not null
     * @throws IllegalStateException if the id is closed, or has no device yet (no address resolved)
     * @throws VerbsException naming {@code rdma_resolve_route} and the errno when the call is refused
     */
    public void beginResolveRoute(Duration timeout) {
        ensureOpen();
        if (!hasDevice()) { // librdmacm's rdma_resolve_route reads cm_id->verbs->device unchecked
            throw new IllegalStateException("rdma_resolve_route on " + this + ": the id has no device yet; resolve an"
                    + " address first (resolveAddress, or beginResolveAddress and its ADDR_RESOLVED event)");
        }
        calls.resolveRoute(timeout, () -> "to " + peerAddressOrNull());
    }

    /**
     * {@code rdma_listen}: connection requests arrive as {@link #awaitConnectionRequest} results.
     *
     * @param backlog how many connection requests may wait to be taken; 0, negative values and anything above the
     *                kernel's limit ({@code net.rdma_ucm.max_backlog}, 1024 by default) mean that limit. A request
     *                that arrives while that many wait is refused (its client sees {@code REJECTED}), and closing
     *                this id refuses those still waiting, as the kernel does for a C listener
     * @throws IllegalStateException if the id is closed
     * @throws VerbsException naming {@code rdma_listen} and the errno (for example when the id is not bound)
     */
    public void listen(int backlog) {
        ensureOpen();
        ConnectionBacklog before = events.listening(backlog); // before rdma_listen: its first request may come at once
        try {
            calls.listen(backlog, () -> "on " + localAddressOrNull() + " (bind first)");
        } catch (RuntimeException e) {
            events.notListening(before);
            throw e;
        }
    }

    /**
     * Waits for a connection request on this listening id. The event's {@link CmEvent#id()} is the request's
     * new id: create its queue pair and {@link #accept} or {@link #reject} it, and close it when done.
     *
     * @param timeout the longest wait, not null
     * @return the CONNECT_REQUEST event, or null if none arrived within {@code timeout}
     * @throws CmException if another event reached the listening id instead (for example
     *                     {@code DEVICE_REMOVAL})
     */
    public CmEvent awaitConnectionRequest(Duration timeout) {
        CmEvent event = awaitEvent(timeout);
        if (event != null && event.type() != CmEventType.CONNECT_REQUEST) {
            throw new CmException("rdma_listen", CmException.EPROTO, event.type(), event.status(), event.privateData(),
                    "a listening id received " + event.type().cName() + " instead of a connection request");
        }
        return event;
    }

    /**
     * {@code rdma_create_qp(id, pd, &init_attr)}: a queue pair on this id's device and port, which rdma_cm
     * moves through its states as the connection progresses (RC: INIT now, RTR/RTS on connect or accept;
     * UD: straight to RTS with Q_Key {@code RDMA_UDP_QKEY}). The type must match the port space (RC for
     * {@link PortSpace#TCP}, UD for {@link PortSpace#UDP}); the completion queues and {@code pd} must belong
     * to {@link #context()}. The id owns the queue pair (see the class comment).
     *
     * @param pd     a protection domain of {@link #context()} (allocate it with
     *               {@code id.context().allocateProtectionDomain()})
     * @param config the queue pair's type, completion queues and capacities; its port is ignored (the id's
     *               {@link #port()} is used), and the capacities are checked against the device's limits
     * @return the queue pair, owned by this id; also returned by {@link #queuePair()} from now on
     * @throws IllegalStateException    if the id already has a queue pair or no device yet
     * @throws IllegalArgumentException for a type that does not match the port space, foreign objects, or a
     *                                  P_Key index other than 0 (rdma_cm takes the P_Key of the resolved address)
     * @throws VerbsException           naming {@code rdma_create_qp} and the errno; on a request's id whose
     *                                  client withdrew it, a {@link CmException} whose
     *                                  {@link CmException#requestWithdrawn()} is true
     */
    public QueuePair createQueuePair(ProtectionDomain pd, QpConfig config) {
        QpType expected = portSpace == PortSpace.TCP ? QpType.RC : QpType.UD;
        if (config.type() != expected) {
            throw new IllegalArgumentException("an id in port space " + portSpace + " connects " + expected
                    + " queue pairs, not " + config.type());
        }
        if (config.pkeyIndex() != 0) {
            throw new IllegalArgumentException("rdma_cm takes the P_Key from the address it resolved: leave the"
                    + " configuration's pkeyIndex 0, not " + config.pkeyIndex());
        }
        if (pd.context() != context()) {
            throw new IllegalArgumentException("the protection domain must belong to this id's device context ("
                    + context() + "): create it with id.context().allocateProtectionDomain()");
        }
        // under the lock close() takes to read the queue pair: a queue pair is created before a close begins (and
        // that close closes it) or not at all
        synchronized (life) {
            ensureOpen();
            if (queuePair != null && !queuePair.isClosed()) {
                throw new IllegalStateException(this + " already has " + queuePair);
            }
            QpConfig onPort = new QpConfig(config.type(), config.sendCq(), config.recvCq(), config.capabilities(),
                    config.signalAll(), port(), config.gidIndex(), config.srq(), 0);
            Supplier<String> what = () -> expected + " queue pair on " + this + " (max_send_wr "
                    + config.capabilities().maxSendWr() + ", max_recv_wr " + config.capabilities().maxRecvWr() + ")";
            // the queue pair's close gives it back with rdma_destroy_qp, which close() runs before the id's end
            QueuePair qp = VerbsBridge.get().createHeldQueuePair(pd, onPort, (pdHandle, init) -> {
                calls.createQueuePair(pdHandle, init, what, this::requestWithdrawn);
                return calls.read(rdma_cm_id::qp);
            }, "rdma_cm id " + this, calls::destroyQueuePair);
            if (expected == QpType.UD) {
                VerbsBridge.get().datagramsReady(qp);
            }
            queuePair = qp;
            return qp;
        }
    }

    /**
     * The queue pair made by {@link #createQueuePair}, or null.
     *
     * @return the queue pair (possibly closed already), or null if none was created
     */
    public QueuePair queuePair() {
        return queuePair;
    }

    /**
     * {@code rdma_connect}, then waits for the connection: {@code RDMA_CM_EVENT_ESTABLISHED}. On UD ids this
     * resolves the peer's queue pair ({@link CmEvent#udPeer()}).
     *
     * @param parameters what to negotiate: private data for the peer (at most 56 bytes on InfiniBand/RoCE,
     *                   180 on UD ids, 255 on iWARP; copied, so it need not outlive the call), responder
     *                   resources and initiator depth (each lowered to the device's limit), retry counts
     * @param timeout    the longest wait for the outcome after {@code rdma_connect} returned; not null
     * @return the ESTABLISHED event (the peer's private data and parameters)
     * @throws IllegalStateException    if the id is closed or has no queue pair ({@link #createQueuePair})
     * @throws IllegalArgumentException if the private data exceeds the limit
     * @throws CmException {@code REJECTED} (nothing listening, or the server refused: {@link CmException#privateData()}),
     *                     {@code UNREACHABLE}, {@code CONNECT_ERROR}, or nothing in time
     */
    public CmEvent connect(ConnParam parameters, Duration timeout) {
        requireQueue("connect");
        beginConnect(parameters);
        return expect(CmEventType.ESTABLISHED, "rdma_connect", timeout, "connecting to " + peerAddress());
    }

    /**
     * {@code rdma_connect} alone: sends the connection request and returns. Its outcome is this id's next
     * event ({@link #awaitEvent}): {@code ESTABLISHED}, or {@code REJECTED}, {@code UNREACHABLE},
     * {@code CONNECT_ERROR}; the connection manager's own retries bound how long the kernel tries.
     * {@link #connect(ConnParam, Duration)} waits for it.
     *
     * @param parameters as for {@link #connect(ConnParam, Duration)}; copied
     * @throws IllegalStateException    if the id is closed or has no queue pair ({@link #createQueuePair})
     * @throws IllegalArgumentException if the private data exceeds the limit
     * @throws VerbsException           naming {@code rdma_connect} and the errno when the call is refused
     */
    public void beginConnect(ConnParam parameters) {
        ensureOpen();
        requireQueuePair("rdma_connect");
        int limit = privateDataLimit(portSpace == PortSpace.UDP ? ConnParam.MAX_UD_CONNECT_PRIVATE_DATA
                : ConnParam.MAX_CONNECT_PRIVATE_DATA);
        connectOrAccept(false, parameters, limit, () -> "to " + peerAddressOrNull());
    }

    /**
     * {@code rdma_accept} on a connection request's id. RC connections are established when the
     * ESTABLISHED event arrives ({@link #awaitEstablished}); a UD request is answered at once.
     *
     * @param parameters what to answer with: private data for the peer (at most 196 bytes on
     *                   InfiniBand/RoCE, 136 on UD ids, 255 on iWARP; copied), responder resources and
     *                   initiator depth (each lowered to the device's limit), retry counts
     * @throws IllegalStateException    if the id is closed or has no queue pair ({@link #createQueuePair})
     * @throws IllegalArgumentException if the private data exceeds the limit
     * @throws VerbsException           naming {@code rdma_accept} and the errno; for a request its client
     *                                  withdrew, a {@link CmException} whose {@link CmException#requestWithdrawn()}
     *                                  is true
     */
    public void accept(ConnParam parameters) {
        ensureOpen();
        requireQueuePair("rdma_accept");
        int limit = privateDataLimit(portSpace == PortSpace.UDP ? ConnParam.MAX_UD_ACCEPT_PRIVATE_DATA
                : ConnParam.MAX_ACCEPT_PRIVATE_DATA);
        connectOrAccept(true, parameters, limit, () -> "from " + peerAddressOrNull());
    }

    /**
     * Waits for {@code RDMA_CM_EVENT_ESTABLISHED} after {@link #accept} on an RC id (a UD accept has no such
     * event to wait for).
     *
     * @param timeout the longest wait, not null
     * @return the ESTABLISHED event; the queue pair can post sends from now on
     * @throws CmException on failure or timeout
     */
    public CmEvent awaitEstablished(Duration timeout) {
        return expect(CmEventType.ESTABLISHED, "rdma_accept", timeout, "accepting " + peerAddress());
    }

    /**
     * {@code rdma_reject} on a connection request's id, with private data for the peer (at most 148 bytes on RC).
     * The peer sees {@code RDMA_CM_EVENT_REJECTED} (on InfiniBand/RoCE with reject reason 28, consumer
     * defined). The id stays open: close it afterwards.
     *
     * @param privateData bytes for the peer's {@link CmException#privateData()}, or null for none; at most
     *                    148 bytes on InfiniBand/RoCE, 255 on iWARP; copied
     * @throws IllegalStateException    if the id is closed
     * @throws IllegalArgumentException if the private data exceeds the limit
     * @throws VerbsException           naming {@code rdma_reject} and the errno
     */
    public void reject(byte[] privateData) {
        ensureOpen();
        byte[] data = privateData == null ? new byte[0] : privateData;
        checkPrivateData("rdma_reject", data, privateDataLimit(ConnParam.MAX_REJECT_PRIVATE_DATA));
        calls.reject(data, () -> "request from " + peerAddressOrNull());
    }

    /**
     * {@code rdma_disconnect}: moves the queue pair to ERR (outstanding requests flush) and tells the peer,
     * which gets {@code RDMA_CM_EVENT_DISCONNECTED}; so does this side ({@link #awaitDisconnected}).
     *
     * @throws VerbsException naming {@code rdma_disconnect} (EINVAL: not connected, also when the id has no
     *                        device yet)
     */
    public void disconnect() {
        ensureOpen();
        if (!hasDevice()) { // librdmacm before rdma-core 21 reads cm_id->verbs->device unchecked; later ones say EINVAL
            throw new VerbsException("rdma_disconnect", IdCalls.EINVAL, this + " (EINVAL: not connected; the id has no device)");
        }
        calls.disconnect(() -> this + " (EINVAL: not connected)");
    }

    /**
     * Waits until {@code RDMA_CM_EVENT_DISCONNECTED} arrived for this id (after either side's
     * {@link #disconnect}, or when the peer's process died).
     *
     * <p>Events of other types that arrive meanwhile are taken from this id's queue and dropped.
     *
     * @param timeout the longest wait, not null
     * @return whether it arrived within {@code timeout}: true at once if it had already arrived (or the
     *         device was removed, {@code RDMA_CM_EVENT_DEVICE_REMOVAL}), false if the timeout passed first
     */
    public boolean awaitDisconnected(Duration timeout) {
        requireQueue("awaitDisconnected");
        return events.awaitDisconnected(timeout, this);
    }

    /**
     * Whether {@code RDMA_CM_EVENT_DISCONNECTED} has arrived for this id.
     *
     * @return true once DISCONNECTED (or DEVICE_REMOVAL) was delivered to this id; it never turns false again
     */
    public boolean isDisconnected() {
        return events.isDisconnected();
    }

    /**
     * The next event for this id, oldest first.
     *
     * <p>Each event is returned once; events that arrived before the call are returned first, without waiting.
     *
     * @param timeout the longest wait, not null
     * @return the event, or null if none arrived within {@code timeout}
     * @throws IllegalStateException if the id is closed, also while waiting ({@link #close()} wakes every
     *                               waiter at once), or the thread was interrupted while waiting (its
     *                               interrupt status is set again)
     */
    public CmEvent awaitEvent(Duration timeout) {
        requireQueue("awaitEvent");
        return events.await(timeout, this);
    }

    /**
     * Called by the channel's reader for a connection request to this listening id: queued, or refused
     * (rejected and destroyed) when the backlog is full or this listener is closing.
     */
    void deliverRequest(CmEvent request) {
        String why = events.deliverRequest(request, this, life.isClosed());
        if (why != null) {
            refuse(request.id(), why);
        }
    }

    /**
     * Rejects a request that will not be accepted and destroys its id, saying {@code why} at INFO; neither may stop
     * the caller.
     */
    static void refuse(CmId request, String why) {
        ControlEvents.CM.log(System.Logger.Level.INFO, "refused the connection request on " + request + ": " + why);
        try {
            request.reject(null);
        } catch (RuntimeException alreadyGone) {
            // the client withdrew, or the id is closed: destroying it below is all that is left to do
        }
        try {
            request.close();
        } catch (RuntimeException stuck) {
            ControlEvents.CM.log(System.Logger.Level.WARNING, "destroying the refused request " + request + " failed", stuck);
        }
    }

    /** Called by the channel's reader for every event of this id, after {@link #observed}. */
    void deliver(CmEvent event) {
        events.deliver(event);
    }

    /** Called by the channel for every event of this id, before anyone sees it. Allocates nothing. */
    void observed(CmEventType type) {
        events.observed(type);
    }

    private CmEvent expect(CmEventType wanted, String call, Duration timeout, String what) {
        requireQueue(call);
        return events.queue().expect(wanted, call, timeout, what, this);
    }

    /** The blocking calls wait on this id's queue, which an id of a polled channel does not have. */
    private void requireQueue(String call) {
        ensureOpen();
        if (channel.isPolled()) {
            throw new IllegalStateException(call + " on " + this + ": its channel is polled, so its events go to"
                    + " CmEventChannel.poll's handler: start the step with its begin call (beginConnect, ...) and"
                    + " take the outcome there");
        }
    }

    /** CM reject reason 8: no listener for the service id (port). */
    static final int REJECT_INVALID_SERVICE_ID = CmEventQueue.REJECT_INVALID_SERVICE_ID;
    /** CM reject reason 28: the consumer (the peer's application) rejected. */
    static final int REJECT_CONSUMER = CmEventQueue.REJECT_CONSUMER;

    private void connectOrAccept(boolean accept, ConnParam parameters, int limit, Supplier<String> what) {
        String call = accept ? "rdma_accept" : "rdma_connect";
        byte[] data = parameters.privateData();
        checkPrivateData(call, data, limit);
        calls.connectOrAccept(accept, parameters, data, context().attributes(), () -> requireQueuePair(call),
                () -> what.get() + " on " + this, this::requestWithdrawn);
    }

    /**
     * EINVAL from {@code rdma_create_qp} (which moves the queue pair to INIT through the request's CM state) or
     * {@code rdma_accept} on a request's id: the kernel dropped the request because its client sent a reject
     * (its connect gave up, or it closed), and it reports no event for a request the application has not
     * accepted yet (the kernel's ucma: "the accept will just fail later").
     */
    private CmException requestWithdrawn(String call, String what) {
        return new CmException(call, IdCalls.EINVAL, null, 0, null, what + ": the connection request from " + peerAddress()
                + " is gone: its client withdrew it (its connect's bound passed, or it closed) before this accept."
                + " Accept the next request, or give clients' connects a longer bound", true);
    }

    private int privateDataLimit(int infinibandLimit) {
        return context().device().transport() == Transport.IWARP ? ConnParam.MAX_IWARP_PRIVATE_DATA : infinibandLimit;
    }

    private static void checkPrivateData(String call, byte[] data, int limit) {
        if (data.length > limit) {
            throw new IllegalArgumentException(call + " carries at most " + limit + " bytes of private data here, not "
                    + data.length);
        }
    }

    private void requireQueuePair(String call) {
        QueuePair qp = queuePair;
        if (qp == null || qp.isClosed()) {
            throw new IllegalStateException(call + " on " + this + " needs its queue pair: call createQueuePair first");
        }
    }

    /** Whether librdmacm has bound the id to a device ({@code cm_id->verbs}); never unset once set. */
    private boolean hasDevice() {
        return !calls.read(rdma_cm_id::verbs).equals(MemorySegment.NULL);
    }

    private void ensureOpen() {
        if (life.isClosed()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * Whether {@link #close()} has begun.
     *
     * @return true once {@link #close()} (or the channel's) has started closing this id; every call throws from then on
     */
    public boolean isClosed() {
        return life.isClosed();
    }

    /**
     * Closes the queue pair ({@code rdma_destroy_qp}) if it is open, then {@code rdma_destroy_id}. Does not
     * disconnect first: the peer then sees DISCONNECTED when the kernel tears the connection down. Idempotent.
     *
     * <p>The same lifecycle as the verbs objects' ({@link org.panamaverbs.verbs.VerbsResource#close()}): from the
     * start of the close every call on this id throws {@link IllegalStateException} (a thread waiting for an event
     * is woken with it), and a call already inside librdmacm with this id is waited for, at most 10 s, before the
     * id is freed. A second caller returns once the id is freed.
     *
     * <p>{@code rdma_destroy_id} itself waits in the kernel until the connection is torn down; the IB connection
     * manager may hold the id until its outstanding messages (a request, a reply, a disconnect request) have been
     * answered or have timed out, which takes seconds to minutes on a slow or dead peer. This close waits for it
     * at most 10 s too; past that the destroy goes on in the background and frees the id when the kernel returns.
     *
     * @throws VerbsException        naming {@code rdma_destroy_id} if it fails; the id is closed for Java regardless
     * @throws IllegalStateException if a call on the id (or a post on its queue pair) has not returned within 10 s:
     *                               the id then stays allocated (freeing it could crash that call), and closing
     *                               it again waits again and frees it once the call returned; or if
     *                               {@code rdma_destroy_id} has not returned within 10 s (the id is closed for
     *                               Java, and freed when the kernel is done)
     */
    @Override
    public void close() {
        if (endForJava()) {
            IdDestroyer.destroy(rawId, this, life::freed);
        }
    }

    /**
     * {@link #close()} for an event loop, which must not wait for the kernel: everything the close does for Java
     * happens now (every later call throws, the queue pair is closed, calls in flight are waited for as by
     * {@code close()}), and {@code rdma_destroy_id}, which may wait in the kernel for seconds on a slow or dead peer,
     * runs on one of the library's threads. A {@link #close()} meanwhile waits for it, bounded as usual.
     *
     * @return completes when {@code rdma_destroy_id} has returned (at once if the id was freed already), or
     *         exceptionally with the {@link VerbsException} naming it if it failed
     * @throws IllegalStateException as {@link #close()} when a call on the id has not returned within 10 s (the id then
     *                               stays allocated; close again later)
     */
    public CompletableFuture<Void> closeAsync() {
        if (!endForJava()) {
            return CompletableFuture.completedFuture(null);
        }
        return IdDestroyer.destroyLater(rawId, this, life::freed);
    }

    /** The close up to {@code rdma_destroy_id}; false if the id is freed already (by another close). */
    private boolean endForJava() {
        if (!life.begin(this)) {
            return false;
        }
        QueuePair qp = queuePair; // a createQueuePair under way finished before the close began (both hold life)
        try {
            if (qp != null) {
                qp.close(); // waits for posts in flight; rdma_destroy_qp needs the id, so it goes first
            }
            for (CmEvent request : events.close()) {
                refuse(request.id(), this + " was closed"); // as the kernel does for a closed C listener: no request outlives it
            }
            lifetime.end(this); // waits for the calls inside the id
        } catch (RuntimeException stuck) {
            life.gaveUp(); // left allocated: a later close tries again
            throw stuck;
        }
        channel.unregister(this, slot);
        return true;
    }

    @Override
    public String toString() {
        return "CmId[" + portSpace + " 0x" + Long.toHexString(rawId.address()) + "]";
    }
}
