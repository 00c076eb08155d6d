package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCRegMr;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingDeque;
import org.slf4j.Logger;

/**
 * A listening id of a group. Each CONNECT_REQUEST makes an endpoint through the group's factory (on the CM
 * thread), queued until {@link #accept()} takes it. {@link #accept()} waits for a request as long as it
 * takes (like a server socket) but returns with an {@link IOException} once the server endpoint is closed;
 * it never returns null (DiSNI 2.1 could fail with a NullPointerException).
 *
 * @param <C> the endpoint type
 */
public class RdmaServerEndpoint<C extends RdmaEndpoint> {
    private static final Logger logger = DiSNILogger.getLogger();
    private static int CONN_STATE_INITIALIZED = 0;
    private static int CONN_STATE_READY_FOR_ACCEPT = 1;
    private static int CONN_STATE_CLOSED = 2;

    /**
     * This server endpoint's number from {@link RdmaEndpointGroup#getNextId()}, the counter of the JVM that
     * endpoints use too.
     */
    protected int endpointId;
    /**
     * The device's shared protection domain, got by {@link #bind(SocketAddress, int)} (null before); accepted
     * endpoints use the same one.
     */
    protected IbvPd pd;
    /** The listening rdma_cm id, made by the group on its channel; destroyed by {@link #close()}. */
    protected RdmaCmId idPriv;
    private LinkedBlockingDeque<C> requested;
    private RdmaEndpointGroup<C> group;
    /**
     * The {@code IbvMr.IBV_ACCESS_*} bits {@link #registerMemory(ByteBuffer)} registers with: local write, remote
     * write and remote read (7).
     */
    protected int access;
    private volatile boolean isClosed;
    private int connState;

    /**
     * Makes a server endpoint on {@code idPriv}; {@link RdmaEndpointGroup#createServerEndpoint()} calls this.
     *
     * @param group the group
     * @param idPriv the listening id
     */
    public RdmaServerEndpoint(RdmaEndpointGroup<C> group, RdmaCmId idPriv) {
        this.group = group;
        this.idPriv = idPriv;
        this.endpointId = group.getNextId();
        this.requested = new LinkedBlockingDeque<>();
        this.access = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ;
        this.connState = CONN_STATE_INITIALIZED;
    }

    /**
     * Binds to {@code src} and listens, then gets the device's shared protection domain. The address must
     * be one of an RDMA device (the wildcard address has no device: IOException).
     *
     * @param src the local address (IPv4)
     * @param backlog the listen backlog
     * @return this
     * @throws Exception an IOException if binding, listening or the domain fails
     */
    public synchronized RdmaServerEndpoint<C> bind(SocketAddress src, int backlog) throws Exception {
        if (isClosed) {
            throw new IOException("server endpoint " + endpointId + " is closed");
        }
        if (connState != CONN_STATE_INITIALIZED) {
            throw new IOException("server endpoint " + endpointId + " is already bound");
        }
        idPriv.bindAddr(src);
        idPriv.listen(backlog);
        this.pd = group.createProtectionDomainRaw(this);
        connState = CONN_STATE_READY_FOR_ACCEPT;
        logger.info("server endpoint {} bound to {}", endpointId, src);
        return this;
    }

    /**
     * Takes the next connection request (waiting for one), has the group allocate its resources (running
     * its {@code init()}), accepts it and waits for ESTABLISHED.
     *
     * @return the connected endpoint
     * @throws IOException if this server endpoint is closed, or accepting fails (the endpoint is then
     *         closed; the message names the CM event or the step that timed out)
     */
    public C accept() throws IOException {
        C endpoint = null;
        try {
            synchronized (this) {
                // dispatchCmEvent and close notify: no timed re-check, so a thread waiting here for the next
                // client wakes nobody while the server's connections spin on their completion queues
                while (requested.isEmpty() && !isClosed) {
                    wait();
                }
                if (isClosed) {
                    throw new IOException("server endpoint " + endpointId + " is closed");
                }
                endpoint = requested.poll();
            }
            endpoint.accept();
            return endpoint;
        } catch (Exception e) {
            if (endpoint != null) {
                try {
                    endpoint.close();
                } catch (Exception closing) {
                    e.addSuppressed(closing);
                }
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    /**
     * On CONNECT_REQUEST, makes the request's endpoint through the group's factory and queues it for
     * {@link #accept()}; other events are only logged.
     *
     * @param cmEvent the event
     * @throws IOException if the endpoint cannot be made
     */
    public synchronized void dispatchCmEvent(RdmaCmEvent cmEvent) throws IOException {
        if (cmEvent.getEvent() == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()) {
            if (isClosed) {
                return;
            }
            C endpoint = group.createEndpoint(cmEvent.getConnIdPriv());
            requested.add(endpoint);
            notifyAll();
        } else {
            logger.info("server endpoint {} got event {}", endpointId, cmEvent.getEvent());
        }
    }

    /**
     * Destroys the listening id and closes the requests not accepted yet; later calls do nothing. The
     * protection domain stays (it is the device's, shared).
     *
     * @throws IOException if destroying fails
     * @throws InterruptedException if interrupted while closing a pending endpoint
     */
    public synchronized void close() throws IOException, InterruptedException {
        if (isClosed) {
            return;
        }
        isClosed = true;
        connState = CONN_STATE_CLOSED;
        notifyAll();
        IOException failure = null;
        try {
            idPriv.destroyId();
        } catch (IOException e) {
            failure = e;
        }
        for (C pending; (pending = requested.poll()) != null;) {
            try {
                pending.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        group.unregisterServerEp(this);
        logger.info("server endpoint {} closed", endpointId);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Tells whether {@link #bind(SocketAddress, int)} succeeded and {@link #close()} was not called.
     *
     * @return true if bound
     */
    public synchronized boolean isBound() {
        return connState == CONN_STATE_READY_FOR_ACCEPT;
    }

    /**
     * Tells whether {@link #close()} was called.
     *
     * @return true if closed
     */
    public synchronized boolean isClosed() {
        return isClosed;
    }

    /**
     * Returns the bound address.
     *
     * @return the address
     * @throws Exception an IOException if not bound
     */
    public SocketAddress getSrcAddr() throws Exception {
        return idPriv.getSource();
    }

    /**
     * Returns the listening id.
     *
     * @return the id
     */
    public RdmaCmId getIdPriv() {
        return idPriv;
    }

    /**
     * Returns the server endpoint's number, unique in the JVM.
     *
     * @return the number
     */
    public int getEndpointId() {
        return endpointId;
    }

    /**
     * Returns the device's shared protection domain (also the accepted endpoints').
     *
     * @return the domain, or null before bind
     */
    public IbvPd getPd() {
        return pd;
    }

    /**
     * Registers the whole buffer on the device's shared protection domain (usable by every accepted
     * endpoint) with local write, remote write and remote read access.
     *
     * @param buffer a direct buffer
     * @return the registration call, to execute
     * @throws IOException if not bound yet
     */
    public SVCRegMr registerMemory(ByteBuffer buffer) throws IOException {
        if (pd == null) {
            throw new IOException("server endpoint " + endpointId + ": not bound, no protection domain");
        }
        return pd.regMr(buffer, access);
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

    RdmaEndpointGroup<C> group() {
        return group;
    }
}
