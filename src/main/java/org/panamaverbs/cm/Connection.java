package org.panamaverbs.cm;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.VerbsResource;

/**
 * A connected queue pair with everything it needs, made by rdma_cm: {@link #connect} on the client,
 * {@link RdmaServer#accept} on the server. Each connection has its own protection domain, one completion
 * queue for both directions and the queue pair rdma_cm created on its id; the data path is the library's
 * usual allocation-free one ({@link QueuePair#postSend}, {@link CompletionQueue#poll}).
 *
 * <p>Regions: each side may {@link #offer} one memory region in its {@link ConnectionOptions#prepare
 * prepare} hook; its address, length and rkey travel in rdma_cm's private data, and the peer finds them in
 * {@link #remoteRegion()}, ready for RDMA READ/WRITE without a handshake of its own. Private data layout:
 * {@code 'P' 'V'}, version 1, flags (bit 0: a region follows), the application's byte count, the
 * {@link RemoteRegion} ({@value RemoteRegion#BYTES} bytes) if flagged, the application's bytes (5 header
 * bytes in all). Private data from a peer that is not Panama Verbs is kept whole in {@link #peerPrivateData()}.
 *
 * <p>Usable from virtual threads: every wait parks. {@link #close()} disconnects (RC), waits at most two
 * seconds for the disconnect to complete, and frees the queue pair, completion queue, protection domain
 * (with every region registered in it) and the id; a peer that died shows as {@link #isPeerDisconnected()}
 * and as error completions (retries exhausted) on posted requests.
 */
public final class Connection implements AutoCloseable {
    private static final Duration DISCONNECT_WAIT = Duration.ofSeconds(2);

    private final CmId id;
    private final CmEventChannel ownChannel;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private MemoryRegion offered;
    private byte[] outgoing;
    private boolean preparing;
    private RemoteRegion remoteRegion;
    private byte[] peerPrivateData = new byte[0];
    private UdPeer udPeer;
    private volatile boolean closed;

