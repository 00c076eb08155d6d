package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCRegMr;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import org.panamaverbs.cm.CmId;
import org.slf4j.Logger;

/**
 * A connection of an {@link RdmaEndpointGroup}: its id, the device's shared protection domain, a completion
 * queue provider and a queue pair made by the group. {@link #connect(SocketAddress, int)} and (through
 * {@link RdmaServerEndpoint#accept()}) the accepting side run the group's resource allocation, which calls
 * {@link #init()} on the caller's thread before {@code rdma_connect}/{@code rdma_accept}, as in DiSNI.
 *
 * <p>Unlike DiSNI 2.1, an error event (ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED) makes
 * {@code connect}/{@code accept} throw an {@link IOException} naming it, every wait is bounded (an
 * {@code IOException} says which step timed out), and {@link #close()} works on an endpoint in any state.
 */
public class RdmaEndpoint {
    private static final Logger logger = DiSNILogger.getLogger();
    private static int CONN_STATE_INITIALIZED = 0;
    private static int CONN_STATE_ADDR_RESOLVED = 1;
    private static int CONN_STATE_ROUTE_RESOLVED = 2;
    private static int CONN_STATE_RESOURCES_ALLOCATED = 3;
    private static int CONN_STATE_CONNECTED = 4;
    private static int CONN_STATE_CLOSED = 5;
    /** Added to a resolve's timeout: the kernel always sends its event by then, which must still reach the waiter. */
    private static final long RESOLVE_SLACK_MS = CmId.EVENT_DELIVERY_MARGIN.toMillis();
    /** Waiting for resources allocated by the group (possibly on another thread). */
    private static final long RESOURCES_WAIT_MS = 60_000;
    /** Waiting for ESTABLISHED (the connection manager reports CONNECT_ERROR after 120 s). */
    private static final long ESTABLISH_WAIT_MS = 130_000;
    /** Waiting for DISCONNECTED in close(). */
    private static final long DISCONNECT_WAIT_MS = 1000;

    /**
     * This endpoint's number from {@link RdmaEndpointGroup#getNextId()}: a counter of the JVM shared with server
     * endpoints, so unique in the JVM.
     */
    protected int endpointId;
    /**
     * The group that made this endpoint: it allocates the resources and hands on the CM events of {@code idPriv}.
     */
    protected RdmaEndpointGroup<? extends RdmaEndpoint> group;
    /**
     * The rdma_cm id of this connection: a new id of the group's channel on the connecting side, the connection
     * request's id on the accepting side. Destroyed by {@link #close()}.
     */
    protected RdmaCmId idPriv;
    /**
     * The RC queue pair the group made on {@code idPriv} ({@code rdma_create_qp}); null until the resources are
     * allocated.
     */
    protected IbvQP qp;
    /**
     * The device's protection domain, shared by every endpoint and group of the JVM on that device
     * ({@link RdmaEndpointProvider}); null until the resources are allocated.
     */
    protected IbvPd pd;
    /**
     * Where this endpoint's completions go: the device's shared {@link RdmaActiveCqProcessor} in an active group, a
     * queue of this endpoint's own in a passive group; null until the resources are allocated.
     */
    protected RdmaCqProvider cqProcessor;
    /**
     * The {@code IbvMr.IBV_ACCESS_*} bits {@link #registerMemory(ByteBuffer)} registers with: local write, remote
     * write and remote read (7). A subclass may change them.
     */
    protected int access;
    /** Written under the endpoint's lock; volatile so that {@link #getConnState()} needs none. */
    private volatile int connState;
    private boolean isClosed;
    private boolean isInitialized;
    private boolean serverSide;
    private boolean closeCalled;
    private String failure;

