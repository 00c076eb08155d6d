package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * A set of endpoints sharing one event channel and its CM thread ({@link RdmaCmProcessor}), started by
 * {@link #init(RdmaEndpointFactory)}. Subclasses say how an endpoint gets its completion queue, queue pair
 * and other resources. Events are routed as in DiSNI: CONNECT_REQUEST to the listening server endpoint,
 * ADDR/ROUTE_RESOLVED and ESTABLISHED to the endpoint of the id, every other event to both; events before
 * {@code init} or after {@code close} are dropped.
 *
 * @param <C> the endpoint type
 */
public abstract class RdmaEndpointGroup<C extends RdmaEndpoint> {
    private static final Logger logger = DiSNILogger.getLogger();
    private static int idCounter = 0;

    /**
     * The JVM's {@link RdmaEndpointProvider}, which hands out the device's shared protection domain;
     * {@link #close()} releases this group's use of its domains.
     */
    protected RdmaEndpointProvider endpointProvider;
    /**
     * The group's event channel and the thread that takes its events: started by
     * {@link #init(RdmaEndpointFactory)}, stopped (and the channel destroyed) by {@link #close()}.
     */
    protected RdmaCmProcessor cmProcessor;
    /**
     * The server endpoints by listening id: a CONNECT_REQUEST goes to the one of the event's listening id. Guarded
     * by the group's monitor.
     */
    protected HashMap<RdmaCmId, RdmaServerEndpoint<C>> serverEndpointMap;
    /**
     * The endpoints by id, connecting and accepting side alike; an endpoint leaves it when it closes. Guarded by
     * the group's monitor.
     */
    protected HashMap<RdmaCmId, C> clientEndpointMap;
    /**
     * True while the group drops CM events: from construction until {@link #init(RdmaEndpointFactory)}, and again
     * once {@link #close()} has closed the endpoints.
     */
    protected AtomicBoolean closed;
    /** Makes the endpoints of both sides; set by {@link #init(RdmaEndpointFactory)}, null before. */
    protected RdmaEndpointFactory<C> factory;
    /**
     * The parameters {@link RdmaEndpoint#getConnParam()} returns unless overridden: every field 0, that is no
     * private data, responder resources and initiator depth 0 (which this module's connect and accept turn into the
     * device's maximum) and retry counts 0.
     */
    protected RdmaConnParam connParam;
    private boolean shutDown;

    /**
     * Makes the completion queue provider of a new endpoint (called from
     * {@link RdmaEndpoint#allocateResources()}, after the protection domain).
     *
     * @param endpoint the endpoint
     * @return its completion queue provider
     * @throws IOException if it cannot be made
     */
    public abstract RdmaCqProvider createCqProvider(C endpoint) throws IOException;

    /**
     * Makes the queue pair of a new endpoint (after its completion queue provider).
     *
     * @param endpoint the endpoint
     * @return its queue pair
     * @throws IOException if it cannot be made
     */
    public abstract IbvQP createQpProvider(C endpoint) throws IOException;

    /**
     * Arranges for {@link RdmaEndpoint#allocateResources()} to run, now or later on another thread;
     * {@code connect} and {@code accept} wait for it.
     *
     * @param endpoint the endpoint
     * @throws Exception as the subclass likes
     */
    public abstract void allocateResources(C endpoint) throws Exception;

    /**
     * Creates the group's event channel; events are taken after {@link #init(RdmaEndpointFactory)}.
     *
     * @param timeout milliseconds of one wait of the CM thread (at most a second is used)
     * @throws IOException if the channel cannot be made
     */
    public RdmaEndpointGroup(int timeout) throws IOException {
        this.endpointProvider = RdmaEndpointProvider.getEndpointProvider();
        this.serverEndpointMap = new HashMap<>();
        this.clientEndpointMap = new HashMap<>();
        this.closed = new AtomicBoolean(true);
        this.connParam = new RdmaConnParam();
        this.cmProcessor = new RdmaCmProcessor(this, timeout);
    }

    /** With a given event channel (tests without a device). */
    RdmaEndpointGroup(int timeout, com.ibm.disni.verbs.RdmaEventChannel cmChannel) throws IOException {
        this.endpointProvider = RdmaEndpointProvider.getEndpointProvider();
        this.serverEndpointMap = new HashMap<>();
        this.clientEndpointMap = new HashMap<>();
        this.closed = new AtomicBoolean(true);
        this.connParam = new RdmaConnParam();
        this.cmProcessor = new RdmaCmProcessor(this, timeout, cmChannel);
    }

    /**
     * Sets the endpoint factory and starts taking CM events.
     *
     * @param factory the factory
     */
    public void init(RdmaEndpointFactory<C> factory) {
        synchronized (this) {
            if (shutDown) {
                return;
            }
            this.factory = factory;
            closed.set(false);
        }
        cmProcessor.start();
    }

    /**
     * Returns the JVM's protection domain of the endpoint's device.
     *
     * @param endpoint the endpoint
     * @return the domain
     * @throws IOException if the endpoint's id has no device
     */
    public synchronized IbvPd createProtectionDomain(C endpoint) throws IOException {
        return endpointProvider.createProtectionDomain(endpoint);
    }

    /**
     * Returns the JVM's protection domain of the server endpoint's device.
     *
     * @param endpoint the server endpoint
     * @return the domain
     * @throws IOException if the endpoint's id has no device
     */
    public synchronized IbvPd createProtectionDomain(RdmaServerEndpoint<C> endpoint) throws IOException {
        return endpointProvider.createProtectionDomain(endpoint);
    }

    /**
     * Creates a server endpoint on a new id of the group's channel.
     *
     * @return the server endpoint, not bound yet
     * @throws IOException if the id cannot be made
     */
    public final synchronized RdmaServerEndpoint<C> createServerEndpoint() throws IOException {
        checkOpen();
        RdmaCmId id = cmProcessor.createId(RdmaCm.RDMA_PS_TCP);
        RdmaServerEndpoint<C> endpoint = new RdmaServerEndpoint<>(this, id);
        serverEndpointMap.put(id, endpoint);
        logger.info("new server endpoint, id {}", endpoint.getEndpointId());
        return endpoint;
    }

    /**
     * Creates a client endpoint on a new id of the group's channel, through the factory.
     *
     * @return the endpoint, not connected yet
     * @throws IOException if the group has no factory yet ({@code init}) or the id cannot be made
     */
    public final synchronized C createEndpoint() throws IOException {
        checkOpen();
        if (factory == null) {
            throw new IOException("endpoint group not initialised: call init(factory) first");
        }
        RdmaCmId id = cmProcessor.createId(RdmaCm.RDMA_PS_TCP);
        C endpoint = factory.createEndpoint(id, false);
        clientEndpointMap.put(id, endpoint);
        logger.info("new client endpoint, id {}", endpoint.getEndpointId());
        return endpoint;
    }

    /**
     * Creates the endpoint of an incoming connection request's id, through the factory (server side).
     *
     * @param idPriv the request's id
     * @return the endpoint
     * @throws IOException if the group is closed or has no factory
     */
    protected final synchronized C createEndpoint(RdmaCmId idPriv) throws IOException {
        checkOpen();
        if (factory == null) {
            throw new IOException("endpoint group not initialised: call init(factory) first");
        }
        C endpoint = factory.createEndpoint(idPriv, true);
        clientEndpointMap.put(idPriv, endpoint);
        logger.info("new server-side endpoint, id {}", endpoint.getEndpointId());
        return endpoint;
    }

    private void checkOpen() throws IOException {
        if (shutDown) {
            throw new IOException("endpoint group is closed");
        }
    }

    /**
     * Hands a CM event to the endpoints it concerns (on the CM thread); drops it while the group is closed.
     *
     * @param cmEvent the event
     */
    public final void dispatchCmEvent(RdmaCmEvent cmEvent) {
        if (closed.get()) {
            return;
        }
        try {
            int event = cmEvent.getEvent();
            RdmaCmId id = cmEvent.getConnIdPriv();
            RdmaCmId listenId = cmEvent.getListenIdPriv();
            RdmaServerEndpoint<C> server;
            C client;
            synchronized (this) {
                server = serverEndpointMap.get(event == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()
                        ? listenId : id);
                client = clientEndpointMap.get(id);
            }
            if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()) {
                if (server != null) {
                    server.dispatchCmEvent(cmEvent);
                } else {
                    logger.info("connection request for no server endpoint");
                }
            } else if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal()
                    || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED.ordinal()
                    || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED.ordinal()) {
                if (client != null) {
                    client.dispatchCmEvent(cmEvent);
                }
            } else {
                if (client != null) {
                    client.dispatchCmEvent(cmEvent);
                }
                if (server != null) {
                    server.dispatchCmEvent(cmEvent);
                }
            }
        } catch (Exception e) {
            logger.warn("dispatching CM event: " + e, e);
        }
    }

    /**
     * Returns the connection parameters {@link RdmaEndpoint#getConnParam()} gives by default (retry counts 0).
     *
     * @return the group's parameters
     */
    public RdmaConnParam getConnParam() {
        return connParam;
    }

    /**
     * Closes every endpoint, then every server endpoint, stops the CM thread and destroys the event channel,
     * and releases the protection domains (deallocated when no other group uses them). Bounded in time.
     *
     * @throws IOException if a step fails (all are attempted)
     * @throws InterruptedException if interrupted while joining the CM thread
     */
    public void close() throws IOException, InterruptedException {
        List<C> clients;
        List<RdmaServerEndpoint<C>> servers;
        synchronized (this) {
            if (shutDown) {
                return;
            }
            shutDown = true;
            clients = new ArrayList<>(clientEndpointMap.values());
            servers = new ArrayList<>(serverEndpointMap.values());
        }
        // not holding the group's monitor: the CM thread keeps delivering DISCONNECTED meanwhile
        IOException failure = null;
        for (C endpoint : clients) {
            try {
                endpoint.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        for (RdmaServerEndpoint<C> server : servers) {
            try {
                server.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        try {
            endpointsClosed();
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        }
        closed.set(true);
        try {
            cmProcessor.close();
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        }
        endpointProvider.release(this);
        logger.info("endpoint group closed");
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Tells whether the group takes no events: before {@code init} and after {@code close}.
     *
     * @return true if closed
     */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Returns the next endpoint number (a counter of the JVM).
     *
     * @return the number
     */
    public synchronized int getNextId() {
        synchronized (RdmaEndpointGroup.class) {
            return idCounter++;
        }
    }

    synchronized boolean isShutDown() {
        return shutDown;
    }

    @SuppressWarnings("unchecked")
    synchronized IbvPd createProtectionDomainRaw(RdmaEndpoint endpoint) throws IOException {
        return createProtectionDomain((C) endpoint);
    }

    synchronized IbvPd createProtectionDomainRaw(RdmaServerEndpoint<C> endpoint) throws IOException {
        return createProtectionDomain(endpoint);
    }

    @SuppressWarnings("unchecked")
    synchronized RdmaCqProvider createCqProviderRaw(RdmaEndpoint endpoint) throws IOException {
        return createCqProvider((C) endpoint);
    }

    @SuppressWarnings("unchecked")
    synchronized IbvQP createQpProviderRaw(RdmaEndpoint endpoint) throws IOException {
        return createQpProvider((C) endpoint);
    }

    @SuppressWarnings("unchecked")
    void allocateResourcesRaw(RdmaEndpoint endpoint) throws Exception {
        allocateResources((C) endpoint);
    }

    synchronized void unregisterClientEp(RdmaEndpoint endpoint) throws IOException {
        clientEndpointMap.remove(endpoint.getIdPriv());
    }

    synchronized void unregisterServerEp(RdmaServerEndpoint<C> endpoint) {
        serverEndpointMap.remove(endpoint.getIdPriv());
    }

    /**
     * Called by {@link RdmaEndpoint#close()} after its queue pair and id are destroyed: frees what the group
     * made for the endpoint alone.
     *
     * @param endpoint the endpoint
     * @throws IOException if freeing fails
     */
    void endpointClosed(RdmaEndpoint endpoint) throws IOException {
    }

    /**
     * Called by {@link #close()} after the endpoints and server endpoints closed: frees what the group made
     * for endpoints whose close failed.
     *
     * @throws IOException if freeing fails
     */
    void endpointsClosed() throws IOException {
    }

    /**
     * The attributes of a group's RC queue pair on {@code cq} (send and receive): {@code maxWR} requests and
     * {@code max(maxSge, 4)} scatter/gather entries each way (DiSNI 2.1 always asked for 4).
     */
    static IbvQPInitAttr rcQueuePairAttributes(IbvCQ cq, int maxWR, int maxSge) {
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(maxWR);
        attr.cap().setMax_recv_wr(maxWR);
        attr.cap().setMax_send_sge(Math.max(maxSge, 4));
        attr.cap().setMax_recv_sge(Math.max(maxSge, 4));
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        return attr;
    }
}