    private Connection(CmId id, CmEventChannel ownChannel, ConnectionOptions options) {
        this.id = id;
        this.ownChannel = ownChannel;
        Context context = id.context();
        ProtectionDomain domain = context.allocateProtectionDomain();
        CompletionQueue queue = null;
        try {
            QpCapabilities capabilities = options.capabilities();
            queue = context.createCompletionQueue(capabilities.maxSendWr() + capabilities.maxRecvWr());
            QpConfig config = QpConfig.builder(queue)
                    .type(options.portSpace() == PortSpace.TCP ? QpType.RC : QpType.UD)
                    .capabilities(capabilities).build();
            qp = id.createQueuePair(domain, config);
        } catch (RuntimeException | Error e) {
            // a refused queue pair (capacities beyond the device's) leaves nothing behind
            RuntimeException cleanup = closeEach(queue, domain);
            if (cleanup != null) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        cq = queue;
        pd = domain;
    }

    /**
     * Connects to an {@link RdmaServer} (or any rdma_cm listener) at {@code server}: resolves the address and
     * route, creates the protection domain, completion queue and queue pair on the device that reaches it,
     * runs the options' prepare hook, and connects.
     *
     * @param server  the listener's IP address and rdma_cm port (resolved, not a host name)
     * @param options the port space, queue sizes, connection parameters, private data and prepare hook
     * @param timeout bound for the whole call, but for the events' delivery: the address and route
     *                resolutions get what is left of it as their kernel timeouts, and the waits for their
     *                events may take up to {@link CmId#EVENT_DELIVERY_MARGIN} more in all, so the call returns
     *                or throws within {@code timeout} plus that margin
     * @return the connected connection, which owns its own event channel; the caller closes it
     * @throws IllegalArgumentException if the private data does not fit the request (see
     *                                  {@link ConnectionOptions.Builder#privateData}) or a capacity exceeds
     *                                  the device's limits
     * @throws CmException REJECTED when nothing listens there or the server refused (its private data is in
     *                     the exception), ADDR_ERROR / ROUTE_ERROR when no RDMA device reaches the address,
     *                     UNREACHABLE, CONNECT_ERROR, or a timeout; nothing is left open then
     */
    public static Connection connect(InetSocketAddress server, ConnectionOptions options, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long eventDeadline = deadline + CmId.EVENT_DELIVERY_MARGIN.toNanos();
        CmEventChannel channel = CmEventChannel.create();
        Connection connection = null;
        try {
            CmId id = CmId.create(channel, options.portSpace());
            id.resolveAddress(server, remaining(deadline), remaining(eventDeadline));
            options.typeOfService().ifPresent(id::setTypeOfService);
            id.resolveRoute(remaining(deadline), remaining(eventDeadline));
            connection = new Connection(id, channel, options);
            connection.prepare(options);
            CmEvent established = id.connect(options.parameters().withPrivateData(connection.envelope(
                    options.portSpace() == PortSpace.UDP ? ConnParam.MAX_UD_CONNECT_PRIVATE_DATA
                            : ConnParam.MAX_CONNECT_PRIVATE_DATA)), remaining(deadline));
            connection.readPeer(established.privateData());
            connection.udPeer = established.udPeer();
            return connection;
        } catch (RuntimeException | Error e) { // an Error from the prepare hook too: nothing is left open
            if (connection != null) {
                connection.closeQuietly(e);
            } else {
                channel.close();
            }
            throw e;
        }
    }

    /** The server side: builds the connection on a request's id and accepts it. */
    static Connection accept(CmEvent request, ConnectionOptions options, long deadline) {
        CmId id = request.id();
        Connection connection = null;
        try {
            connection = new Connection(id, null, options);
            connection.readPeer(request.privateData());
            connection.prepare(options);
            id.accept(options.parameters().withPrivateData(connection.envelope(
                    options.portSpace() == PortSpace.UDP ? ConnParam.MAX_UD_ACCEPT_PRIVATE_DATA
                            : ConnParam.MAX_ACCEPT_PRIVATE_DATA)));
            if (options.portSpace() == PortSpace.TCP) {
                id.awaitEstablished(remaining(deadline));
            }
            return connection;
        } catch (RuntimeException | Error e) { // an Error from the prepare hook too: nothing is left open
            if (connection != null) {
                connection.closeQuietly(e);
            } else {
                id.close();
            }
            throw e;
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    private void prepare(ConnectionOptions options) {
        outgoing = options.privateData();
        preparing = true;
        try {
            options.prepare().accept(this);
        } finally {
            preparing = false;
        }
    }

    /**
     * Offers {@code region} to the peer: its address, length and rkey travel with the connection, and the peer
     * reads them from {@link #remoteRegion()}. Only in the options' prepare hook; the region must belong to
     * {@link #protectionDomain()} and have the remote access the peer needs.
     *
     * @param region a region registered in {@link #protectionDomain()}, with the remote access flags the peer
     *               needs; it must stay registered for as long as the peer may access it (closing the
     *               connection deregisters it with the protection domain)
     * @throws IllegalStateException    outside the prepare hook, or when a region was already offered
     * @throws IllegalArgumentException for a region of another protection domain
     */
    public void offer(MemoryRegion region) {
        if (!preparing) {
            throw new IllegalStateException("offer a region in ConnectionOptions.prepare, before the connection is made");
        }
        if (offered != null) {
            throw new IllegalStateException("one region per connection can be offered; " + offered + " already is");
        }
        if (region.protectionDomain() != pd) {
            throw new IllegalArgumentException(region + " belongs to another protection domain; register it with"
                    + " connection.protectionDomain()");
        }
        offered = region;
    }

    /**
     * Replaces the options' private data for this connection, for what is known only once the queue pair
     * exists (its number, a region's key). Only in the options' prepare hook.
     *
     * @param data the application bytes for the peer's {@link #peerPrivateData()}, or null for none; copied.
     *             The size limits of {@link ConnectionOptions.Builder#privateData} apply, checked when the
     *             connection is requested or accepted
     * @throws IllegalStateException outside the prepare hook
     */
    public void sendPrivateData(byte[] data) {
        if (!preparing) {
            throw new IllegalStateException("set the private data in ConnectionOptions.prepare, before the connection is made");
        }
        outgoing = data == null ? new byte[0] : data.clone();
    }

    private byte[] envelope(int limit) {
        return new FramedPrivateData(offered == null ? null : RemoteRegion.of(offered), outgoing).encode(limit);
    }

    private void readPeer(byte[] data) {
        FramedPrivateData peer = FramedPrivateData.decode(data);
        remoteRegion = peer.region();
        peerPrivateData = peer.application();
    }

    /**
     * The rdma_cm id of this connection.
     *
     * @return the id, which {@link #close()} closes
     */
    public CmId id() {
        return id;
    }

    /**
     * The device context (rdma_cm's; closing the connection never closes the device).
     *
     * @return the context of the device that carries this connection
     */
    public Context context() {
        return pd.context();
    }

    /**
     * This connection's protection domain: register memory for the queue pair here.
     *
     * @return the protection domain, closed (with its regions) by {@link #close()}
     */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * The completion queue of both directions.
     *
     * @return the completion queue for send and receive completions, sized for
     *         the {@link ConnectionOptions#capabilities()}' {@code maxSendWr} plus {@code maxRecvWr} entries
     */
    public CompletionQueue completionQueue() {
        return cq;
    }

    /**
     * The connected queue pair (RC), or the UD queue pair in RTS.
     *
     * @return the queue pair, owned by the connection's id and closed with it
     */
    public QueuePair queuePair() {
        return qp;
    }

    /**
     * The region the peer offered (address, length, rkey), or null.
     *
     * @return the peer's offered region, ready for RDMA READ/WRITE with its rkey; null if the peer offered
     *         none or is not a Panama Verbs peer
     */
    public RemoteRegion remoteRegion() {
        return remoteRegion;
    }

    /**
     * The application bytes the peer sent with the connection (exactly as sent, for a Panama Verbs peer).
     *
     * @return a fresh copy: the peer's application bytes, or for a peer that is not Panama Verbs its whole
     *         private data field, zero padding included; empty if none
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * For a UD client: where the server's datagrams go (address vector, QPN, Q_Key); else null.
     *
     * @return the server's UD address on a UD client; null on an RC connection and on the server side
     */
    public UdPeer udPeer() {
        return udPeer;
    }

    /**
     * The peer's address.
     *
     * @return the peer's IP address and port, as the id reports it ({@link CmId#peerAddress()})
     */
    public InetSocketAddress peerAddress() {
        return id.peerAddress();
    }

    /**
     * Whether rdma_cm reported the connection gone (the peer disconnected, or its process died).
     *
     * @return true once {@code RDMA_CM_EVENT_DISCONNECTED} (or {@code DEVICE_REMOVAL}) arrived for the id
     */
    public boolean isPeerDisconnected() {
        return id.isDisconnected();
    }

    /**
     * Waits until the connection is reported gone.
     *
     * @param timeout the longest wait, not null
     * @return whether it was within {@code timeout}
     * @see CmId#awaitDisconnected(Duration)
     */
    public boolean awaitDisconnected(Duration timeout) {
        return id.awaitDisconnected(timeout);
    }

    /**
     * Disconnects (RC; waits at most two seconds for rdma_cm to confirm), then frees the queue pair, the
     * completion queue, the protection domain with its regions, the id and, on a client, its event channel.
     * Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            if (id.portSpace() == PortSpace.TCP && !id.isClosed() && !id.isDisconnected()) {
                try {
                    id.disconnect();
                    id.awaitDisconnected(DISCONNECT_WAIT);
                } catch (RuntimeException notConnected) {
                    // never connected, or already torn down: nothing to say to the peer
                }
            }
        } finally {
            // each is closed even if one before it failed; the first failure is thrown, later ones suppressed. The queue
            // pair (given back with rdma_destroy_qp, before the id's destroy), its queue and domain go together: one
            // handshake of the JVM's threads for the three
            RuntimeException failure = closeEach(() -> VerbsResource.closeAll(qp, cq, pd), id, ownChannel);
            if (failure != null) {
                throw failure;
            }
        }
    }

    /**
     * Closes each of {@code resources} (null ones skipped) whatever the others do.
     *
     * @return null, or the first failure with the later ones suppressed in it
     */
    private static RuntimeException closeEach(AutoCloseable... resources) {
        RuntimeException first = null;
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException unchecked = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                if (first == null) {
                    first = unchecked;
                } else {
                    first.addSuppressed(unchecked);
                }
            }
        }
        return first;
    }

    private void closeQuietly(Throwable failure) {
        try {
            close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return "Connection[" + id.portSpace() + (closed ? " closed" : " to " + id.peerAddressOrNull()) + ", " + qp + "]";
    }
}
