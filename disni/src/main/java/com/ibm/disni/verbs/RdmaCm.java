package com.ibm.disni.verbs;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.RdmaCm}: the librdmacm calls of the DiSNI API, one
 * object per JVM ({@link #open()}), to which {@link RdmaEventChannel}, {@link RdmaCmId} and
 * {@link RdmaCmEvent} delegate. This module implements it on Panama Verbs' {@code org.panamaverbs.cm}
 * ({@code CmEventChannel}, {@code CmId}).
 *
 * <p>As in DiSNI, the address, route and connection calls return at once and their outcome arrives as an
 * event from {@code RdmaEventChannel.getCmEvent}: {@code ADDR_RESOLVED} or {@code ADDR_ERROR},
 * {@code ROUTE_RESOLVED} or {@code ROUTE_ERROR}, {@code ESTABLISHED} or {@code REJECTED} /
 * {@code UNREACHABLE} / {@code CONNECT_ERROR} (with the event's status), then {@code DISCONNECTED}; a
 * listening id gets {@code CONNECT_REQUEST} events carrying the new id. Calls that fail at once throw
 * {@code IOException} naming the C call and its errno. Only {@link #RDMA_PS_TCP} (RC) ids are offered, as in
 * DiSNI 2.1, which ignored the port space.
 */
public abstract class RdmaCm {

    /** {@code RDMA_PS_IPOIB}. */
    public static final short RDMA_PS_IPOIB = 0x0002;
    /** {@code RDMA_PS_TCP}: reliable connections. */
    public static final short RDMA_PS_TCP = 0x0106;
    /** {@code RDMA_PS_UDP}. */
    public static final short RDMA_PS_UDP = 0x0111;

    /** For the implementation. */
    public RdmaCm() {
    }

    /**
     * Returns the connection manager of this JVM.
     *
     * @return the single instance
     * @throws IOException never in this module
     */
    public static RdmaCm open() throws IOException {
        return PanamaCm.INSTANCE;
    }

    /**
     * {@code rdma_create_event_channel}.
     *
     * @return the channel
     * @throws IOException if the call fails (no RDMA device, rdma_ucm not loaded)
     */
    public abstract RdmaEventChannel createEventChannel() throws IOException;

    /**
     * {@code rdma_create_id(channel, &id, NULL, ps)}.
     *
     * @param cmChannel the channel the id reports to
     * @param rdma_ps the port space: {@link #RDMA_PS_TCP}
     * @return the id
     * @throws IOException if the call fails or the port space is not {@link #RDMA_PS_TCP}
     */
    public abstract RdmaCmId createId(RdmaEventChannel cmChannel, short rdma_ps) throws IOException;

    /**
     * {@code rdma_create_qp}: an RC queue pair on the id's device with the given attributes, moved through its
     * states by rdma_cm.
     *
     * @param idPriv the id (its device must be known: after binding to a device's address, resolving, or on a
     *        connection request's id)
     * @param pd a protection domain of the id's device
     * @param attr completion queues, capacities (all honoured, unlike DiSNI 2.1's fixed 4 SGEs), signalling
     * @return the queue pair, which the id owns
     * @throws IOException if the call fails
     */
    public abstract IbvQP createQP(RdmaCmId idPriv, IbvPd pd, IbvQPInitAttr attr) throws IOException;

    /**
     * {@code rdma_bind_addr}. The address is passed as given, IPv6 and wildcard included (DiSNI 2.1
     * marshalled IPv4 only); a wildcard-bound id has no device until a connection request arrives.
     *
     * @param idPriv the id
     * @param addr an {@code InetSocketAddress}
     * @throws IOException if the call fails
     */
    public abstract void bindAddr(RdmaCmId idPriv, SocketAddress addr) throws IOException;

    /**
     * {@code rdma_listen}; requests arrive as {@code CONNECT_REQUEST} events.
     *
     * @param idPriv the bound id
     * @param backlog the queue of pending requests
     * @throws IOException if the call fails
     */
    public abstract void listen(RdmaCmId idPriv, int backlog) throws IOException;

    /**
     * {@code rdma_resolve_addr}; the outcome arrives as {@code ADDR_RESOLVED} or {@code ADDR_ERROR}.
     *
     * @param idPriv the id
     * @param src a local address to bind first, or null
     * @param dst the destination
     * @param timeout milliseconds
     * @throws IOException if {@code src} cannot be bound
     */
    public abstract void resolveAddr(RdmaCmId idPriv, SocketAddress src, SocketAddress dst, int timeout)
            throws IOException;

    /**
     * {@code rdma_resolve_route}; the outcome arrives as {@code ROUTE_RESOLVED} or {@code ROUTE_ERROR}.
     *
     * @param idPriv the id
     * @param timeout milliseconds
     * @throws IOException never at once
     */
    public abstract void resolveRoute(RdmaCmId idPriv, int timeout) throws IOException;

    /**
     * Waits for the next event of the channel's ids.
     *
     * @param cmChannel the channel
     * @param timeout milliseconds; negative waits without bound
     * @return the event, or null if none arrived in time
     * @throws IOException if the wait is interrupted
     */
    public abstract RdmaCmEvent getCmEvent(RdmaEventChannel cmChannel, int timeout) throws IOException;

    /**
     * {@code rdma_connect}; the outcome arrives as {@code ESTABLISHED} or a failure event.
     *
     * @param idPriv the id, with its queue pair
     * @param connParam private data, retry counts, RDMA READ depths (0: the device's maximum)
     * @throws IOException if the id has no queue pair or the parameters are refused
     */
    public abstract void connect(RdmaCmId idPriv, RdmaConnParam connParam) throws IOException;

    /**
     * {@code rdma_accept} on a connection request's id; {@code ESTABLISHED} follows.
     *
     * @param idPriv the request's id, with its queue pair
     * @param connParam private data, retry counts, RDMA READ depths (0: the device's maximum)
     * @throws IOException if the call fails
     */
    public abstract void accept(RdmaCmId idPriv, RdmaConnParam connParam) throws IOException;

    /**
     * Acknowledges an event: nothing to do, Panama Verbs acknowledged it when it read it.
     *
     * @param cmEvent the event
     * @return 0
     */
    public abstract int ackCmEvent(RdmaCmEvent cmEvent);

    /**
     * {@code rdma_disconnect}; both sides then get {@code DISCONNECTED}.
     *
     * @param idPriv the id
     * @return 0, or -1 if the call failed (for example when not connected)
     * @throws IOException never
     */
    public abstract int disconnect(RdmaCmId idPriv) throws IOException;

    /**
     * {@code rdma_destroy_event_channel}, after destroying the channel's ids.
     *
     * @param cmChannel the channel
     * @return 0
     * @throws IOException if the call fails
     */
    public abstract int destroyEventChannel(RdmaEventChannel cmChannel) throws IOException;

    /**
     * {@code rdma_destroy_id}, after destroying its queue pair.
     *
     * @param idPriv the id
     * @return 0
     * @throws IOException if the call fails
     */
    public abstract int destroyCmId(RdmaCmId idPriv) throws IOException;

    /**
     * {@code rdma_destroy_qp}.
     *
     * @param idPriv the id whose queue pair to destroy
     * @return 0
     * @throws IOException if the call fails
     */
    public abstract int destroyQP(RdmaCmId idPriv) throws IOException;

    /**
     * {@code rdma_get_local_addr}.
     *
     * @param idPriv the id
     * @return the local address, or null before bind or resolve
     * @throws IOException never
     */
    public abstract SocketAddress getSrcAddr(RdmaCmId idPriv) throws IOException;

    /**
     * {@code rdma_get_peer_addr}.
     *
     * @param idPriv the id
     * @return the peer's address, or null before resolve or a request
     * @throws IOException never
     */
    public abstract SocketAddress getDstAddr(RdmaCmId idPriv) throws IOException;

    /**
     * {@code rdma_destroy_ep}: the id and its queue pair.
     *
     * @param idPriv the id
     * @return 0
     * @throws IOException if the call fails
     */
    public abstract int destroyEp(RdmaCmId idPriv) throws IOException;
}