    /**
     * Makes an endpoint on {@code idPriv}; resources come later.
     *
     * @param group the group
     * @param idPriv the endpoint's id
     * @param serverSide whether this is the accepting side
     * @throws IOException never here; declared as in DiSNI
     */
    protected RdmaEndpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId idPriv, boolean serverSide)
            throws IOException {
        this.group = group;
        this.idPriv = idPriv;
        this.serverSide = serverSide;
        this.endpointId = group.getNextId();
        this.access = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ;
        this.connState = CONN_STATE_INITIALIZED;
    }

    /**
     * Resolves {@code dst} (address and route, each with {@code timeout} ms), has the group allocate the
     * resources (running {@link #init()}), connects with {@link #getConnParam()} and waits for ESTABLISHED.
     * As in DiSNI, {@code timeout} is handed to {@code rdma_resolve_addr} and {@code rdma_resolve_route}: it
     * bounds the kernel's resolution, which then reports ADDR/ROUTE_RESOLVED or an error event. Unlike DiSNI
     * (which waits for those events forever) each wait here ends after {@code timeout} plus
     * {@link CmId#EVENT_DELIVERY_MARGIN} with an exception saying that no event came.
     *
     * @param dst the server's address (IPv4)
     * @param timeout milliseconds for each resolve step (the kernel's bound)
     * @throws Exception an {@link IOException} naming the CM error event or the step that timed out
     */
    public synchronized void connect(SocketAddress dst, int timeout) throws Exception {
        if (connState != CONN_STATE_INITIALIZED || closeCalled) {
            throw new IOException("endpoint " + endpointId + " cannot connect: already used or closed (state "
                    + connState + ")");
        }
        long resolveWait = Math.max(timeout, 0) + RESOLVE_SLACK_MS;
        idPriv.resolveAddr(null, dst, timeout);
        await(CONN_STATE_ADDR_RESOLVED, resolveWait, "resolving address " + dst + " (rdma_resolve_addr was given "
                + timeout + " ms)");
        idPriv.resolveRoute(timeout);
        await(CONN_STATE_ROUTE_RESOLVED, resolveWait, "resolving route to " + dst + " (rdma_resolve_route was given "
                + timeout + " ms)");
        group.allocateResourcesRaw(this);
        await(CONN_STATE_RESOURCES_ALLOCATED, RESOURCES_WAIT_MS, "allocating resources");
        idPriv.connect(getConnParam());
        await(CONN_STATE_CONNECTED, ESTABLISH_WAIT_MS, "connecting to " + dst);
        logger.info("endpoint {} connected to {}", endpointId, dst);
    }

    private void await(int state, long waitMs, String step) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + waitMs * 1_000_000L;
        while (connState < state && failure == null && !closeCalled) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                throw new IOException("endpoint " + endpointId + ": " + step + ": no event came within " + waitMs
                        + " ms (a timeout of the wait; state " + connState + ")");
            }
            wait(left);
        }
        if (failure != null) {
            throw new IOException("endpoint " + endpointId + ": " + step + " failed: " + failure);
        }
        if (closeCalled || connState == CONN_STATE_CLOSED) {
            throw new IOException("endpoint " + endpointId + ": " + step + " failed: endpoint closed");
        }
    }

    /**
     * Moves the connection state on a CM event (called on the group's CM thread); an error event ends the
     * waits of {@code connect}/{@code accept} with an exception, DISCONNECTED marks the endpoint closed.
     *
     * @param cmEvent the event
     * @throws IOException never here; overrides may
     */
    public synchronized void dispatchCmEvent(RdmaCmEvent cmEvent) throws IOException {
        int event = cmEvent.getEvent();
        RdmaCmEvent.EventType[] types = RdmaCmEvent.EventType.values();
        String name = event >= 0 && event < types.length ? types[event].name() : "event " + event;
        logger.info("endpoint {} got event {}", endpointId, name);
        if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED.ordinal()) {
            connState = Math.max(connState, CONN_STATE_ADDR_RESOLVED);
        } else if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED.ordinal()) {
            connState = Math.max(connState, CONN_STATE_ROUTE_RESOLVED);
        } else if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal()) {
            connState = CONN_STATE_CONNECTED;
        } else if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal()) {
            connState = CONN_STATE_CLOSED;
            isClosed = true;
        } else if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_ERROR.ordinal()
                || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_ERROR.ordinal()
                || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_ERROR.ordinal()
                || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_UNREACHABLE.ordinal()
                || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED.ordinal()
                || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal()) {
            if (failure == null) {
                failure = name + " (status " + cmEvent.getStatus() + ")";
            }
        }
        notifyAll();
    }

    /**
     * Gets the protection domain, completion queue provider and queue pair from the group, then calls
     * {@link #init()} and marks the resources allocated; does nothing the second time.
     *
     * @throws IOException if a resource cannot be made
     */
    public final synchronized void allocateResources() throws IOException {
        if (isInitialized) {
            return;
        }
        this.pd = group.createProtectionDomainRaw(this);
        this.cqProcessor = group.createCqProviderRaw(this);
        this.qp = group.createQpProviderRaw(this);
        init();
        isInitialized = true;
        connState = Math.max(connState, CONN_STATE_RESOURCES_ALLOCATED);
        notifyAll();
    }

    synchronized void accept() throws Exception {
        if (closeCalled) {
            throw new IOException("endpoint " + endpointId + " is closed");
        }
        group.allocateResourcesRaw(this);
        await(CONN_STATE_RESOURCES_ALLOCATED, RESOURCES_WAIT_MS, "allocating resources");
        idPriv.accept(getConnParam());
        await(CONN_STATE_CONNECTED, ESTABLISH_WAIT_MS, "accepting");
        logger.info("endpoint {} accepted", endpointId);
    }

    /**
     * Disconnects if connected (waiting at most a second for DISCONNECTED), destroys the queue pair and the
     * id, and leaves the group, which frees what it made for this endpoint alone (a passive endpoint's
     * completion queue). Registered memory stays registered (DiSNI programs deregister it afterwards).
     * Works in every state; later calls do nothing.
     *
     * @throws IOException if a step fails (all are attempted)
     * @throws InterruptedException if interrupted while waiting for DISCONNECTED
     */
    public synchronized void close() throws IOException, InterruptedException {
        if (closeCalled) {
            return;
        }
        closeCalled = true;
        notifyAll();
        IOException error = null;
        if (connState == CONN_STATE_CONNECTED) {
            try {
                idPriv.disconnect();
                long deadline = System.nanoTime() + DISCONNECT_WAIT_MS * 1_000_000L;
                while (connState == CONN_STATE_CONNECTED) {
                    long left = (deadline - System.nanoTime()) / 1_000_000L;
                    if (left <= 0) {
                        break;
                    }
                    wait(left);
                }
            } catch (IOException e) {
                error = e;
            }
        }
        if (qp != null) {
            try {
                idPriv.destroyQP();
            } catch (IOException e) {
                error = error == null ? e : error;
            }
        }
        try {
            idPriv.destroyId();
        } catch (IOException e) {
            error = error == null ? e : error;
        }
        connState = CONN_STATE_CLOSED;
        isClosed = true;
        try {
            group.unregisterClientEp(this);
            group.endpointClosed(this);
        } catch (IOException e) {
            error = error == null ? e : error;
        }
        logger.info("endpoint {} closed", endpointId);
        if (error != null) {
            throw error;
        }
    }

    /**
     * Tells whether ESTABLISHED arrived and neither DISCONNECTED nor {@link #close()} came after it.
     *
     * @return true if connected
     */
    public synchronized boolean isConnected() {
        return connState == CONN_STATE_CONNECTED;
    }

    /**
     * Tells whether DISCONNECTED arrived or {@link #close()} was called (DiSNI 2.1: only the former).
     *
     * @return true if closed
     */
    public synchronized boolean isClosed() {
        return isClosed;
    }

    /**
     * Returns the local address of the connection.
     *
     * @return the address
     * @throws IOException if the id is not bound
     */
    public SocketAddress getSrcAddr() throws IOException {
        return idPriv.getSource();
    }

    /**
     * Returns the peer's address.
     *
     * @return the address
     * @throws IOException if the id is not resolved or connected
     */
    public SocketAddress getDstAddr() throws IOException {
        return idPriv.getDestination();
    }

    /**
     * Returns the completion queue provider the group made for this endpoint.
     *
     * @return the provider, or null before resources are allocated
     */
    public RdmaCqProvider getCqProvider() {
        return cqProcessor;
    }

    /**
     * Registers the whole buffer (capacity) on the device's shared protection domain with local write,
     * remote write and remote read access.
     *
     * @param buffer a direct buffer
     * @return the registration call, to execute
     * @throws IOException if resources are not allocated yet
     */
    public SVCRegMr registerMemory(ByteBuffer buffer) throws IOException {
        if (pd == null) {
            throw new IOException("endpoint " + endpointId + ": no protection domain yet (resources not allocated)");
        }
        return pd.regMr(buffer, access);
    }

    /**
     * Prepares a post of {@code wrList} to the receive queue.
     *
     * @param wrList the work requests, copied now
     * @return the call, to execute (any number of times)
     * @throws IOException if there is no queue pair yet
     */
    public SVCPostRecv postRecv(List<IbvRecvWR> wrList) throws IOException {
        if (qp == null) {
            throw new IOException("endpoint " + endpointId + ": no queue pair yet (resources not allocated)");
        }
        return qp.postRecv(wrList, null);
    }

    /**
     * Prepares a post of {@code wrList} to the send queue.
     *
     * @param wrList the work requests, copied now
     * @return the call, to execute (any number of times)
     * @throws IOException if there is no queue pair yet
     */
    public SVCPostSend postSend(List<IbvSendWR> wrList) throws IOException {
        if (qp == null) {
            throw new IOException("endpoint " + endpointId + ": no queue pair yet (resources not allocated)");
        }
        return qp.postSend(wrList, null);
    }

    /**
     * Deregisters {@code mr} now.
     *
     * @param mr a region
     * @throws IOException if deregistering fails
     */
    public void deregisterMemory(IbvMr mr) throws IOException {
        mr.deregMr().execute().free();
    }

    /**
     * Returns the endpoint's connection id.
     *
     * @return the id
     */
    public RdmaCmId getIdPriv() {
        return idPriv;
    }

    /**
     * Returns the queue pair.
     *
     * @return the queue pair, or null before resources are allocated
     */
    public IbvQP getQp() {
        return qp;
    }

    /**
     * Tells whether this endpoint was made for an incoming connection.
     *
     * @return true on the accepting side
     */
    public boolean isServerSide() {
        return serverSide;
    }

    /**
     * Returns the endpoint's number, unique in the JVM.
     *
     * @return the number
     */
    public int getEndpointId() {
        return endpointId;
    }

    /**
     * Returns the device's shared protection domain.
     *
     * @return the domain, or null before resources are allocated
     */
    public IbvPd getPd() {
        return pd;
    }

    /**
     * Called once the protection domain, completion queue and queue pair exist and before
     * {@code rdma_connect}/{@code rdma_accept}, on the thread allocating the resources: register memory and
     * post receives here. Does nothing by default.
     *
     * @throws IOException as overrides like
     */
    protected synchronized void init() throws IOException {
    }

    /**
     * Returns the connection state: 0 initialized, 1 address resolved, 2 route resolved, 3 resources
     * allocated, 4 connected, 5 closed.
     *
     * @return the state
     */
    public int getConnState() {
        return connState;
    }

    /**
     * Returns the parameters {@code connect} and {@code accept} use: the group's, unless overridden (for
     * example to send private data).
     *
     * @return the parameters
     */
    public RdmaConnParam getConnParam() {
        return group.getConnParam();
    }
}
